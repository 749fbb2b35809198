"""Start-up recovery: nothing a crash interrupted stays stuck.

When the compute starts no build or delete of its own can be running, so
every instance of this host still in a transient state was abandoned by
the previous run (Nova's _init_instance):

- being deleted (task_state deleting, or vm_state deleted but the row not
  yet soft-deleted): the delete is finished now;
- building (vm_state building, or a build task state): ERROR with a fault
  saying the build was interrupted, so the user sees why and may delete;
- soft-deleting / restoring: the power change is finished.

Builds that died before the instance was even bound to this host are found
through Placement: consumers of this host's providers still BUILDING and
not on this host go to ERROR too (Nova's
_error_out_instances_whose_build_was_interrupted).
"""
import time

from oslo_log import log as logging

from keel.compute import faults
from keel.compute.ops import cleanup
from keel.compute.ops import delete as delete_ops
from keel.compute.ops import states
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

_INTERRUPTED = ("The build was interrupted: its compute service stopped "
                "before the instance was ready.")


def init_instances(mgr, context, allocations_by_node=None):
    """Recover every instance of this host; returns those still on this
    host afterwards (an InstanceList: what the schedulers are told at
    start, without reading them again). ``allocations_by_node`` (a dict)
    receives the node providers' allocations read on the way, for the
    rest of the start-up."""
    checked_at = time.monotonic()
    instances = objects.InstanceList.get_by_host(
        context, mgr.host, expected_attrs=["info_cache"])
    for instance in instances:
        try:
            init_instance(mgr, context, instance)
        except Exception:  # noqa: BLE001 - one instance must not stop start
            LOG.exception("Failed to recover instance %s", instance.uuid)
    seen = {inst.uuid for inst in instances}
    error_out_interrupted_builds(mgr, context, seen, allocations_by_node)
    # Every BUILDING instance of this host was just looked at with none of
    # its builds running: that is the abandoned-build sweep's full check,
    # whose period starts here instead of repeating it a minute later.
    if getattr(mgr, "abandoned_checked_at", None) is None:
        mgr.abandoned_checked_at = checked_at
    # A finished delete or a recovered move took some away.
    return objects.InstanceList(objects=[
        inst for inst in instances
        if inst.host == mgr.host and not (
            inst.obj_attr_is_set("deleted") and inst.deleted)])


def init_instance(mgr, context, instance):
    if instance.host != mgr.host:
        return
    if instance.task_state == states.DELETING or \
            instance.vm_state == states.DELETED:
        LOG.info("Service started deleting instance %s during the previous "
                 "run, but did not finish. Restarting the deletion now.",
                 instance.uuid)
        bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
            context, instance.uuid)
        delete_ops.delete_instance(mgr, context, instance, bdms)
        return
    if instance.vm_state in (states.SOFT_DELETED, states.ERROR) and \
            instance.task_state is None:
        return
    if instance.vm_state == states.BUILDING or \
            instance.task_state in states.BUILD_TASK_STATES:
        _error_out(context, instance, mgr.host)
        return
    from keel.compute.ops import move_recovery
    if move_recovery.recover(mgr, context, instance):
        return
    if instance.task_state == states.SOFT_DELETING:
        delete_ops.soft_delete_instance(mgr, context, instance)
    elif instance.task_state == states.RESTORING:
        delete_ops.restore_instance(mgr, context, instance)


def _error_out(context, instance, host):
    LOG.debug("Instance %s failed to spawn correctly, setting to ERROR",
              instance.uuid)
    exc = exception.BuildAbortException(instance_uuid=instance.uuid,
                                        reason=_INTERRUPTED)
    try:
        faults.add_instance_fault_from_exc(context, instance, exc,
                                           host=host)
    except exception.InstanceNotFound:
        return
    cleanup.set_error_state(instance, clean_task_state=True)


def error_out_interrupted_builds(mgr, context, handled,
                                 allocations_by_node=None):
    """ERROR for builds this host was given but never bound (one Placement
    read per node, one query for all the candidates)."""
    if mgr.rt is None:
        return
    consumers = set()
    for cn in list(mgr.rt.compute_nodes.values()):
        try:
            allocations = mgr.placement_client.placement \
                .get_provider_allocations(context, cn.uuid)
        except Exception as exc:  # noqa: BLE001 - best effort at start
            LOG.warning("Could not read the allocations of node %s: %s",
                        cn.hypervisor_hostname, exc)
            continue
        if allocations_by_node is not None:
            allocations_by_node[cn.uuid] = allocations
        consumers.update(allocations)
    consumers -= set(handled)
    if not consumers:
        return
    stuck = objects.InstanceList.get_by_filters(
        context, {"vm_state": states.BUILDING, "uuid": sorted(consumers)})
    for instance in stuck:
        LOG.info("Instance %s was being built on this host when the service "
                 "stopped; setting it to ERROR", instance.uuid)
        _error_out(context, instance, mgr.host)


