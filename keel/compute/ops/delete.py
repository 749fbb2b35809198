"""Delete, soft delete, restore and the reclaim of soft-deleted instances.

A delete runs to its end whatever it finds: a guest or network already
gone is fine, because a build that was stopped or a crash may have removed
part of it already. Only after Placement confirms the allocations are gone
is the row soft-deleted (``deleted = id``): a delete that fails half-way
stays visible with task_state deleting and is retried by the next start of
this compute (``recovery``), never lost.
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute.ops import cleanup
from keel.compute.ops import notify
from keel.compute.ops import states
from keel.compute.ops import volumes
from keel import exception
from keel import objects
from keel.virt import power_state

LOG = logging.getLogger(__name__)


def _bdms(context, instance):
    return objects.BlockDeviceMappingList.get_by_instance_uuid(
        context, instance.uuid)


def terminate_instance(mgr, context, instance, bdms):
    """Delete ``instance`` under its lock (a build in progress finishes
    or stops first); any failure leaves it in ERROR, never half-deleted
    and hidden."""
    with mgr.instance_lock(instance.uuid):
        bdms = _current_bdms(context, instance, bdms)
        try:
            delete_instance(mgr, context, instance, bdms)
        except exception.InstanceNotFound:
            LOG.info("Instance %s disappeared during terminate",
                     instance.uuid)
        except Exception:
            LOG.exception("Setting instance %s vm_state to ERROR",
                          instance.uuid)
            instance.vm_state = states.ERROR
            try:
                instance.save()
            except exception.InstanceNotFound:
                pass
            raise


def _current_bdms(context, instance, bdms):
    """The BDMs the API sent, unless a build may have completed a volume
    since it read them (a volume BDM without its volume or attachment:
    the build creates those): then they are read again (Nova's rule for
    the volume id). A server without volumes costs no read."""
    if bdms is None:
        return _bdms(context, instance)
    def known(bdm, field):
        return bdm.obj_attr_is_set(field) and getattr(bdm, field)
    for bdm in bdms:
        if volumes.is_volume(bdm) and not (known(bdm, "volume_id") and
                                           known(bdm, "attachment_id")):
            LOG.debug("Possibly stale BDMs for the delete of %s: reading "
                      "them again", instance.uuid)
            return _bdms(context, instance)
    return bdms


def delete_instance(mgr, context, instance, bdms):
    """Nova's _delete_instance: guest, network, usage, Placement, row."""
    notify.both(context, instance, mgr.host, "delete", "start", bdms=bdms)
    _shutdown_instance(mgr, context, instance, bdms)
    instance.vm_state = states.DELETED
    instance.task_state = None
    instance.power_state = power_state.NOSTATE
    instance.terminated_at = timeutils.utcnow()
    instance.save()
    _complete_deletion(mgr, context, instance)
    # Last: only once Placement no longer holds the allocations.
    instance.destroy()
    notify.both(context, instance, mgr.host, "delete", "end", bdms=bdms)


def _shutdown_instance(mgr, context, instance, bdms):
    notify.both(context, instance, mgr.host, "shutdown", "start", bdms=bdms)
    network_info = cleanup.network_info_of(instance)
    cleanup.destroy_guest(mgr, context, instance, network_info)
    cleanup.deallocate_network(mgr, context, instance)
    volumes.cleanup(context, instance, bdms)
    notify.both(context, instance, mgr.host, "shutdown", "end", bdms=bdms)


def _complete_deletion(mgr, context, instance):
    if mgr.rt is not None and instance.node:
        mgr.rt.remove_instance_usage(context, instance)
    # Raises if Placement cannot be reached: the row then stays, with
    # vm_state DELETED, for recovery to finish.
    mgr.placement_client.delete_allocation_for_instance(
        context, instance.uuid, force=True)
    mgr.delete_scheduler_instance_info(context, instance.uuid)


def soft_delete_instance(mgr, context, instance):
    """Power the guest off and keep it for [DEFAULT]/reclaim_instance_interval
    (the API set task_state soft-deleting and deleted_at)."""
    notify.both(context, instance, mgr.host, "soft_delete", "start")
    try:
        _optional(mgr.driver, "soft_delete")(instance)
    except NotImplementedError:
        mgr.driver.power_off(instance)
    instance.power_state = _power_state(mgr, instance)
    instance.vm_state = states.SOFT_DELETED
    instance.task_state = None
    instance.save(expected_task_state=[states.SOFT_DELETING])
    notify.both(context, instance, mgr.host, "soft_delete", "end")


def restore_instance(mgr, context, instance):
    """Bring a soft-deleted instance back: power on, ACTIVE."""
    notify.both(context, instance, mgr.host, "restore", "start")
    try:
        _optional(mgr.driver, "restore")(instance)
    except NotImplementedError:
        mgr.driver.power_on(context, instance,
                            cleanup.network_info_of(instance))
    instance.power_state = _power_state(mgr, instance)
    instance.vm_state = states.ACTIVE
    instance.task_state = None
    instance.save(expected_task_state=states.RESTORING)
    notify.both(context, instance, mgr.host, "restore", "end")


def _optional(driver, name):
    """A driver method the contract does not require: a missing one
    behaves as Nova's base driver (NotImplementedError)."""
    method = getattr(driver, name, None)
    if method is not None:
        return method

    def missing(*args, **kwargs):
        raise NotImplementedError(name)
    return missing


def _power_state(mgr, instance):
    try:
        return mgr.driver.get_info(instance).state
    except exception.InstanceNotFound:
        return power_state.NOSTATE


def _old_enough(instance, interval):
    deleted_at = instance.deleted_at
    if not deleted_at:
        return True
    return timeutils.is_older_than(deleted_at.replace(tzinfo=None), interval)


def reclaim_queued_deletes(mgr, context, interval):
    """Delete this host's soft-deleted instances older than ``interval``."""
    if interval <= 0:
        return []
    filters = {"vm_state": states.SOFT_DELETED, "task_state": None,
               "host": mgr.host}
    reclaimed = []
    for instance in objects.InstanceList.get_by_filters(
            context, filters, expected_attrs=["info_cache"]):
        if not _old_enough(instance, interval):
            continue
        LOG.info("Reclaiming deleted instance %s", instance.uuid)
        try:
            with mgr.instance_lock(instance.uuid):
                delete_instance(mgr, context, instance,
                                _bdms(context, instance))
            reclaimed.append(instance.uuid)
        except Exception as exc:  # noqa: BLE001 - next period retries
            LOG.warning("Periodic reclaim failed to delete instance %s: %s",
                        instance.uuid, exc)
    return reclaimed
