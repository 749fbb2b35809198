"""Undo steps shared by failed builds and deletes.

Each helper is safe to call twice and never raises for something that is
already gone, because a crash or a racing delete may have done half of it.
"""
from oslo_log import log as logging

from keel.compute.ops import states
from keel import exception

LOG = logging.getLogger(__name__)

# Every task state a build or a delete may find, except deleting: a save
# that would overwrite a delete in progress must lose the race instead.
NOT_DELETING = [None, states.SCHEDULING, states.NETWORKING,
                states.BLOCK_DEVICE_MAPPING, states.SPAWNING,
                states.SOFT_DELETING, states.RESTORING]


def delete_allocations(mgr, context, instance_uuid):
    """Drop the consumer's allocations in Placement (all providers)."""
    try:
        mgr.placement_client.delete_allocation_for_instance(
            context, instance_uuid, force=True)
    except Exception:  # noqa: BLE001 - the orphan sweep retries later
        LOG.exception("Could not delete the allocations of %s",
                      instance_uuid)


def deallocate_network(mgr, context, instance, requested_networks=None):
    api = mgr.network_api
    if api is None:
        return
    try:
        api.deallocate_for_instance(context, instance,
                                    requested_networks=requested_networks)
    except Exception:  # noqa: BLE001 - ports are re-checked on delete
        LOG.exception("Failed to deallocate networks of %s", instance.uuid)


def network_info_of(instance):
    if not instance.obj_attr_is_set("info_cache") or \
            instance.info_cache is None:
        return []
    return instance.info_cache.network_info or []


def destroy_guest(mgr, context, instance, network_info=None,
                  block_device_info=None):
    """Remove the guest from the hypervisor; absent is fine."""
    try:
        mgr.driver.destroy(context, instance, network_info or [],
                           block_device_info=block_device_info)
    except exception.InstanceNotFound:
        pass


def shutdown_after_failed_build(build, resources):
    """A spawn failed: take away what the build set up on this host."""
    try:
        destroy_guest(build.mgr, build.context, build.instance,
                      resources.get("network_info"),
                      resources.get("block_device_info"))
    except Exception as exc:  # noqa: BLE001
        LOG.warning("Could not clean up failed build of %s, not "
                    "rescheduling: %s", build.instance.uuid, exc)
        raise exception.BuildAbortException(
            instance_uuid=build.instance.uuid, reason=str(exc))


def set_error_state(instance, clean_task_state=False):
    """vm_state ERROR (task_state cleared if asked), unless the instance
    is being deleted or is gone: then the delete decides its fate."""
    instance.vm_state = states.ERROR
    if clean_task_state:
        instance.task_state = None
    try:
        instance.save(expected_task_state=NOT_DELETING)
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        LOG.debug("Instance %s went away before it could be set to ERROR",
                  instance.uuid)
