"""snapshot_fields / fields_changed_since read the values from the
object's __dict__ through the class' plan: the same snapshot and the same
changed fields, in the same order, as reading each field with getattr
(the straightforward way, kept here as the reference)."""
import datetime

from keel import objects
from keel.objects import base

objects.register_all()


def _ref_snapshot(obj):
    snap = {}
    for name in obj.fields:
        try:
            value = getattr(obj, "_obj_" + name)
        except AttributeError:
            continue
        snap[name] = base._plain_copy(value)
    return snap


def _ref_changed(obj, snap):
    changed = []
    for name in obj.fields:
        try:
            value = getattr(obj, "_obj_" + name)
        except AttributeError:
            continue
        old = snap.get(name, base._ALWAYS)
        if old is value and type(value) in base._IMMUTABLE:
            continue
        if old is base._ALWAYS or old != value or base._holds_object(value):
            changed.append(name)
    return changed


def _instance(**extra):
    uuid = "a4f3c9a6-1d7e-4d7b-9a8e-2f1a0b6c5d4e"
    inst = objects.Instance(
        uuid=uuid, id=7, host="h1", vm_state="building",
        task_state="spawning", metadata={"a": "1"},
        system_metadata={"image_min_ram": "0"}, access_ip_v4="10.0.0.2",
        updated_at=datetime.datetime(2026, 1, 1, 12, 0, 0),
        flavor=objects.Flavor(flavorid="1", name="tiny", memory_mb=512,
                              extra_specs={"hw:cpu_policy": "shared"}),
        info_cache=objects.InstanceInfoCache(instance_uuid=uuid,
                                             network_info=[]),
        tags=objects.TagList(objects=[]), **extra)
    inst.obj_reset_changes(recursive=True)
    return inst


def _mutations():
    return [
        lambda o: None,
        lambda o: setattr(o, "vm_state", "active"),
        lambda o: setattr(o, "task_state", None),
        lambda o: setattr(o, "node", "n1"),
        lambda o: setattr(o, "host", "h1"),
        lambda o: o.metadata.update(b="2"),
        lambda o: o.system_metadata.pop("image_min_ram"),
        lambda o: setattr(o, "updated_at",
                          datetime.datetime(2026, 1, 1, 12, 0, 1)),
        lambda o: o.flavor.extra_specs.update(x="y"),
        lambda o: delattr(o, "host"),
        lambda o: setattr(o, "access_ip_v4", "10.0.0.3"),
    ]


def _objects():
    yield _instance
    yield lambda: _instance(progress=5, locked=False)
    yield lambda: objects.ComputeNode(host="h", cpu_info="{}",
                                      stats={"a": "1"}, id=1)
    yield lambda: objects.Service(host="h", binary="nova-compute",
                                  report_count=3)
    yield lambda: objects.InstanceActionEvent(event="e", result=None)


def test_same_snapshot_and_changes_in_the_same_order():
    for make in _objects():
        for mutate in _mutations():
            obj, ref = make(), make()
            snap, ref_snap = base.snapshot_fields(obj), _ref_snapshot(ref)
            assert list(snap) == list(ref_snap)
            for name in snap:
                same = snap[name] is base._ALWAYS
                assert same == (ref_snap[name] is base._ALWAYS), name
                if not same:
                    assert snap[name] == ref_snap[name], name
            try:
                mutate(obj)
                mutate(ref)
            except (AttributeError, NotImplementedError, KeyError):
                continue
            assert base.fields_changed_since(obj, snap) == \
                _ref_changed(ref, ref_snap)


def test_every_registered_class_uses_its_plan_in_field_order():
    for versions in base.KeelObjectRegistry.obj_classes().values():
        for cls in versions:
            obj = cls()
            assert [n for n, _ in base._field_attrs(obj)] == list(obj.fields)


def test_object_with_its_own_fields_is_read_by_those():
    inst = _instance()
    inst.fields = {name: inst.fields[name] for name in ("host", "vm_state")}
    snap = base.snapshot_fields(inst)
    assert list(snap) == ["host", "vm_state"]
    inst.vm_state = "active"
    assert base.fields_changed_since(inst, snap) == ["vm_state"]
