"""Dict-of-plain-values fields (Instance.metadata/system_metadata,
Flavor.extra_specs, ComputeNode.stats) read from a primitive by the plan
give what oslo's Dict.from_primitive + Dict.coerce give: a CoercedDict
bound to the object and field, equal items of the same types, still
coercing what is added later; values that need coercing still go
through oslo."""
import pytest

from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import fields as ovoo_fields

from keel import objects
from keel.objects import primitives

objects.register_all()

UUID = "5c8cb4a6-1d1c-4a3b-a2b1-9a8e5f0b3c11"


def _prim(name, version, data):
    return {"nova_object.name": name, "nova_object.namespace": "nova",
            "nova_object.version": version, "nova_object.data": data}


def _oslo(cls, primitive):
    return ovoo_base.VersionedObject._obj_from_primitive.__func__(
        cls, None, primitive["nova_object.version"], primitive)


def _same(got, want, names):
    for name in names:
        assert got.obj_attr_is_set(name) == want.obj_attr_is_set(name), name
        if not want.obj_attr_is_set(name):
            continue
        g, w = getattr(got, name), getattr(want, name)
        assert type(g) is type(w), name
        assert g == w, name
        assert [type(v) for v in g.values()] == [type(v) for v in w.values()]
        assert list(g) == list(w), name
        if isinstance(w, ovoo_fields.CoercedDict):
            assert g._obj is got and w._obj is want
            assert (g._field, g._element_type) == (w._field, w._element_type)


CASES = [
    {"metadata": {}, "system_metadata": {}},
    {"metadata": {"a": "1", "b": ""},
     "system_metadata": {"image_%d" % i: str(i) for i in range(20)}},
    # Values oslo coerces: an int becomes "7", a None in a dict of
    # non-nullable strings is refused (checked below).
    {"metadata": {"a": 7}, "system_metadata": {"x": "y", "n": 1.5}},
    {"metadata": {"a": True}},
]


@pytest.mark.parametrize("data", CASES)
def test_instance_dicts_are_oslo_s(data):
    data = dict(data, uuid=UUID)
    prim = _prim("Instance", objects.Instance.VERSION, data)
    got = objects.Instance.obj_from_primitive(prim)
    want = _oslo(objects.Instance, prim)
    _same(got, want, ["metadata", "system_metadata"])
    assert got.obj_what_changed() == set()


def test_none_in_a_dict_of_strings_is_refused_as_by_oslo():
    prim = _prim("Instance", objects.Instance.VERSION,
                 {"uuid": UUID, "metadata": {"a": None}})
    with pytest.raises(ValueError):
        _oslo(objects.Instance, prim)
    with pytest.raises(ValueError):
        objects.Instance.obj_from_primitive(prim)


def test_flavor_extra_specs_and_compute_node_stats():
    flavor = _prim("Flavor", objects.Flavor.VERSION,
                   {"flavorid": "1", "extra_specs": {"hw:cpu": "x"}})
    _same(objects.Flavor.obj_from_primitive(flavor),
          _oslo(objects.Flavor, flavor), ["extra_specs"])
    node = _prim("ComputeNode", objects.ComputeNode.VERSION,
                 {"host": "h", "stats": {"a": "1", "b": "2"}})
    _same(objects.ComputeNode.obj_from_primitive(node),
          _oslo(objects.ComputeNode, node), ["stats"])


def test_a_read_dict_still_coerces_and_records_changes():
    prim = _prim("Instance", objects.Instance.VERSION,
                 {"uuid": UUID, "metadata": {"a": "1"}})
    inst = objects.Instance.obj_from_primitive(prim)
    inst.metadata["b"] = 2
    assert inst.metadata == {"a": "1", "b": "2"}
    assert "metadata" in inst.obj_what_changed()
    with pytest.raises(ValueError):
        inst.metadata["c"] = None


def test_nullable_string_dicts_take_none_as_oslo():
    @ovoo_base.VersionedObjectRegistry.objectify    # properties, unlisted
    class _Holder(ovoo_base.VersionedObject):
        OBJ_SERIAL_NAMESPACE = "nova_object"
        fields = {"d": ovoo_fields.DictOfNullableStringsField()}

    plan = primitives.Plan(_Holder)
    assert plan.dict_elems == {"d": str}
    prim = _prim("_Holder", "1.0", {"d": {"a": None, "b": "x"}})
    got = _Holder()
    got._context = None
    primitives.fields_from_primitive(got, prim["nova_object.data"])
    want = _oslo(_Holder, prim)
    assert got.d == want.d and type(got.d) is type(want.d)
    assert got.d._element_type is want.d._element_type
