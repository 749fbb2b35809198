"""terminate / soft delete / restore / reclaim and start-up recovery,
driven through the compute RPC API and the manager's own hooks."""
import datetime

from oslo_utils import timeutils

from keel.compute import rpcapi as compute_rpcapi
from keel.compute.ops import recovery
from keel.conf import CONF
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from keel.virt import power_state
from tests.functional.compute import helpers as h
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import wait_for


def _active(cloud, host):
    ctxt = h.user_ctxt()
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, host)
    h.build(ctxt, inst, host)
    return h.wait_state(ctxt, inst, "active")


def _api_sets(inst, action, **values):
    """What the API does before its cast: a new request, its action, the
    task_state (and deleted_at for a soft delete)."""
    ctxt = h.user_ctxt()
    objects.InstanceAction.action_start(ctxt, inst.uuid, action,
                                        want_result=False)
    inst = h.reload(ctxt, inst, expected_attrs=["info_cache"])
    inst._context = ctxt
    for key, value in values.items():
        setattr(inst, key, value)
    inst.save()
    return ctxt, inst


def _deleted(ctxt, inst):
    got = h.reload(ctxt, inst)
    return got if got.deleted else None


def test_terminate_soft_deletes_the_row_and_frees_everything(cloud):
    host = cloud.hosts[0]
    inst = _active(cloud, host)
    mgr = h.compute(cloud, host)
    used_before = cloud.nodes(host)[0].memory_mb_used
    ctxt, inst = _api_sets(inst, "delete", task_state="deleting")
    compute_rpcapi.ComputeAPI().terminate_instance(
        ctxt, inst, objects.BlockDeviceMappingList(objects=[]))
    got = wait_for(lambda: _deleted(ctxt, inst), timeout=10)
    assert got, "instance was not deleted"
    assert (got.vm_state, got.task_state) == ("deleted", None)
    assert got.terminated_at is not None
    assert got.power_state == power_state.NOSTATE
    assert inst.uuid not in mgr.driver.list_instance_uuids()
    assert h.allocations(cloud, ctxt, inst) == {}
    assert cloud.nodes(host)[0].memory_mb_used == used_before - 128
    events, _ = h.events(ctxt, inst)
    assert events["compute_terminate_instance"].result == "Success"


def test_terminate_waits_for_a_build_in_progress(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[1]
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, host)
    mgr = h.compute(cloud, host)
    mgr.driver.spawn_delay = 0.5
    try:
        h.build(ctxt, inst, host)
        h.wait_state(ctxt, inst, "building", "spawning")
        dctxt, dinst = _api_sets(inst, "delete", task_state="deleting")
        compute_rpcapi.ComputeAPI().terminate_instance(
            dctxt, dinst, objects.BlockDeviceMappingList(objects=[]))
        assert wait_for(lambda: _deleted(ctxt, inst), timeout=10)
    finally:
        mgr.driver.spawn_delay = 0
    assert inst.uuid not in mgr.driver.list_instance_uuids()
    assert h.allocations(cloud, ctxt, inst) == {}
    assert objects.InstanceFault.get_latest_for_instance(
        ctxt, inst.uuid) is None


def test_soft_delete_then_restore(cloud):
    host = cloud.hosts[0]
    inst = _active(cloud, host)
    mgr = h.compute(cloud, host)
    ctxt, inst = _api_sets(inst, "delete", task_state="soft-deleting",
                           deleted_at=timeutils.utcnow())
    compute_rpcapi.ComputeAPI().soft_delete_instance(ctxt, inst)
    got = h.wait_state(ctxt, inst, "soft-delete")
    assert got.power_state == power_state.SHUTDOWN
    assert mgr.driver.get_info(got).state == power_state.SHUTDOWN
    # Soft-deleted servers keep their resources until reclaimed.
    assert h.allocations(cloud, ctxt, inst) != {}
    events, _ = h.events(ctxt, inst)
    assert events["compute_soft_delete_instance"].result == "Success"

    ctxt, inst = _api_sets(got, "restore", task_state="restoring")
    compute_rpcapi.ComputeAPI().restore_instance(ctxt, inst)
    got = h.wait_state(ctxt, inst, "active")
    assert got.power_state == power_state.RUNNING
    events, _ = h.events(ctxt, inst)
    assert events["compute_restore_instance"].result == "Success"


