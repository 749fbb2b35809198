"""snapshot_fields / fields_changed_since (what the conductor's
object_action returns) report exactly what comparing with a deep copy of
the object reported, for in-place changes of containers too."""
import datetime

from keel import objects
from keel.objects import base

objects.register_all()


def _by_clone(obj, mutate):
    before = obj.obj_clone()
    mutate(obj)
    return sorted(name for name in obj.fields
                  if obj.obj_attr_is_set(name) and (
                      not before.obj_attr_is_set(name)
                      or getattr(before, name) != getattr(obj, name)))


def _by_snapshot(obj, mutate):
    snap = base.snapshot_fields(obj)
    mutate(obj)
    return sorted(base.fields_changed_since(obj, snap))


def _instance():
    inst = objects.Instance(
        uuid="a4f3c9a6-1d7e-4d7b-9a8e-2f1a0b6c5d4e", id=7, host="h1",
        vm_state="building", task_state="spawning", metadata={"a": "1"},
        system_metadata={"image_min_ram": "0"},
        updated_at=datetime.datetime(2026, 1, 1, 12, 0, 0),
        flavor=objects.Flavor(flavorid="1", name="tiny", memory_mb=512,
                              extra_specs={"hw:cpu_policy": "shared"}),
        info_cache=objects.InstanceInfoCache(
            instance_uuid="a4f3c9a6-1d7e-4d7b-9a8e-2f1a0b6c5d4e",
            network_info=[]),
        tags=objects.TagList(objects=[]))
    inst.obj_reset_changes(recursive=True)
    return inst


MUTATIONS = {
    "nothing": lambda i: None,
    "same value again": lambda i: setattr(i, "host", "h1"),
    "scalar": lambda i: setattr(i, "vm_state", "active"),
    "to None": lambda i: setattr(i, "task_state", None),
    "newly set": lambda i: setattr(i, "node", "n1"),
    "datetime": lambda i: setattr(
        i, "updated_at", datetime.datetime(2026, 1, 1, 12, 0, 1)),
    "metadata in place": lambda i: i.metadata.update(b="2"),
    "sysmeta key dropped in place": lambda i: i.system_metadata.pop(
        "image_min_ram"),
    "metadata replaced equal": lambda i: setattr(i, "metadata", {"a": "1"}),
    "nested object in place": lambda i: i.flavor.extra_specs.update(x="y"),
    "nested object replaced": lambda i: setattr(
        i, "info_cache", objects.InstanceInfoCache(network_info=[])),
    "ip address": lambda i: setattr(i, "access_ip_v4", "10.0.0.1"),
}


def test_same_fields_as_comparing_with_a_clone():
    for label, mutate in MUTATIONS.items():
        expected = _by_clone(_instance(), mutate)
        got = _by_snapshot(_instance(), mutate)
        assert got == expected, label


def test_objects_are_always_reported_and_plain_unchanged_fields_never():
    got = _by_snapshot(_instance(), MUTATIONS["scalar"])
    # Nested objects come back every time (the caller replaces its own).
    assert {"flavor", "info_cache", "tags", "vm_state"} <= set(got)
    assert "host" not in got and "metadata" not in got


def test_in_place_change_of_a_nested_plain_container():
    req = objects.ComputeNode(host="h", cpu_info="{}",
                              stats={"a": "1"}, id=1)
    req.obj_reset_changes()
    for obj, mutate in ((req, lambda n: n.stats.update(a="2")),
                        (req, lambda n: None)):
        expected = _by_clone(obj.obj_clone(), mutate)
        got = _by_snapshot(obj.obj_clone(), mutate)
        assert got == expected


def test_plain_fields_are_copied_without_deepcopy(monkeypatch):
    # Dict fields are oslo CoercedDicts that point back at their object: a
    # deep copy of one would copy the whole instance.
    def _refuse(*args, **kwargs):
        raise AssertionError("deepcopy")

    monkeypatch.setattr(base.copy, "deepcopy", _refuse)
    inst = _instance()
    snap = base.snapshot_fields(inst)
    inst.metadata["b"] = "2"
    assert base.fields_changed_since(inst, snap) == sorted(
        ["flavor", "info_cache", "metadata", "tags"])
