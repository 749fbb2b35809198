"""Steps a server delete takes first for some states, as Nova's compute
API: the snapshot a shelve left behind is deleted from the image service,
and a resize waiting for confirmation is confirmed (so the source host's
copy and its allocations are released) before the delete goes on.
"""
from oslo_log import log as logging

from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

SHELVED_STATES = ("shelved", "shelved_offloaded")
VM_RESIZED = "resized"
# Migration statuses of a resize that is waiting for (or doing) confirm.
_UNCONFIRMED = ("finished", "confirming")


def delete_shelved_snapshot(ctx, instance):
    """A shelved server's snapshot is only useful to unshelve it; a
    failure is logged and the delete goes on."""
    if instance.vm_state not in SHELVED_STATES:
        return
    snapshot_id = instance.system_metadata.get("shelved_image_id")
    if not snapshot_id:
        return
    from keel.image import api as image_api
    try:
        image_api.get_api().delete(ctx, snapshot_id)
    except (exception.ImageNotFound, exception.ImageNotAuthorized) as exc:
        LOG.warning("Failed to delete snapshot %s of shelved instance %s: "
                    "%s", snapshot_id, instance.uuid, exc.format_message())
    except Exception:  # noqa: BLE001 - never blocks the delete
        LOG.exception("Failed to delete snapshot %s of shelved instance %s",
                      snapshot_id, instance.uuid)


def unconfirmed_migration(cctxt, instance):
    for status in _UNCONFIRMED:
        try:
            return objects.Migration.get_by_instance_and_status(
                cctxt.elevated(), instance.uuid, status)
        except exception.MigrationNotFoundByStatus:
            continue
    return None


def confirm_resize_on_deleting(cctxt, instance):
    """Confirm a resize (synchronously) before deleting a RESIZED server;
    returns True when a confirm was sent."""
    if instance.vm_state != VM_RESIZED:
        return False
    migration = unconfirmed_migration(cctxt, instance)
    if migration is None:
        LOG.info("Instance %s may have been confirmed during delete",
                 instance.uuid)
        return False
    objects.InstanceAction.action_start(cctxt, instance.uuid,
                                        "confirmResize", want_result=False)
    if migration.obj_attr_is_set("cross_cell_move") and \
            migration.cross_cell_move:
        from keel.conductor import rpcapi as conductor_rpcapi
        conductor_rpcapi.ComputeTaskAPI().confirm_snapshot_based_resize(
            cctxt, instance, migration, do_cast=False)
    else:
        from keel.compute import rpcapi as compute_rpcapi
        compute_rpcapi.ComputeAPI().confirm_resize(
            cctxt, instance, migration, migration.source_compute,
            cast=False)
    return True
