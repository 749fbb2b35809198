"""The source half of a cold move: resize_instance (power off and hand the
disks over; the instance now belongs to the destination), confirm_resize
(forget the source guest, drop the migration's allocations on the source)
and finish_revert_resize (the old flavor back on the source, with the
source allocations handed back to the instance).
"""
from oslo_log import log as logging

from keel.compute.ops import cleanup
from keel.compute.ops import move_allocs
from keel.compute.ops import power
from keel.compute.ops import resize_common as rc
from keel.compute.ops import states
from keel.conf import CONF

LOG = logging.getLogger(__name__)


def resize_instance(mgr, context, instance, image, migration, flavor,
                    clean_shutdown, request_spec=None):
    try:
        disk_info = _resize_instance(mgr, context, instance, migration,
                                     flavor, clean_shutdown)
    except Exception:
        # The instance stays on the source (in ERROR): it holds the
        # source's resources again, the destination's claim is dropped.
        try:
            move_allocs.move_allocations(mgr.placement_client, context,
                                         migration.uuid, instance.uuid)
        except Exception:  # noqa: BLE001 - report the original failure
            LOG.exception("Could not give %s its source allocations back",
                          instance.uuid)
        raise
    rc.compute_rpc().finish_resize(context, instance, migration, image,
                                   disk_info, migration.dest_compute,
                                   request_spec)


def _resize_instance(mgr, context, instance, migration, flavor,
                     clean_shutdown):
    with mgr.instance_lock(instance.uuid), rc.error_out(instance,
                                                        migration):
        rc.set_migration_status(migration, "migrating")
        instance.task_state = rc.RESIZE_MIGRATING
        instance.save(expected_task_state=rc.RESIZE_PREP)
        rc.notify_both(context, instance, mgr.host, "resize", "resize",
                       "start")
        network_info = cleanup.network_info_of(instance)
        timeout = CONF.shutdown_timeout if clean_shutdown else 0
        disk_info = mgr.driver.migrate_disk_and_power_off(
            context, instance, migration.dest_host, flavor, network_info,
            block_device_info=None, timeout=timeout,
            retry_interval=power.SHUTDOWN_RETRY_INTERVAL)
        rc.set_migration_status(migration, "post-migrating")
        instance.host = migration.dest_compute
        instance.node = migration.dest_node
        instance.task_state = rc.RESIZE_MIGRATED
        instance.save(expected_task_state=rc.RESIZE_MIGRATING)
    rc.notify_both(context, instance, mgr.host, "resize", "resize", "end")
    return disk_info


def confirm_resize(mgr, context, instance, migration):
    with mgr.instance_lock(instance.uuid):
        if migration.status == "confirmed":
            LOG.info("Migration %s already confirmed", migration.uuid)
            return
        rc.notify_both(context, instance, mgr.host, "resize.confirm",
                       "resize_confirm", "start")
        mgr.driver.confirm_migration(context, migration, instance,
                                     cleanup.network_info_of(instance))
        # The source's resources were held by the migration: free them.
        move_allocs.delete_allocations(mgr.placement_client, context,
                                       migration.uuid)
        rc.set_migration_status(migration, "confirmed")
        if migration.source_compute != migration.dest_compute:
            mgr.delete_scheduler_instance_info(context, instance.uuid)
        instance.old_flavor = None
        instance.new_flavor = None
        instance.system_metadata.pop("old_vm_state", None)
        off = instance.power_state in power.OFF_STATES
        instance.vm_state = states.STOPPED if off else states.ACTIVE
        instance.task_state = None
        instance.save(expected_task_state=[None, "deleting",
                                           "soft-deleting"])
        rc.notify_both(context, instance, mgr.host, "resize.confirm",
                       "resize_confirm", "end")


def finish_revert_resize(mgr, context, instance, migration,
                         request_spec=None):
    with mgr.instance_lock(instance.uuid):
        old_vm_state = instance.system_metadata.pop("old_vm_state",
                                                    states.ACTIVE)
        rc.set_flavor(instance, instance.old_flavor)
        instance.old_flavor = None
        instance.new_flavor = None
        instance.host = migration.source_compute
        instance.node = migration.source_node
        instance.save()
        # The migration held the source's resources: the instance again.
        move_allocs.move_allocations(mgr.placement_client, context,
                                     migration.uuid, instance.uuid)
        mgr.driver.finish_revert_migration(
            context, instance, cleanup.network_info_of(instance), migration,
            block_device_info=None, power_on=old_vm_state != states.STOPPED)
        instance.power_state = power.get_power_state(mgr, instance)
        instance.vm_state = old_vm_state
        instance.task_state = None
        instance.save(expected_task_state=rc.RESIZE_REVERTING)
        mgr.update_scheduler_instance_info(context, instance)
        rc.notify_both(context, instance, mgr.host, "resize.revert",
                       "resize_revert", "end")
