"""The hot object writes made with Core statements built once (instance
destroy, compare-and-swap, Service/ComputeNode save, action events) write
what the ORM versions wrote and leave the objects as a re-read would."""
import datetime

import pytest
from oslo_utils import uuidutils
import sqlalchemy as sa

from keel.db.cell import models
from keel.db import session
from keel import exception
from keel import objects
from tests.unit.objects.test_instance_statements import _statements
from tests.unit.objects.test_service_db import _node
from tests.unit.objects.test_service_db import _service


def _naive(value):
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None, microsecond=0)
    return value


def _same(obj, fresh, skip=()):
    for name in obj.fields:
        if name in skip or not fresh.obj_attr_is_set(name):
            continue
        assert obj.obj_attr_is_set(name), name
        mine, theirs = getattr(obj, name), getattr(fresh, name)
        if hasattr(theirs, "obj_to_primitive"):
            mine, theirs = mine.obj_to_primitive(), theirs.obj_to_primitive()
        assert _naive(mine) == _naive(theirs), name


@pytest.fixture
def instance(ctx):
    inst = objects.Instance(ctx, uuid=uuidutils.generate_uuid(),
                            project_id="fake-project", user_id="fake-user",
                            vm_state="active", task_state=None,
                            metadata={"a": "b"},
                            system_metadata={"c": "d"})
    inst.create()
    return inst


def test_destroy_soft_deletes_without_reading(ctx, instance):
    bdm = objects.BlockDeviceMapping(
        ctx, instance_uuid=instance.uuid, source_type="image",
        destination_type="local", boot_index=0, device_name="/dev/vda")
    bdm.create()
    with _statements() as seen:
        instance.destroy()
    assert "SELECT" not in seen, seen
    assert instance.deleted and instance.deleted_at is not None
    assert not instance.obj_what_changed()
    with session.cell_reader(ctx) as s:
        row = s.execute(sa.select(models.Instance).where(
            models.Instance.uuid == instance.uuid)).scalars().one()
        assert row.deleted == row.id
        assert _naive(row.deleted_at) == _naive(instance.deleted_at)
        for model in (models.InstanceMetadata,
                      models.InstanceSystemMetadata,
                      models.InstanceInfoCache, models.InstanceExtra,
                      models.BlockDeviceMapping):
            rows = s.execute(sa.select(model).where(
                model.instance_uuid == instance.uuid)).scalars().all()
            assert rows and all(r.deleted == r.id for r in rows), model
    with pytest.raises(exception.InstanceNotFound):
        instance.destroy()


def test_compare_and_swap_state_shapes(ctx, instance):
    instance.task_state = "powering-off"
    instance.save(expected_task_state=[None, "nope"])
    instance.task_state = None
    instance.save(expected_task_state="powering-off",
                  expected_vm_state=["active"])
    instance.task_state = "deleting"
    with pytest.raises(exception.UnexpectedTaskStateError):
        instance.save(expected_task_state=[])
    with pytest.raises(exception.InstanceUpdateConflict):
        instance.save(expected_vm_state=("stopped", None))
    instance.save(expected_task_state=None)
    other = objects.Instance.get_by_uuid(ctx, instance.uuid)
    other.vm_state = "error"
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        other.save(expected_task_state=[None])


def test_service_save_writes_changed_columns_only(ctx):
    svc = _service(ctx)
    svc.report_count = 1
    svc.save()
    stamped = svc.updated_at
    assert stamped is not None and not svc.obj_what_changed()
    _same(svc, objects.Service.get_by_id(ctx, svc.id))
    # Another writer's change comes back with the next save.
    other = objects.Service.get_by_id(ctx, svc.id)
    other.disabled = True
    other.save()
    svc.report_count = 2
    svc.save()
    assert svc.disabled is True and svc.report_count == 2
    # A value equal to the stored one writes nothing (as the ORM's flush).
    svc.report_count = 2
    with _statements() as seen:
        svc.save()
    assert seen == ["SELECT"], seen
    with pytest.raises(exception.ServiceNotFound):
        gone = objects.Service.get_by_id(ctx, svc.id)
        gone.destroy()
        svc.report_count = 3
        svc.save()


def _node_row(ctx, node_id):
    with session.cell_reader(ctx) as s:
        return s.execute(sa.select(models.ComputeNode).where(
            models.ComputeNode.id == node_id)).scalars().one()


def _set_columns(ctx, node_id, **values):
    """Another writer's UPDATE of the row (discover_hosts' mapped...)."""
    with session.cell_writer(ctx) as s:
        s.execute(sa.update(models.ComputeNode).where(
            models.ComputeNode.id == node_id).values(**values))


def test_compute_node_save_replaces_stats_in_one_update(ctx):
    # Nova 34's ComputeNode.save ignores prune_stats ("no longer
    # relevant") and compute_node_update replaces the stats column with
    # the object's stats: nothing is merged (keel used to merge them
    # when prune_stats was False, which Nova has not done since Kilo).
    node = _node(ctx, stats={"a": "1"})
    node.stats = {"b": "2"}
    node.vcpus_used = 2
    with _statements() as seen:
        node.save()
    assert seen == ["UPDATE"], seen
    assert node.stats == {"b": "2"} and node.vcpus_used == 2
    assert not node.obj_what_changed()
    _same(node, objects.ComputeNode.get_by_id(ctx, node.id))
    node.stats = {"c": "3"}
    node.save(prune_stats=False)
    assert objects.ComputeNode.get_by_id(ctx, node.id).stats == {"c": "3"}
    node.stats = {"d": "4"}
    node.save(prune_stats=True)
    assert objects.ComputeNode.get_by_id(ctx, node.id).stats == {"d": "4"}


