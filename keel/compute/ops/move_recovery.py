"""Start-up recovery of snapshots and cold moves a crash of this compute
interrupted (the parts of Nova's _init_instance for them):

- a snapshot or backup in any of its task states: the task is cleared (the
  upload died with the process; the user may try again);
- a resize/migration the source was migrating (resize_migrating): rolled
  back on this host with the driver's finish_revert_migration, the
  source's allocations handed back to the instance, the migration in
  error, the instance in its old vm_state (ERROR if the rollback fails).

``recover(mgr, context, instance)`` is True when it handled the instance.
"""
from oslo_log import log as logging

from keel.compute.ops import cleanup
from keel.compute.ops import move_allocs
from keel.compute.ops import power
from keel.compute.ops import resize_common as rc
from keel.compute.ops import states
from keel import objects

LOG = logging.getLogger(__name__)

IMAGE_TASK_STATES = ("image_snapshot_pending", "image_snapshot",
                     "image_backup", "image_pending_upload",
                     "image_uploading")


def recover(mgr, context, instance):
    if instance.task_state in IMAGE_TASK_STATES:
        LOG.info("Instance %s was in the middle of a snapshot (%s) when "
                 "the service stopped; clearing the task", instance.uuid,
                 instance.task_state)
        instance.task_state = None
        instance.save(expected_task_state=list(IMAGE_TASK_STATES))
        return True
    if instance.task_state == rc.RESIZE_MIGRATING:
        _roll_back_migrating(mgr, context, instance)
        return True
    return False


def _migration_of(context, instance):
    for migration in objects.MigrationList.get_in_progress_by_instance(
            context, instance.uuid):
        if migration.source_compute == instance.host:
            return migration
    return None


def _roll_back_migrating(mgr, context, instance):
    old_vm_state = instance.system_metadata.get("old_vm_state",
                                                states.ACTIVE)
    migration = _migration_of(context, instance)
    try:
        mgr.driver.finish_revert_migration(
            context, instance, cleanup.network_info_of(instance), migration,
            block_device_info=None, power_on=old_vm_state != states.STOPPED)
        if migration is not None:
            move_allocs.move_allocations(mgr.placement_client, context,
                                         migration.uuid, instance.uuid)
    except Exception:  # noqa: BLE001 - the guest may be anywhere now
        LOG.exception("Could not roll back the interrupted resize of %s",
                      instance.uuid)
        if migration is not None:
            rc.set_migration_status(migration, "error")
        power.set_error_state(instance)
        return
    if migration is not None:
        rc.set_migration_status(migration, "error")
    if instance.old_flavor is not None:
        rc.set_flavor(instance, instance.old_flavor)
    instance.old_flavor = None
    instance.new_flavor = None
    instance.power_state = power.get_power_state(mgr, instance)
    instance.vm_state = old_vm_state
    instance.task_state = None
    instance.save(expected_task_state=rc.RESIZE_MIGRATING)
