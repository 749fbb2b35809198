"""Snapshot and backup on the compute host (Nova's snapshot_instance and
backup_instance): the driver uploads the guest's disk into the image the
API created; the task moves image_snapshot/image_backup ->
image_pending_upload -> image_uploading -> None, each step a CAS.

On failure the image the API created is deleted (Nova's
delete_image_on_error): a half-written snapshot must never look usable.
A backup then keeps only the newest ``rotation`` backups of its type.
"""
import contextlib

from oslo_log import log as logging

from keel.compute.ops import notify
from keel.compute.ops import power
from keel import exception
from keel.virt import power_state

LOG = logging.getLogger(__name__)

IMAGE_SNAPSHOT_PENDING = "image_snapshot_pending"
IMAGE_SNAPSHOT = "image_snapshot"
IMAGE_BACKUP = "image_backup"
IMAGE_UPLOADING = "image_uploading"


def _image_api():
    from keel.image import api as image_api
    return image_api.get_api()


def _delete_image(context, image_id):
    try:
        _image_api().delete(context, image_id)
    except Exception:  # noqa: BLE001 - the original failure matters more
        LOG.exception("Could not delete image %s after a failed snapshot",
                      image_id)


@contextlib.contextmanager
def delete_image_on_error(context, image_id):
    try:
        yield
    except Exception:
        _delete_image(context, image_id)
        raise


def _notify(context, instance, host, phase, image_id):
    notify.usage(context, instance, "snapshot.%s" % phase, host)
    try:
        from keel.notifications import instance_actions
        instance_actions.notify_about_instance_snapshot(
            context, instance, host, phase=phase, snapshot_image_id=image_id)
    except Exception:  # noqa: BLE001 - notifications are a side channel
        LOG.exception("Could not emit instance.snapshot.%s", phase)


def snapshot_instance(mgr, context, image_id, instance):
    with mgr.instance_lock(instance.uuid), \
            delete_image_on_error(context, image_id):
        try:
            instance.task_state = IMAGE_SNAPSHOT
            instance.save(expected_task_state=IMAGE_SNAPSHOT_PENDING)
        except (exception.InstanceNotFound,
                exception.UnexpectedDeletingTaskStateError):
            # Deleted meantime: nothing to snapshot, drop the image.
            LOG.debug("Instance %s went away before its snapshot",
                      instance.uuid)
            _delete_image(context, image_id)
            return
        _snapshot(mgr, context, image_id, instance, IMAGE_SNAPSHOT)


def backup_instance(mgr, context, image_id, instance, backup_type,
                    rotation):
    with mgr.instance_lock(instance.uuid), \
            delete_image_on_error(context, image_id):
        _snapshot(mgr, context, image_id, instance, IMAGE_BACKUP)
    rotate_backups(context, instance, backup_type, rotation)


def _snapshot(mgr, context, image_id, instance, expected_task_state):
    context = context.elevated()
    instance.power_state = power.get_power_state(mgr, instance)
    try:
        instance.save()
        if instance.power_state != power_state.RUNNING:
            LOG.warning("Snapshotting instance %s that is not running "
                        "(power state %s)", instance.uuid,
                        instance.power_state)
        _notify(context, instance, mgr.host, "start", image_id)

        def update_task_state(task_state, expected_state=expected_task_state):
            instance.task_state = task_state
            instance.save(expected_task_state=expected_state)

        mgr.driver.snapshot(context, instance, image_id, update_task_state)
        instance.task_state = None
        instance.save(expected_task_state=IMAGE_UPLOADING)
        _notify(context, instance, mgr.host, "end", image_id)
    except (exception.InstanceNotFound,
            exception.UnexpectedDeletingTaskStateError):
        # Deleted during the snapshot: the image is useless.
        LOG.debug("Instance %s was deleted during its snapshot",
                  instance.uuid)
        _delete_image(context, image_id)
    except exception.ImageNotFound:
        # Someone deleted the image being written: end the task quietly.
        instance.task_state = None
        instance.save()
        LOG.warning("Image %s not found during the snapshot of %s",
                    image_id, instance.uuid)


def rotate_backups(context, instance, backup_type, rotation):
    """Delete this instance's oldest backups of ``backup_type`` beyond the
    newest ``rotation`` (Nova's _rotate_backups)."""
    api = _image_api()
    filters = {"property-image_type": "backup",
               "property-backup_type": backup_type,
               "property-instance_uuid": instance.uuid}
    images = api.get_all(context, filters=filters, sort_key="created_at",
                         sort_dir="desc")
    for image in images[int(rotation):]:
        try:
            api.delete(context, image["id"])
        except (exception.ImageNotFound, exception.ImageDeleteConflict):
            LOG.debug("Backup %s already gone", image["id"])