def test_compute_node_save_always_stamps_updated_at(ctx):
    # Nova stamps updated_at even when nothing else changes, so a
    # scheduler keeping nodes by updated_at sees every save.
    node = _node(ctx)
    old = datetime.datetime(2020, 1, 1)
    _set_columns(ctx, node.id, updated_at=old)
    with _statements() as seen:
        node.save()
    assert seen == ["UPDATE"], seen
    stamped = _node_row(ctx, node.id).updated_at
    assert stamped is not None and _naive(stamped) > old
    assert _naive(node.updated_at) == _naive(stamped)


def test_compute_node_save_sees_another_writers_mapped(ctx):
    # Nova's object comes back from the row compute_node_update read:
    # a mapped set meanwhile (discover_hosts) is on the saved object.
    node = _node(ctx)
    assert node.mapped == 0
    _set_columns(ctx, node.id, mapped=1)
    node.vcpus_used = 3
    with _statements() as seen:
        node.save()
    assert seen == ["UPDATE", "SELECT", "UPDATE"], seen
    assert node.mapped == 1 and node.vcpus_used == 3
    _same(node, objects.ComputeNode.get_by_id(ctx, node.id))
    # The object now holds the stored value: one statement again.
    node.vcpus_used = 4
    with _statements() as seen:
        node.save()
    assert seen == ["UPDATE"], seen


def test_compute_node_save_of_unwritten_values_rereads(ctx):
    # Nova writes no stats for None and no host_ip for None: the columns
    # keep their values and the object comes back with them.
    node = _node(ctx, stats={"a": "1"}, host_ip="10.0.0.5")
    node.stats = None
    node.host_ip = None
    node.cpu_allocation_ratio = 0.0
    node.save()
    assert node.stats == {"a": "1"} and str(node.host_ip) == "10.0.0.5"
    # An unset ratio reads as the configured/initial one (4.0 here).
    assert node.cpu_allocation_ratio == 4.0
    assert not node.obj_what_changed()
    _same(node, objects.ComputeNode.get_by_id(ctx, node.id))
    row = _node_row(ctx, node.id)
    assert row.stats == '{"a": "1"}' and row.host_ip == "10.0.0.5"
    # Same without a read when every value written is known.
    node.ram_allocation_ratio = 0.0
    with _statements() as seen:
        node.save()
    assert seen == ["UPDATE"], seen
    _same(node, objects.ComputeNode.get_by_id(ctx, node.id))


def test_compute_node_save_of_a_deleted_node(ctx):
    node = _node(ctx)
    objects.ComputeNode.get_by_id(ctx, node.id).destroy()
    node.vcpus_used = 3
    with pytest.raises(exception.ComputeHostNotFound):
        node.save()
    with pytest.raises(exception.ComputeHostNotFound):
        node.save()
    assert _node_row(ctx, node.id).vcpus_used == 0
    # Nova's model_query follows the context's read_deleted.
    node._context = ctx.elevated(read_deleted="yes")
    node.save()
    assert _node_row(ctx, node.id).vcpus_used == 3
    assert node.deleted


def test_compute_node_save_of_a_partial_object(ctx):
    node = _node(ctx, stats={"a": "1"})
    partial = objects.ComputeNode(ctx, id=node.id, vcpus_used=5)
    partial.save()
    assert partial.stats == {"a": "1"} and partial.vcpus_used == 5
    _same(partial, objects.ComputeNode.get_by_id(ctx, node.id))


def test_event_results_are_what_a_reread_gives(ctx, instance):
    objects.InstanceAction.action_start(ctx, instance.uuid, "reboot")
    started = objects.InstanceActionEvent.event_start(
        ctx, instance.uuid, "step", host="h1")
    assert started.id and started.host == "h1" and not started.deleted
    assert started.finish_time is None and started.start_time is not None
    action = objects.InstanceAction.get_by_request_id(
        ctx, instance.uuid, ctx.request_id)
    _same(started, objects.InstanceActionEvent.get_by_id(
        ctx, action.id, started.id))
    with _statements() as seen:
        assert objects.InstanceActionEvent.event_start(
            ctx, instance.uuid, "quiet", want_result=False) is None
    assert seen == ["SELECT", "UPDATE", "INSERT"], seen
    with _statements() as seen:
        done = objects.InstanceActionEvent.event_finish(
            ctx, instance.uuid, "step")
    assert seen == ["SELECT", "UPDATE", "UPDATE"], seen
    assert done.result == "Success" and done.finish_time is not None
    _same(done, objects.InstanceActionEvent.get_by_id(ctx, action.id,
                                                      done.id))
    action = objects.InstanceAction.get_by_request_id(
        ctx, instance.uuid, ctx.request_id)
    assert action.message is None
    assert _naive(action.updated_at) == _naive(done.finish_time)
    objects.InstanceActionEvent.event_finish_with_failure(
        ctx, instance.uuid, "quiet", exc_val="boom", exc_tb="tb",
        want_result=False)
    action = objects.InstanceAction.get_by_request_id(
        ctx, instance.uuid, ctx.request_id)
    assert action.message == "Error"
