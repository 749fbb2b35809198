"""Lists of objects (ObjectListBase.objects and the like) and the object
envelope read and written by keel/objects/primitives.py and
KeelObject.obj_from_primitive give what oslo.versionedobjects' generic
code gives: the same primitives, a CoercedList bound to the object and
field that still coerces later additions, the same refusals."""
import pytest

from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import exception as ovoo_exc
from oslo_versionedobjects import fields as ovoo_fields

from keel import objects
from keel.objects import primitives

objects.register_all()

UUID = "5c8cb4a6-1d1c-4a3b-a2b1-9a8e5f0b3c11"


def _prim(name, version, data, changes=None):
    prim = {"nova_object.name": name, "nova_object.namespace": "nova",
            "nova_object.version": version, "nova_object.data": data}
    if changes is not None:
        prim["nova_object.changes"] = changes
    return prim


def _oslo_from_primitive(cls, primitive):
    """oslo's own field-by-field hydration (through the setters)."""
    return ovoo_base.VersionedObject._obj_from_primitive.__func__(
        cls, None, primitive["nova_object.version"], primitive)


def _tags(*names):
    return objects.TagList(objects=[
        objects.Tag(resource_id=UUID, tag=n) for n in names])


def _list_classes():
    for name, classes in ovoo_base.VersionedObjectRegistry.obj_classes(
            ).items():
        for cls in classes:
            if issubclass(cls, ovoo_base.ObjectListBase):
                yield cls


def test_every_registered_list_takes_the_planned_path():
    kinds = {}
    for cls in _list_classes():
        plan = primitives.plan_for(cls)
        kinds[cls.obj_name()] = [
            (kind, out) for (name, _a, _f, kind, _s, _n), (*_x, out)
            in zip(plan.from_prim, plan.to_prim) if name == "objects"]
    assert kinds["TagList"] == [(primitives._OBJLIST,
                                 primitives._TO_OBJLIST)]
    for name, got in kinds.items():
        assert got and got[0][1] == primitives._TO_OBJLIST, name


@pytest.mark.parametrize("names", [(), ("blue",), ("blue", "red", "x")])
def test_tag_list_round_trip_is_oslo_s(names):
    tags = _tags(*names)
    mine = tags.obj_to_primitive()
    field = tags.fields["objects"]
    assert mine["nova_object.data"]["objects"] == field.to_primitive(
        tags, "objects", tags.objects)
    back = objects.TagList.obj_from_primitive(mine)
    ref = _oslo_from_primitive(objects.TagList, mine)
    assert type(back.objects) is type(ref.objects) is \
        ovoo_fields.CoercedList
    assert [t.obj_to_primitive() for t in back.objects] == \
        [t.obj_to_primitive() for t in ref.objects]
    assert back.objects._obj is back
    assert (back.objects._field, back.objects._element_type) == \
        (ref.objects._field, ref.objects._element_type)
    assert back._changed_fields == ref._changed_fields
    assert back.obj_what_changed() == ref.obj_what_changed()
    # Still coercing what is added later.
    with pytest.raises(ValueError):
        back.objects.append("not a tag")
    back.objects.append(objects.Tag(resource_id=UUID, tag="late"))


def test_changes_of_a_list_primitive_are_kept():
    prim = _prim("TagList", objects.TagList.VERSION,
                 {"objects": [_prim("Tag", objects.Tag.VERSION,
                                    {"tag": "a"})]}, changes=["objects"])
    assert objects.TagList.obj_from_primitive(prim)._changed_fields == \
        {"objects"}


def test_a_list_without_objects_still_gets_an_empty_one():
    prim = _prim("TagList", objects.TagList.VERSION, {})
    got = objects.TagList.obj_from_primitive(prim)
    assert got.objects == [] and type(got.objects) is \
        ovoo_fields.CoercedList
    assert got.obj_what_changed() == set()


@pytest.mark.parametrize("bad", [
    None, _prim("Flavor", objects.Flavor.VERSION, {"flavorid": "1"})])
def test_a_wrong_child_is_refused_as_by_oslo(bad):
    prim = _prim("TagList", objects.TagList.VERSION,
                 {"objects": [_prim("Tag", objects.Tag.VERSION,
                                    {"tag": "a"}), bad]})
    with pytest.raises(ValueError):
        _oslo_from_primitive(objects.TagList, prim)
    with pytest.raises(ValueError):
        objects.TagList.obj_from_primitive(prim)


