"""Deleting servers, as Nova's compute API: delete, soft_delete (with
``[DEFAULT]/reclaim_instance_interval``), restore and force_delete.

Which path a delete takes depends on how far the server got:

- still a BuildRequest: removing it stops the build at the super-conductor's
  commit point; nothing else exists to clean but the mapping's flag;
- in a cell without a host (not yet claimed): the record is destroyed here;
- on a compute that is up: task_state deleting (soft-deleting) is written
  and the compute is cast ``terminate_instance`` (``soft_delete_instance``);
- in cell0, on a compute that is down, or shelved offloaded: a "local
  delete" in the database (``local_delete``).

Every state write is a compare-and-swap on the task_state read just before;
a concurrent change makes us re-read and decide again rather than
overwrite.
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute import rpcapi as compute_rpcapi
from keel.compute_api import delete_steps
from keel.compute_api import local_delete
from keel.compute_api import quota
from keel import exception
from keel import objects
from keel.servicegroup import api as servicegroup

LOG = logging.getLogger(__name__)

TASK_DELETING = "deleting"
TASK_SOFT_DELETING = "soft-deleting"
TASK_RESTORING = "restoring"
_ALREADY_DELETING = (TASK_DELETING, TASK_SOFT_DELETING)
# Re-reads allowed when the instance changes under a delete.
_CAS_ATTEMPTS = 5


def _compute_rpc():
    return compute_rpcapi.ComputeAPI()


def check_locked(ctx, instance):
    # A BuildRequest's instance may lack the field: never locked then.
    locked = instance.obj_attr_is_set("locked") and instance.locked
    if locked and not ctx.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)


def _invalid(instance, attr, state, method):
    return exception.InstanceInvalidState(
        instance_uuid=instance.uuid, attr=attr, state=state, method=method)


def _check_launched(instance, method):
    if not instance.obj_attr_is_set("launched_at") or \
            not instance.launched_at:
        raise _invalid(instance, "launched_at", None, method)


# -- the callbacks: what a delete ends with on a live compute -----------------

def _do_delete(ctx, instance, bdms):
    _compute_rpc().terminate_instance(instance._context, instance, bdms)
    local_delete.set_queued_for_delete(ctx, instance.uuid, True)


def _do_soft_delete(ctx, instance, bdms):
    _compute_rpc().soft_delete_instance(instance._context, instance)
    local_delete.set_queued_for_delete(ctx, instance.uuid, True)


_CASTS = {"delete": _do_delete, "force_delete": _do_delete,
          "soft_delete": _do_soft_delete}


# -- public operations --------------------------------------------------------

def delete(ctx, located):
    """DELETE /servers/{id} without deferred delete (any vm/task state)."""
    check_locked(ctx, located.instance)
    _delete(ctx, located, "delete", task_state=TASK_DELETING)


def soft_delete(ctx, located):
    """Deferred delete; InstanceInvalidState if the server never ran (the
    handler then falls back to ``delete``, as Nova)."""
    inst = located.instance
    check_locked(ctx, inst)
    _check_launched(inst, "soft_delete")
    _delete(ctx, located, "soft_delete", task_state=TASK_SOFT_DELETING,
            deleted_at=timeutils.utcnow())


def force_delete(ctx, located):
    """forceDelete: delete now, whatever the vm and task states."""
    check_locked(ctx, located.instance)
    _delete(ctx, located, "force_delete", task_state=TASK_DELETING)


def restore(ctx, located):
    """Undo a soft delete: quota re-checked (the server counted for nothing
    while soft-deleted), then the compute powers it on again."""
    inst = located.instance
    check_locked(ctx, inst)
    if inst.vm_state != local_delete.VM_SOFT_DELETED:
        raise _invalid(inst, "vm_state", inst.vm_state, "restore")
    if inst.task_state is not None:
        raise _invalid(inst, "task_state", inst.task_state, "restore")
    _check_launched(inst, "restore")
    _check_instance_quota(ctx, inst)
    cctxt = inst._context
    objects.InstanceAction.action_start(cctxt, inst.uuid, "restore",
                                        want_result=False)
    inst.deleted_at = None
    if inst.host:
        inst.task_state = TASK_RESTORING
        inst.save(expected_task_state=[None])
        _compute_rpc().restore_instance(cctxt, inst)
    else:
        inst.vm_state = "active"
        inst.task_state = None
        inst.save(expected_task_state=[None])
    local_delete.set_queued_for_delete(ctx, inst.uuid, False)


def _check_instance_quota(ctx, inst):
    flavor = inst.flavor
    deltas = {"instances": 1, "cores": flavor.vcpus, "ram": flavor.memory_mb}
    try:
        quota.check_deltas(ctx, deltas, inst.project_id, inst.user_id)
    except exception.OverQuota as exc:
        overs = exc.kwargs["overs"]
        usages, quotas = exc.kwargs["usages"], exc.kwargs["quotas"]
        name = overs[0]
        raise exception.TooManyInstances(
            overs=", ".join(overs), req=deltas[name],
            used=usages.get(name, 0), allowed=quotas[name])


# -- the delete itself --------------------------------------------------------

def _delete(ctx, located, delete_type, **attrs):
    inst = located.instance
    if inst.obj_attr_is_set("disable_terminate") and inst.disable_terminate:
        LOG.info("Termination of instance %s is disabled", inst.uuid)
        return
    if not _host(inst) and not local_delete.may_have_ports_or_volumes(inst):
        if local_delete.delete_build_request(ctx, inst.uuid):
            # The build stops at the conductor's commit point; a record the
            # conductor wrote just before is removed too.
            _, created = local_delete.lookup(ctx, inst.uuid)
            if created is not None:
                local_delete.destroy_unscheduled(created, delete_type)
            local_delete.cleanup_after_local_delete(ctx, inst.uuid)
            return
        # The conductor got there first: the instance is in a cell now.
        _, inst = local_delete.lookup(ctx, inst.uuid)
        if inst is None:
            local_delete.cleanup_after_local_delete(ctx, located.instance.uuid)
            return
        if not inst.host and not local_delete.may_have_ports_or_volumes(inst):
            # Not claimed by a compute yet: as Nova, the record goes now.
            local_delete.destroy_unscheduled(inst, delete_type)
            local_delete.cleanup_after_local_delete(ctx, inst.uuid)
            return
    try:
        _delete_in_cell(ctx, inst, delete_type, attrs)
    except exception.InstanceNotFound:
        pass  # deleted meanwhile by someone else: nothing left to do


def _host(inst):
    # An instance rebuilt from a BuildRequest may not have the field set.
    return inst.host if inst.obj_attr_is_set("host") else None


def _mark(inst, attrs):
    """CAS the delete's task_state (and deleted_at) over the state read;
    on a concurrent change re-read and try again. Returns the task_state
    the instance had before."""
    for _attempt in range(_CAS_ATTEMPTS):
        original = inst.task_state
        for name, value in attrs.items():
            setattr(inst, name, value)
        inst.progress = 0
        try:
            inst.save(expected_task_state=[original])
            return original
        except exception.UnexpectedTaskStateError:
            inst.refresh()
    raise exception.UnexpectedTaskStateError(
        instance_uuid=inst.uuid, expected=[inst.task_state],
        actual=inst.task_state)


def _compute_is_up(cctxt, host):
    try:
        service = objects.Service.get_by_compute_host(cctxt.elevated(), host)
    except exception.ComputeHostNotFound:
        return False
    return servicegroup.API().service_is_up(service)


def _delete_in_cell(ctx, inst, delete_type, attrs):
    # The instance was read in its cell: its context targets that cell.
    cctxt = inst._context
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        cctxt, inst.uuid)
    delete_steps.delete_shelved_snapshot(ctx, inst)
    original = _mark(inst, attrs)
    if not inst.host and not local_delete.may_have_ports_or_volumes(inst):
        local_delete.destroy_unscheduled(inst, delete_type)
        local_delete.cleanup_after_local_delete(ctx, inst.uuid)
        return
    if delete_steps.confirm_resize_on_deleting(cctxt, inst):
        # The confirm left the instance active and idle: mark it again.
        inst.refresh()
        _mark(inst, attrs)
    if inst.host and _compute_is_up(cctxt, inst.host):
        if original in _ALREADY_DELETING:
            LOG.info("Instance %s is already being deleted; ignoring this "
                     "request", inst.uuid)
            return
        objects.InstanceAction.action_start(cctxt, inst.uuid, "delete",
                                            want_result=False)
        _CASTS[delete_type](ctx, inst, bdms)
        return
    local_delete.local_delete(ctx, cctxt, inst, bdms, delete_type,
                              soft=delete_type == "soft_delete")
