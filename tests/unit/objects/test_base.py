"""Primitive shape, registry, serializer backport and indirection routing."""
import pytest
from oslo_versionedobjects import exception as ovo_exc

from keel import context as keel_context
from keel import objects
from keel.objects import base

NOVA_KEYS = {"nova_object.name", "nova_object.namespace",
             "nova_object.version", "nova_object.data",
             "nova_object.changes"}


def test_objects_are_reachable_as_module_attributes():
    assert objects.Instance is base.KeelObjectRegistry.obj_classes()[
        "Instance"][0]
    assert objects.ServiceList.VERSION == "1.19"


def test_primitive_has_nova_rpc_frame_shape():
    svc = objects.Service(host="h", binary="nova-compute")
    prim = svc.obj_to_primitive()
    assert set(prim) == NOVA_KEYS
    assert prim["nova_object.namespace"] == "nova"
    assert prim["nova_object.name"] == "Service"
    assert prim["nova_object.version"] == "1.22"
    assert sorted(prim["nova_object.changes"]) == ["binary", "host",
                                                   "version"]
    nested = objects.InstanceMapping(
        instance_uuid="5c8cb4a6-1d1c-4a3b-a2b1-9a8e5f0b3c11",
        project_id="p", cell_mapping=objects.CellMapping(
            uuid="00000000-0000-0000-0000-000000000000", name="cell0",
            transport_url="none:///", database_connection="sqlite://"))
    inner = nested.obj_to_primitive()["nova_object.data"]["cell_mapping"]
    assert set(inner) == NOVA_KEYS and inner["nova_object.name"] == \
        "CellMapping"
    back = objects.InstanceMapping.obj_from_primitive(
        nested.obj_to_primitive())
    assert back.cell_mapping.is_cell0()


def test_nested_child_is_backported_with_its_parent():
    im = objects.InstanceMapping(
        instance_uuid="5c8cb4a6-1d1c-4a3b-a2b1-9a8e5f0b3c11", project_id="p",
        user_id="u", queued_for_delete=False, cell_mapping=None)
    flavor = objects.Flavor(flavorid="1", description="x")
    inst = objects.Instance(flavor=flavor)
    prim = inst.obj_to_primitive(target_version="2.8",
                                 version_manifest={"Flavor": "1.1"})
    assert "description" not in prim["nova_object.data"]["flavor"][
        "nova_object.data"]
    assert im.obj_to_primitive()["nova_object.version"] == "1.2"


class FakeConductor:
    """Records what the compute would send to the conductor."""

    def __init__(self):
        self.calls = []

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        self.calls.append(("class", objname, objmethod, object_versions,
                           args, kwargs))
        return objects.Service(id=args[0], host="remote")

    def object_action(self, context, objinst, objmethod, args, kwargs):
        self.calls.append(("action", objinst.obj_name(), objmethod, args,
                           kwargs))
        return {"report_count": 7}, None

    def object_backport_versions(self, context, objinst, object_versions):
        self.calls.append(("backport", objinst["nova_object.name"],
                           object_versions))
        return objects.Service(id=1, host="backported")


@pytest.fixture
def conductor():
    fake = FakeConductor()
    base.KeelObject.indirection_api = fake
    yield fake
    base.KeelObject.indirection_api = None


def test_remotable_methods_go_through_the_indirection_api(conductor):
    ctx = keel_context.get_admin_context()
    svc = objects.Service.get_by_id(ctx, 3)
    assert svc.host == "remote"
    kind, name, method, versions, args, _ = conductor.calls[0]
    assert (kind, name, method, args) == ("class", "Service", "get_by_id",
                                          (3,))
    assert versions["Service"] == "1.22"
    assert versions["ComputeNode"] == "1.19"
    svc._context = ctx
    svc.report_count = 6
    svc.save()
    assert conductor.calls[1][:3] == ("action", "Service", "save")
    # The conductor's updates are applied to the local object.
    assert svc.report_count == 7


def test_serializer_backports_too_new_objects(conductor):
    ser = base.KeelObjectSerializer()
    ctx = keel_context.get_admin_context()
    prim = objects.Service(id=1, host="h").obj_to_primitive()
    prim["nova_object.version"] = "1.99"
    obj = ser.deserialize_entity(ctx, prim)
    assert obj.host == "backported"
    kind, name, versions = conductor.calls[0]
    assert (kind, name) == ("backport", "Service")
    assert versions["Service"] == "1.22"


def test_serializer_without_indirection_refuses_too_new():
    ser = base.KeelObjectSerializer()
    prim = objects.Service(id=1).obj_to_primitive()
    prim["nova_object.version"] = "1.99"
    with pytest.raises(ovo_exc.IncompatibleObjectVersion):
        ser.deserialize_entity(keel_context.get_admin_context(), prim)


def test_serializer_round_trip_keeps_changes():
    ser = base.KeelObjectSerializer()
    ctx = keel_context.get_admin_context()
    svc = objects.Service(id=1, host="h")
    svc.obj_reset_changes(["id"])
    wire = ser.serialize_entity(ctx, {"svc": [svc]})
    back = ser.deserialize_entity(ctx, wire)["svc"][0]
    assert back.host == "h" and back.obj_what_changed() == {"host",
                                                            "version"}