def test_restore_failure_reverts_task_state_and_records_fault(cloud):
    host = cloud.hosts[1]
    inst = _active(cloud, host)
    mgr = h.compute(cloud, host)
    ctxt, inst = _api_sets(inst, "delete", task_state="soft-deleting",
                           deleted_at=timeutils.utcnow())
    compute_rpcapi.ComputeAPI().soft_delete_instance(ctxt, inst)
    got = h.wait_state(ctxt, inst, "soft-delete")
    mgr.driver.inject_failure("power_on", instance_uuid=inst.uuid)
    try:
        ctxt, inst = _api_sets(got, "restore", task_state="restoring")
        compute_rpcapi.ComputeAPI().restore_instance(ctxt, inst)
        got = h.wait_state(ctxt, inst, "soft-delete", None)
    finally:
        mgr.driver.clear_failures("power_on")
    fault = objects.InstanceFault.get_latest_for_instance(ctxt, inst.uuid)
    assert "power_on" in fault.message
    assert wait_for(lambda: h.events(ctxt, inst)[0][
        "compute_restore_instance"].result == "Error", timeout=5)


def test_reclaim_deletes_only_old_soft_deleted_instances(cloud):
    host = cloud.hosts[0]
    mgr = h.compute(cloud, host)
    old, young = _active(cloud, host), _active(cloud, host)
    long_ago = timeutils.utcnow() - datetime.timedelta(seconds=120)
    for inst, when in ((old, long_ago), (young, timeutils.utcnow())):
        ctxt, inst = _api_sets(inst, "delete", task_state="soft-deleting",
                               deleted_at=when)
        compute_rpcapi.ComputeAPI().soft_delete_instance(ctxt, inst)
        h.wait_state(ctxt, inst, "soft-delete")
    ctxt = h.user_ctxt()
    CONF.set_override("reclaim_instance_interval", 60)
    try:
        reclaimed = mgr._reclaim_queued_deletes(cloud.cell_ctxt())
    finally:
        CONF.clear_override("reclaim_instance_interval")
    assert reclaimed == [old.uuid]
    assert _deleted(ctxt, old) and not _deleted(ctxt, young)
    assert h.allocations(cloud, ctxt, old) == {}
    assert h.allocations(cloud, ctxt, young) != {}
    assert old.uuid not in mgr.driver.list_instance_uuids()
    # Off by default: nothing is reclaimed with the interval at 0.
    assert mgr._reclaim_queued_deletes(cloud.cell_ctxt()) == []


def test_init_host_recovers_what_a_crash_left_behind(cloud):
    host = cloud.hosts[1]
    mgr = h.compute(cloud, host)
    ctxt = h.user_ctxt()
    # Died while spawning: bound to this host, BUILDING.
    spawning = h.create_instance(cloud, ctxt, task_state="spawning",
                                 host=host)
    # Died before binding: only Placement knows it was sent here.
    unbound = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, unbound, host)
    # Died while deleting an ACTIVE server.
    deleting = _active(cloud, host)
    dctxt, deleting = _api_sets(deleting, "delete", task_state="deleting")
    # Died while soft-deleting.
    soft = _active(cloud, host)
    sctxt, soft = _api_sets(soft, "delete", task_state="soft-deleting",
                            deleted_at=timeutils.utcnow())
    healthy = _active(cloud, host)

    mgr.init_host()

    for inst in (spawning, unbound):
        got = h.reload(ctxt, inst)
        assert (got.vm_state, got.task_state) == ("error", None)
        fault = objects.InstanceFault.get_latest_for_instance(ctxt,
                                                              inst.uuid)
        assert "interrupted" in fault.message
    assert _deleted(ctxt, deleting)
    assert h.allocations(cloud, ctxt, deleting) == {}
    assert deleting.uuid not in mgr.driver.list_instance_uuids()
    got = h.reload(ctxt, soft)
    assert (got.vm_state, got.task_state) == ("soft-delete", None)
    got = h.reload(ctxt, healthy)
    assert (got.vm_state, got.task_state) == ("active", None)


