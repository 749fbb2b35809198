"""A Primitives dict is sent as the plain dict the walk makes of it (the
same values, a set turned into the same list; the same JSON), and its
values are not looked into (no object turned into a primitive on the
way)."""
from oslo_serialization import jsonutils

from keel import context as keel_context
from keel import objects
from keel.objects import base
from keel.rpc import serializer as rpc_serializer

objects.register_all()


def _ser():
    return rpc_serializer.RequestContextSerializer(
        base.KeelObjectSerializer())


def test_same_message_as_walking_it():
    ctxt = keel_context.get_admin_context()
    flavor = objects.Flavor(flavorid="1", name="t", memory_mb=1,
                            extra_specs={"a": "b"})
    updates = {"flavor": flavor.obj_to_primitive(), "vm_state": "active",
               "tags": [], "n": 1.5, "t": ("a", None),
               "obj_what_changed": {"vm_state", "flavor"}}
    walked = _ser().serialize_entity(ctxt, (updates, None))
    fast = _ser().serialize_entity(
        ctxt, (rpc_serializer.Primitives(updates), None))
    assert jsonutils.dumps(walked) == jsonutils.dumps(fast)
    assert type(fast[0]) is dict and fast[0] == walked[0]


def test_values_are_passed_on_as_they_are():
    ctxt = keel_context.get_admin_context()
    marker = object()
    out = _ser().serialize_entity(
        ctxt, rpc_serializer.Primitives({"x": marker}))
    assert out == {"x": marker} and type(out) is dict


def test_without_an_object_serializer_it_is_a_dict_as_any():
    ctxt = keel_context.get_admin_context()
    ser = rpc_serializer.RequestContextSerializer(None)
    value = rpc_serializer.Primitives({"a": [1]})
    assert jsonutils.dumps(ser.serialize_entity(ctxt, value)) == \
        jsonutils.dumps({"a": [1]})