def test_children_are_not_coerced_one_by_one(monkeypatch):
    """The planned path: List.coerce (one Field.coerce per child) is not
    called for a list of the right objects."""
    def refuse(*args, **kwargs):
        raise AssertionError("List.coerce called")
    prim = _tags("a", "b").obj_to_primitive()
    monkeypatch.setattr(ovoo_fields.List, "coerce", refuse)
    got = objects.TagList.obj_from_primitive(prim)
    assert [t.tag for t in got] == ["a", "b"]


def _sorted_changes(prim):
    """``prim`` with every nova_object.changes list sorted: oslo writes the
    changed fields from a set, so their order follows string hashing and
    differs between processes (PYTHONHASHSEED), never their content."""
    if isinstance(prim, dict):
        return {k: sorted(v) if k == "nova_object.changes" else
                _sorted_changes(v) for k, v in prim.items()}
    if isinstance(prim, list):
        return [_sorted_changes(v) for v in prim]
    return prim


def test_instance_lists_round_trip():
    inst = objects.Instance(
        uuid=UUID, tags=_tags("x"),
        security_groups=objects.SecurityGroupList(objects=[]),
        keypairs=objects.KeyPairList(objects=[objects.KeyPair(
            name="k", user_id="u", fingerprint="f", public_key="p",
            type="ssh")]))
    prim = inst.obj_to_primitive()
    back = objects.Instance.obj_from_primitive(prim)
    assert _sorted_changes(back.obj_to_primitive()) == _sorted_changes(prim)
    assert back.keypairs[0].name == "k"
    assert back.tags.objects._obj is back.tags


def test_envelope_errors_are_oslo_s():
    prim = _prim("Tag", objects.Tag.VERSION, {"tag": "a"})
    prim["nova_object.namespace"] = "other"
    with pytest.raises(ovoo_exc.UnsupportedObjectError) as mine:
        objects.Tag.obj_from_primitive(prim)
    with pytest.raises(ovoo_exc.UnsupportedObjectError) as oslo:
        ovoo_base.VersionedObject.obj_from_primitive.__func__(
            objects.Tag, prim)
    assert str(mine.value) == str(oslo.value)
    for key in ("nova_object.name", "nova_object.version",
                "nova_object.namespace"):
        prim = _prim("Tag", objects.Tag.VERSION, {"tag": "a"})
        del prim[key]
        with pytest.raises(KeyError):
            objects.Tag.obj_from_primitive(prim)
    prim = _prim("NoSuchThing", "1.0", {})
    with pytest.raises(ovoo_exc.UnsupportedObjectError):
        objects.Tag.obj_from_primitive(prim)


def _spec_and_friends():
    flavor = objects.Flavor(flavorid="1", extra_specs={"a": "1", "b": ""},
                            projects=["p1", "p2"])
    inst = objects.Instance(uuid=UUID, metadata={"k": "v"},
                            system_metadata={"n": None, "s": "x"})
    node = objects.ComputeNode(id=1, stats={"a": None, "b": "2"})
    group = objects.RequestGroup(resources={"VCPU": 1, "MEMORY_MB": 512},
                                 provider_uuids=[UUID])
    spec = objects.RequestSpec(force_hosts=["h1"], force_nodes=[],
                               ignore_hosts=["h2", "h3"])
    return [flavor, inst, node, group, spec]


@pytest.mark.parametrize("obj", _spec_and_friends(),
                         ids=lambda o: o.obj_name())
def test_plain_dicts_and_lists_are_written_as_oslo_s(obj):
    data = primitives.fields_to_primitive(obj)
    for name in obj.fields:
        if not obj.obj_attr_is_set(name):
            continue
        value = getattr(obj, name)
        want = obj.fields[name].to_primitive(obj, name, value)
        assert data[name] == want, name
        assert type(data[name]) is type(want), name
        if isinstance(want, (dict, list)):
            assert data[name] is not value, name
            assert list(data[name]) == list(want), name


def test_plain_dicts_and_lists_skip_the_per_item_calls(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("per-item to_primitive called")
    objs = _spec_and_friends()
    monkeypatch.setattr(ovoo_fields.Dict, "to_primitive", refuse)
    monkeypatch.setattr(ovoo_fields.List, "to_primitive", refuse)
    for obj in objs:
        primitives.fields_to_primitive(obj)
