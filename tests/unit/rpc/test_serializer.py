"""keel.rpc.serializer.RequestContextSerializer walks plain containers
itself; what it produces must be what oslo.versionedobjects' serializer
produces (same values, same container types, new containers)."""
import collections
import datetime

import pytest

from keel import context as keel_context
from keel import objects
from keel.rpc import serializer as rpc_serializer

objects.register_all()


def _ctxt():
    return keel_context.RequestContext(user_id="u", project_id="p")


def _service(**kw):
    svc = objects.Service(id=3, host="h1", binary="nova-compute",
                          topic="compute", report_count=7, disabled=False,
                          **kw)
    svc.obj_reset_changes()
    return svc


def _entities():
    stamp = datetime.datetime(2026, 1, 2, 3, 4, 5)
    return [
        None, "save", 3, 2.5, True,
        (), [], {},
        ("save", 1, None),
        {"objmethod": "save", "args": (), "kwargs": {}},
        {"Instance": "2.8", "Flavor": "1.2", "nested": [{"a": [1, (2, 3)]}]},
        [{"x": {1, 2}}, stamp, {2: "int key"}],
        collections.OrderedDict([("b", 1), ("a", [1])]),
        ({"updated_at": None, "report_count": 8}, None),
        _service(),
        [_service(), {"svc": _service()}, (_service(),)],
    ]


def _oslo():
    return rpc_serializer.object_serializer()


def _ours():
    return rpc_serializer.RequestContextSerializer(
        rpc_serializer.object_serializer())


def _same(a, b):
    """Equal values with identical container types all the way down."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, objects.Service):
        assert a.obj_to_primitive() == b.obj_to_primitive()
    else:
        assert a == b


@pytest.mark.parametrize("entity", _entities())
def test_serialize_as_oslo(entity):
    ctxt = _ctxt()
    _same(_ours().serialize_entity(ctxt, entity),
          _oslo().serialize_entity(ctxt, entity))


@pytest.mark.parametrize("entity", _entities())
def test_deserialize_as_oslo(entity):
    ctxt = _ctxt()
    wire = _oslo().serialize_entity(ctxt, entity)
    ours = _ours().deserialize_entity(ctxt, wire)
    _same(ours, _oslo().deserialize_entity(ctxt, wire))


def test_containers_are_new():
    entity = {"a": [1, {"b": 2}], "t": (1,)}
    for result in (_ours().serialize_entity(_ctxt(), entity),
                   _ours().deserialize_entity(_ctxt(), entity)):
        assert result == entity
        assert result is not entity
        assert result["a"] is not entity["a"]
        assert result["a"][1] is not entity["a"][1]


def test_objects_come_back_with_the_context():
    ctxt = _ctxt()
    wire = _ours().serialize_entity(ctxt, {"objinst": _service()})
    assert wire["objinst"]["nova_object.name"] == "Service"
    back = _ours().deserialize_entity(ctxt, wire)["objinst"]
    assert isinstance(back, objects.Service)
    assert back._context is ctxt
    assert back.report_count == 7


def test_other_bases_are_used_as_they_are():
    payload = rpc_serializer.RequestContextSerializer(
        rpc_serializer.JsonPayloadSerializer())
    stamp = datetime.datetime(2026, 1, 2, 3, 4, 5)
    assert payload.serialize_entity(None, {"at": stamp}) == {
        "at": "2026-01-02T03:04:05.000000"}
    bare = rpc_serializer.RequestContextSerializer()
    entity = {"a": [1]}
    assert bare.serialize_entity(None, entity) is entity
    assert bare.deserialize_entity(None, entity) is entity