_TIMED_OUT = "Build of instance timed out after %d seconds."


def error_out_timed_out_builds(mgr, context, timeout):
    """Periodic safety net: this host's instances in BUILD for longer than
    [DEFAULT]/instance_build_timeout go to ERROR with a fault (Nova's
    _check_instance_build_time; the fault is keel's addition so the user
    sees why). 0 disables it."""
    if timeout <= 0:
        return []
    from oslo_utils import timeutils
    building = objects.InstanceList.get_by_filters(
        context, {"vm_state": states.BUILDING, "host": mgr.host})
    timed_out = []
    for instance in building:
        created = instance.created_at.replace(tzinfo=None)
        if not timeutils.is_older_than(created, timeout):
            continue
        LOG.warning("Instance %s build timed out. Set to error state.",
                    instance.uuid)
        exc = exception.BuildAbortException(
            instance_uuid=instance.uuid, reason=_TIMED_OUT % timeout)
        try:
            faults.add_instance_fault_from_exc(context, instance, exc,
                                               host=mgr.host)
        except exception.InstanceNotFound:
            continue
        cleanup.set_error_state(instance)
        timed_out.append(instance.uuid)
    return timed_out


_ABANDONED = ("The build was abandoned: this host lost track of it (an "
              "error while recording its outcome).")


# A build that fails to write its outcome says so (note_lost_outcome) and
# the next run looks at once; otherwise an instance BUILDING here with no
# build running can only come from outside this process (a restored
# database, a copy of this host that died), which a slower look finds.
FULL_CHECK_SECONDS = 600


def note_lost_outcome(mgr):
    mgr.abandoned_check_due = True


def abandoned_check_due(mgr, now):
    last = getattr(mgr, "abandoned_checked_at", None)
    return (getattr(mgr, "abandoned_check_due", False) or last is None
            or now - last >= FULL_CHECK_SECONDS)


def error_out_abandoned_builds_if_due(mgr, context):
    """The periodic form of error_out_abandoned_builds: one query per
    host every FULL_CHECK_SECONDS unless a build lost its outcome."""
    now = time.monotonic()
    if not abandoned_check_due(mgr, now):
        return []
    # Cleared before the query: a build losing its outcome meanwhile
    # asks for the next run.
    mgr.abandoned_check_due = False
    try:
        abandoned = error_out_abandoned_builds(mgr, context)
    except Exception:
        mgr.abandoned_check_due = True
        raise
    mgr.abandoned_checked_at = now
    return abandoned


def _in_flight(mgr):
    return {uuid for _name, uuid in mgr.tasks_in_progress() if uuid}


def error_out_abandoned_builds(mgr, context):
    """Periodic: instances BUILDING on this host that no build of this
    host is working on (its outcome could not be written, e.g. the
    conductor was unreachable) go to ERROR with a fault.

    The builds in flight are read before and after the query, and each
    write is a compare-and-swap on the state that was read, so a build
    that starts or ends meanwhile is never touched.
    """
    before = _in_flight(mgr)
    building = objects.InstanceList.get_by_filters(
        context, {"vm_state": states.BUILDING, "host": mgr.host})
    busy = before | _in_flight(mgr)
    abandoned = []
    for instance in building:
        if instance.uuid in busy or instance.task_state == states.DELETING:
            continue
        read_task_state = instance.task_state
        LOG.warning("Instance %s is BUILDING on %s but no build is running; "
                    "setting it to ERROR", instance.uuid, mgr.host)
        instance.vm_state = states.ERROR
        instance.task_state = None
        try:
            instance.save(expected_task_state=[read_task_state],
                          expected_vm_state=[states.BUILDING])
        except (exception.InstanceNotFound,
                exception.InstanceUpdateConflict):
            continue
        exc = exception.BuildAbortException(instance_uuid=instance.uuid,
                                            reason=_ABANDONED)
        faults.add_instance_fault_from_exc(context, instance, exc,
                                           host=mgr.host)
        abandoned.append(instance.uuid)
    return abandoned
