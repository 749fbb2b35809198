"""The destination half of a cold move (resize or migrate): prep_resize
(accept the move, record where it goes, hand over to the source),
finish_resize (build the guest with the new flavor: VERIFY_RESIZE) and
revert_resize (drop the guest here, hand back to the source).

The conductor already moved the source allocations to the migration
consumer and claimed the destination for the instance; every state
change is a compare-and-swap on the task the previous step left.
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute.ops import cleanup
from keel.compute.ops import move_allocs
from keel.compute.ops import notify
from keel.compute.ops import power
from keel.compute.ops import resize_common as rc
from keel.conf import CONF
from keel import exception

LOG = logging.getLogger(__name__)


def _prep_notify(context, instance, host, phase, flavor):
    try:
        from keel.notifications import instance_actions
        if phase == "start":
            # Usage up to now is billed on the old flavor (Nova sends
            # compute.instance.exists before the resize).
            instance_actions.notify_usage_exists(
                context, instance, host=host, current_period=True)
        notify.usage(context, instance, "resize.prep.%s" % phase, host)
        instance_actions.notify_about_resize_prep_instance(
            context, instance, host, phase, flavor)
    except Exception:  # noqa: BLE001 - side channel
        LOG.exception("Could not emit instance.resize_prep.%s", phase)


def prep_resize(mgr, context, image, instance, flavor, request_spec,
                filter_properties, node, clean_shutdown, migration,
                host_list):
    with mgr.instance_lock(instance.uuid):
        try:
            _prep(mgr, context, instance, flavor, migration, node)
        except Exception as exc:
            # Nothing moved yet: the instance keeps its source host and
            # allocations, as before the request.
            move_allocs.move_allocations(mgr.placement_client, context,
                                         migration.uuid, instance.uuid)
            rc.set_migration_status(migration, "error")
            if host_list and not isinstance(exc, _NOT_RESCHEDULED):
                _reschedule(mgr, context, instance, flavor, request_spec,
                            filter_properties, clean_shutdown, host_list,
                            exc)
                return
            instance.task_state = None
            instance.save()
            raise
    rc.compute_rpc().resize_instance(
        context, instance, migration, image, flavor, request_spec,
        clean_shutdown=clean_shutdown)


# The instance is gone or taken by another task: retrying elsewhere
# would only fail again.
_NOT_RESCHEDULED = (exception.InstanceNotFound,
                    exception.UnexpectedTaskStateError)


def _reschedule(mgr, context, instance, flavor, request_spec,
                filter_properties, clean_shutdown, host_list, exc):
    """Nova's _reschedule_resize_or_reraise: the failure is recorded (a
    fault, compute.instance.resize.error) and the conductor tries the
    scheduler's alternates; the task stays resize_prep meanwhile."""
    import sys

    from keel.compute import faults
    LOG.warning("prep_resize of %s failed on %s (%s); rescheduling",
                instance.uuid, mgr.host, exc)
    faults.add_instance_fault_from_exc(context, instance, exc,
                                       sys.exc_info(), host=mgr.host)
    notify.usage(context, instance, "resize.error", mgr.host, fault=exc)
    mgr.compute_task_api.migrate_server(
        context, instance, scheduler_hint={
            "filter_properties": filter_properties},
        live=False, rebuild=False, flavor=flavor, block_migration=None,
        disk_over_commit=None, reservations=[],
        clean_shutdown=clean_shutdown, request_spec=request_spec,
        host_list=host_list, do_cast=True)


def _prep(mgr, context, instance, flavor, migration, node):
    same_host = instance.host == mgr.host
    if same_host and not CONF.allow_resize_to_same_host:
        raise exception.CannotMigrateToSameHost()
    _prep_notify(context, instance, mgr.host, "start", flavor)
    migration.dest_compute = mgr.host
    migration.dest_node = node or mgr.driver.nodename
    migration.dest_host = CONF.my_ip
    migration.status = "pre-migrating"
    migration.save()
    instance.old_flavor = instance.flavor
    instance.new_flavor = flavor
    instance.system_metadata["old_vm_state"] = instance.vm_state
    instance.save(expected_task_state=rc.RESIZE_PREP)
    _prep_notify(context, instance, mgr.host, "end", flavor)


def finish_resize(mgr, context, disk_info, image, instance, migration,
                  request_spec=None):
    with mgr.instance_lock(instance.uuid), rc.error_out(instance,
                                                        migration):
        old_vm_state = instance.system_metadata.get("old_vm_state",
                                                    "active")
        resized = instance.old_flavor.flavorid != \
            instance.new_flavor.flavorid
        rc.set_flavor(instance, instance.new_flavor)
        instance.task_state = rc.RESIZE_FINISH
        instance.save(expected_task_state=rc.RESIZE_MIGRATED)
        network_info = cleanup.network_info_of(instance)
        rc.notify_both(context, instance, mgr.host, "finish_resize",
                       "resize_finish", "start")
        allocations = move_allocs.allocations_of(mgr.placement_client,
                                                 context, instance.uuid)
        mgr.driver.finish_migration(
            context, migration, instance, disk_info, network_info, image,
            resized, allocations, block_device_info=None,
            power_on=old_vm_state != "stopped")
        rc.set_migration_status(migration, "finished")
        instance.power_state = power.get_power_state(mgr, instance)
        instance.vm_state = rc.RESIZED
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        instance.save(expected_task_state=rc.RESIZE_FINISH)
        # The schedulers' view: the instance now runs here too.
        mgr.update_scheduler_instance_info(context, instance)
        rc.notify_both(context, instance, mgr.host, "finish_resize",
                       "resize_finish", "end")


def revert_resize(mgr, context, instance, migration, request_spec=None):
    """Drop the destination guest, then the source restores the old one."""
    with mgr.instance_lock(instance.uuid):
        rc.notify_both(context, instance, mgr.host, "resize.revert",
                       "resize_revert", "start")
        mgr.driver.destroy(context, instance,
                           cleanup.network_info_of(instance),
                           block_device_info=None, destroy_disks=True)
        rc.set_migration_status(migration, "reverted")
        mgr.delete_scheduler_instance_info(context, instance.uuid)
    rc.compute_rpc().finish_revert_resize(
        context, instance, migration, migration.source_compute,
        request_spec)
