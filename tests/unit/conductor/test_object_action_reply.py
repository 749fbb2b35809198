"""ConductorManager.object_action answers, byte for byte on the wire,
what the straightforward way answers: a deep copy of the object before the
method, every set field that differs from the copy (or was unset in it)
as its field primitive, the changed-field names; serialised by walking
every value."""
import copy
import datetime

from oslo_serialization import jsonutils
import pytest

from keel.conductor import manager as conductor_manager
from keel import context as keel_context
from keel import objects
from keel.objects import base
from keel.rpc import serializer as rpc_serializer

objects.register_all()

UUID = "a4f3c9a6-1d7e-4d7b-9a8e-2f1a0b6c5d4e"
NOW = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)


def _straightforward(objinst, objmethod, args, kwargs):
    before = copy.deepcopy(objinst)
    result = getattr(objinst, objmethod)(*args, **kwargs)
    updates = {}
    for name, field in objinst.fields.items():
        if not objinst.obj_attr_is_set(name):
            continue
        if (not before.obj_attr_is_set(name) or
                getattr(before, name) != getattr(objinst, name)):
            updates[name] = field.to_primitive(objinst, name,
                                               getattr(objinst, name))
    updates["obj_what_changed"] = objinst.obj_what_changed()
    return updates, result


class _Endpoint:
    _dispatch = staticmethod(
        lambda target, method, args, kwargs: getattr(target, method)(
            *args, **kwargs))


def _instance():
    inst = objects.Instance(
        uuid=UUID, id=7, host=None, vm_state="building",
        task_state="scheduling", metadata={"a": "1"},
        system_metadata={"image_min_ram": "0", "image_disk_format": "raw"},
        updated_at=None, launched_at=None,
        flavor=objects.Flavor(flavorid="1", name="tiny", memory_mb=512,
                              extra_specs={"hw:cpu_policy": "shared"}),
        info_cache=objects.InstanceInfoCache(instance_uuid=UUID,
                                             network_info=[]),
        tags=objects.TagList(objects=[]))
    inst.obj_reset_changes(recursive=True)
    return inst


def _spawned(self, expected_task_state=None):
    self.vm_state = "active"
    self.task_state = None
    self.host = "h1"
    self.launched_at = NOW
    self.updated_at = NOW
    self.system_metadata["boot_roles"] = "member"
    self.obj_reset_changes(recursive=True)


def _left_alone(self, expected_task_state=None):
    return "done"


@pytest.mark.parametrize("method", [_spawned, _left_alone])
def test_reply_is_the_straightforward_one_on_the_wire(monkeypatch, method):
    monkeypatch.setattr(objects.Instance, "fake_method", method,
                        raising=False)
    ser = rpc_serializer.RequestContextSerializer(
        base.KeelObjectSerializer())
    ctxt = keel_context.get_admin_context()
    wire = jsonutils.loads(jsonutils.dumps(
        ser.serialize_entity(ctxt, _instance())))
    mine = conductor_manager.ConductorManager.object_action(
        _Endpoint(), ctxt, ser.deserialize_entity(ctxt, wire),
        "fake_method", (), {"expected_task_state": ["spawning"]})
    ref = _straightforward(ser.deserialize_entity(ctxt, wire),
                           "fake_method", (),
                           {"expected_task_state": ["spawning"]})
    assert isinstance(mine[0], rpc_serializer.Primitives)
    sent, expected = (ser.serialize_entity(ctxt, mine),
                      ser.serialize_entity(ctxt, ref))
    assert sent == expected
    assert jsonutils.dumps(sent) == jsonutils.dumps(expected)
