"""The planned (de)serialisation of keel/objects/primitives.py gives exactly
what oslo.versionedobjects' generic code gives."""
import datetime
import warnings

from oslo_serialization import jsonutils
from oslo_versionedobjects import base as ovoo_base

from keel import objects
from keel.objects import base

objects.register_all()

UUID = "5c8cb4a6-1d1c-4a3b-a2b1-9a8e5f0b3c11"


def _oslo_to_primitive(obj):
    """oslo's own obj_to_primitive, recursively (nested objects too)."""
    prim = {}
    for name, field in obj.fields.items():
        if obj.obj_attr_is_set(name):
            value = getattr(obj, name)
            if isinstance(value, ovoo_base.VersionedObject):
                prim[name] = _oslo_to_primitive(value)
            elif isinstance(value, list) and value and isinstance(
                    value[0], ovoo_base.VersionedObject):
                prim[name] = [_oslo_to_primitive(v) for v in value]
            else:
                prim[name] = field.to_primitive(obj, name, value)
    out = {"nova_object.name": obj.obj_name(),
           "nova_object.namespace": "nova",
           "nova_object.version": obj.VERSION,
           "nova_object.data": prim}
    changes = [f for f in ovoo_base.VersionedObject.obj_what_changed(obj)
               if f in prim]
    if changes:
        out["nova_object.changes"] = changes
    return out


def _oslo_from_primitive(cls, primitive):
    return ovoo_base.VersionedObject._obj_from_primitive.__func__(
        cls, None, primitive["nova_object.version"], primitive)


def _normalise(prim):
    # "changes" is built from a set: compare it as one.
    if isinstance(prim, dict):
        return {k: (sorted(v) if k == "nova_object.changes"
                    else _normalise(v)) for k, v in prim.items()}
    if isinstance(prim, list):
        return [_normalise(v) for v in prim]
    return prim


def _instance():
    flavor = objects.Flavor(
        id=1, flavorid="1", name="m1.small", memory_mb=2048, vcpus=1,
        root_gb=20, ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=0,
        disabled=False, is_public=True, extra_specs={"hw:cpu": "x"},
        description=None)
    inst = objects.Instance(
        id=7, uuid=UUID, project_id="p", user_id="u", host="h", node=None,
        vm_state="building", task_state=None, power_state=1, memory_mb=2048,
        vcpus=1, display_name="vm", flavor=flavor, old_flavor=None,
        metadata={"a": "b"}, system_metadata={"k": None},
        launched_at=datetime.datetime(2026, 1, 2, 3, 4, 5, 6),
        created_at=datetime.datetime(2026, 1, 2, 3, 4, 5,
                                     tzinfo=datetime.timezone.utc),
        info_cache=objects.InstanceInfoCache(instance_uuid=UUID,
                                             network_info=[]),
        tags=objects.TagList(objects=[objects.Tag(resource_id=UUID,
                                                  tag="blue")]),
        locked=False, access_ip_v4="10.0.0.1", deleted=False)
    inst.obj_reset_changes(["id", "uuid", "flavor"])
    return inst


def test_instance_primitive_is_oslo_s():
    inst = _instance()
    mine = inst.obj_to_primitive()
    assert _normalise(mine) == _normalise(_oslo_to_primitive(inst))
    # Through JSON as on the wire, and back again the same way.
    wire = jsonutils.loads(jsonutils.dumps(mine))
    back = objects.Instance.obj_from_primitive(wire)
    ref = _oslo_from_primitive(objects.Instance, wire)
    for name in inst.fields:
        assert back.obj_attr_is_set(name) == ref.obj_attr_is_set(name), name
        if not ref.obj_attr_is_set(name):
            continue
        got, want = getattr(back, name), getattr(ref, name)
        assert type(got) is type(want), name
        if isinstance(want, ovoo_base.VersionedObject):
            assert got.obj_to_primitive() == want.obj_to_primitive(), name
        else:
            assert got == want, name
    assert back._changed_fields == ref._changed_fields
    assert back.obj_what_changed() == inst.obj_what_changed()


def test_service_and_compute_node_primitives_are_oslo_s():
    svc = objects.Service(id=3, host="h", binary="nova-compute",
                          topic="compute", report_count=4, disabled=False,
                          forced_down=False, uuid=UUID)
    node = objects.ComputeNode(id=1, uuid=UUID, host="h", vcpus=4,
                               memory_mb=10, cpu_allocation_ratio=16.0,
                               stats={"a": "1"}, supported_hv_specs=[])
    for obj in (svc, node):
        assert _normalise(obj.obj_to_primitive()) == \
            _normalise(_oslo_to_primitive(obj))