def test_delete_notifications(cloud, notification_capture):  # noqa: F811
    host = cloud.hosts[0]
    inst = _active(cloud, host)
    notification_capture.clear()
    ctxt, inst = _api_sets(inst, "delete", task_state="deleting")
    compute_rpcapi.ComputeAPI().terminate_instance(
        ctxt, inst, objects.BlockDeviceMappingList(objects=[]))
    end = notification_capture.wait_for("instance.delete.end")
    assert end["payload"]["nova_object.data"]["state"] == "deleted"
    assert notification_capture.event_types() == [
        "instance.delete.start", "instance.shutdown.start",
        "instance.shutdown.end", "instance.delete.end"]
    assert notification_capture.event_types(versioned=False) == [
        "compute.instance.delete.start", "compute.instance.shutdown.start",
        "compute.instance.shutdown.end", "compute.instance.delete.end"]


def test_builds_stuck_past_instance_build_timeout_go_to_error(cloud):
    host = cloud.hosts[0]
    mgr = h.compute(cloud, host)
    ctxt = h.user_ctxt()
    stuck = h.create_instance(cloud, ctxt, task_state="spawning", host=host)
    stuck.created_at = timeutils.utcnow() - datetime.timedelta(seconds=600)
    stuck.save()
    fresh = h.create_instance(cloud, ctxt, task_state="spawning", host=host)
    assert mgr._check_instance_build_time(cloud.cell_ctxt()) == []
    CONF.set_override("instance_build_timeout", 300)
    try:
        assert mgr._check_instance_build_time(cloud.cell_ctxt()) == [
            stuck.uuid]
    finally:
        CONF.clear_override("instance_build_timeout")
    assert h.reload(ctxt, stuck).vm_state == "error"
    fault = objects.InstanceFault.get_latest_for_instance(ctxt, stuck.uuid)
    assert "timed out after 300 seconds" in fault.message
    assert h.reload(ctxt, fresh).vm_state == "building"


def test_terminate_without_a_logged_action_still_deletes(cloud):
    """An older API, or an operator's tool, may send no action: the event
    is not logged but the delete happens."""
    host = cloud.hosts[1]
    inst = _active(cloud, host)
    ctxt = h.user_ctxt()
    inst = h.reload(ctxt, inst, expected_attrs=["info_cache"])
    inst._context = ctxt
    inst.task_state = "deleting"
    inst.save()
    compute_rpcapi.ComputeAPI().terminate_instance(
        ctxt, inst, objects.BlockDeviceMappingList(objects=[]))
    assert wait_for(lambda: _deleted(ctxt, inst), timeout=10)
    assert h.allocations(cloud, ctxt, inst) == {}


def test_building_instance_no_build_works_on_goes_to_error(cloud):
    host = cloud.hosts[1]
    mgr = h.compute(cloud, host)
    ctxt = h.user_ctxt()
    lost = h.create_instance(cloud, ctxt, task_state="networking",
                             host=host)
    running = h.create_instance(cloud, ctxt)
    mgr.driver.spawn_delay = 0.6
    try:
        h.build(ctxt, running, host)
        h.wait_state(ctxt, running, "building", "spawning")
        # A full period after the start-up's look at the host's instances.
        mgr.abandoned_checked_at -= recovery.FULL_CHECK_SECONDS
        assert mgr._error_out_abandoned_builds(cloud.cell_ctxt()) == [
            lost.uuid]
    finally:
        mgr.driver.spawn_delay = 0
    got = h.reload(ctxt, lost)
    assert (got.vm_state, got.task_state) == ("error", None)
    assert "abandoned" in objects.InstanceFault.get_latest_for_instance(
        ctxt, lost.uuid).message
    h.wait_state(ctxt, running, "active")
