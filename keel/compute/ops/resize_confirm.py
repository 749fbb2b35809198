"""[DEFAULT]/resize_confirm_window: resizes left in VERIFY_RESIZE longer
than the window are confirmed for the user (Nova's
_poll_unconfirmed_resizes, run on the destination). A migration whose
instance is gone, or no longer waiting, is put in error so it is not
picked again."""
from oslo_log import log as logging

from keel.compute.ops import resize_common as rc
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)


def poll_unconfirmed_resizes(mgr, context, window):
    if window <= 0:
        return 0
    migrations = objects.MigrationList.get_unconfirmed_by_dest_compute(
        context, window, mgr.host)
    confirmed = 0
    for migration in migrations:
        try:
            instance = objects.Instance.get_by_uuid(
                context, migration.instance_uuid,
                expected_attrs=["flavor", "system_metadata", "info_cache"])
        except exception.InstanceNotFound:
            rc.set_migration_status(migration, "error")
            continue
        if instance.vm_state != rc.RESIZED or instance.task_state is not None:
            if instance.vm_state != rc.RESIZED:
                # Not waiting for a confirmation any more: never again.
                rc.set_migration_status(migration, "error")
            continue
        LOG.info("Automatically confirming migration %s of instance %s",
                 migration.id, instance.uuid)
        rc.set_migration_status(migration, "confirming")
        objects.InstanceAction.action_start(context, instance.uuid,
                                            "confirmResize",
                                            want_result=False)
        rc.compute_rpc().confirm_resize(context, instance, migration,
                                        migration.source_compute)
        confirmed += 1
    return confirmed