def test_values_that_need_coercing_still_are():
    inst = objects.Instance.obj_from_primitive({
        "nova_object.name": "Instance", "nova_object.namespace": "nova",
        "nova_object.version": "2.8",
        "nova_object.data": {"display_name": 42, "vcpus": "3",
                             "locked": None, "uuid": UUID.upper(),
                             "launched_at": "2026-01-02T03:04:05Z",
                             "host": None},
        "nova_object.changes": ["display_name", "nope"]})
    assert inst.display_name == "42" and inst.vcpus == 3
    assert inst.locked is False  # not nullable: the field's default
    assert inst.uuid == UUID.upper() and inst.host is None
    assert inst.launched_at == datetime.datetime(
        2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    assert inst._changed_fields == {"display_name"}


def test_malformed_uuid_still_warns():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        objects.Instance.obj_from_primitive({
            "nova_object.name": "Instance", "nova_object.namespace": "nova",
            "nova_object.version": "2.8",
            "nova_object.data": {"uuid": "not-a-uuid"}})
    assert any("invalid UUID" in str(w.message) for w in seen)


def test_enum_values_are_checked():
    bdm = objects.BlockDeviceMapping.obj_from_primitive({
        "nova_object.name": "BlockDeviceMapping",
        "nova_object.namespace": "nova", "nova_object.version": "1.21",
        "nova_object.data": {"source_type": "image"}})
    assert bdm.source_type == "image"
    try:
        objects.BlockDeviceMapping.obj_from_primitive({
            "nova_object.name": "BlockDeviceMapping",
            "nova_object.namespace": "nova", "nova_object.version": "1.21",
            "nova_object.data": {"source_type": "floppy"}})
    except ValueError:
        pass
    else:
        raise AssertionError("an invalid enum value was accepted")


def test_backport_still_goes_through_oslo():
    inst = _instance()
    prim = inst.obj_to_primitive(target_version="2.7")
    assert "compute_id" not in prim["nova_object.data"]
    assert prim["nova_object.version"] == "2.7"


def test_what_changed_sees_nested_changes():
    inst = _instance()
    inst.obj_reset_changes(recursive=True)
    assert not inst.obj_what_changed()
    inst.flavor.name = "other"
    assert inst.obj_what_changed() == {"flavor"}
    inst.obj_reset_changes(recursive=True)
    inst.info_cache.network_info = []
    assert "info_cache" in inst.obj_what_changed()
    assert base.KeelObject.obj_what_changed(inst) == {"info_cache"}


def test_setters_coerce_and_record_changes_as_oslo_s():
    inst = objects.Instance()
    inst.display_name = 42
    inst.vcpus = "3"
    inst.locked = None
    inst.uuid = UUID
    inst.host = "h"
    assert inst.display_name == "42" and inst.vcpus == 3
    assert inst.locked is False and inst.uuid == UUID and inst.host == "h"
    assert inst.obj_what_changed() == {"display_name", "vcpus", "locked",
                                       "uuid", "host"}
    try:
        inst.vcpus = "many"
    except ValueError:
        pass
    else:
        raise AssertionError("'many' was accepted as an integer")
    bdm = objects.BlockDeviceMapping()
    bdm.source_type = "volume"
    try:
        bdm.source_type = "floppy"
    except ValueError:
        pass
    else:
        raise AssertionError("an invalid enum value was accepted")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        inst.uuid = "not-a-uuid"
    assert any("invalid UUID" in str(w.message) for w in seen)
    del inst.host
    assert not inst.obj_attr_is_set("host")


def test_getter_still_lazy_loads():
    class Loads(objects.Instance):
        def obj_load_attr(self, attrname):
            setattr(self, attrname, "loaded-" + attrname)

    lazy = objects.Instance.__new__(Loads)
    lazy.__init__()
    assert lazy.display_name == "loaded-display_name"


def test_datetimes_round_trip_as_oslo_s():
    aware = datetime.datetime(2026, 5, 6, 7, 8, 9, 10,
                              tzinfo=datetime.timezone.utc)
    other_tz = datetime.datetime(
        2026, 5, 6, 7, 8, 9,
        tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    # (oslo writes other zones as "UTC+02:00" and years before 1000
    # unpadded, which it cannot read back)
    for value in (other_tz, datetime.datetime(999, 1, 1)):
        assert _oslo_to_primitive(objects.Instance(launched_at=value)) == \
            objects.Instance(launched_at=value).obj_to_primitive()
    for value in (aware, aware.replace(tzinfo=None)):
        inst = objects.Instance(launched_at=value)
        mine = inst.obj_to_primitive()
        assert mine == _oslo_to_primitive(inst)
        back = objects.Instance.obj_from_primitive(mine)
        ref = _oslo_from_primitive(objects.Instance, mine)
        assert back.launched_at == ref.launched_at
        assert back.launched_at.tzinfo == ref.launched_at.tzinfo
    for text in ("2026-05-06T07:08:09.123456Z", "2026-05-06T07:08:09+02:00",
                 "2026-05-06 07:08:09"):
        prim = {"nova_object.name": "Instance",
                "nova_object.namespace": "nova",
                "nova_object.version": "2.8",
                "nova_object.data": {"launched_at": text}}
        assert objects.Instance.obj_from_primitive(prim).launched_at == \
            _oslo_from_primitive(objects.Instance, prim).launched_at
