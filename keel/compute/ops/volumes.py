"""Volume block devices of a build and of a delete, through Cinder.

Without ``[cinder]`` there is no block storage: a volume BDM cannot be
honoured here, nor on any other host of the deployment, so the build is
aborted (no reschedule). With Cinder, each volume BDM is made ready as
Nova's driver block devices do it: a volume is created first for
image/blank/snapshot sources (and waited for), then attached with the 3.44
attachment flow (create unless the API reserved one, update with this
host's connector, complete) and the BDM keeps attachment_id and
connection_info for the driver. A delete deletes the attachments, then the
volumes marked delete_on_termination.
"""
import time

from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.conf import CONF
from keel import exception

LOG = logging.getLogger(__name__)

_CREATED_SOURCES = ("image", "blank", "snapshot")


def volume_api():
    """Nova's volume API when Cinder is configured, else None."""
    from keel.clients import cinder
    if not cinder.is_configured(CONF):
        return None
    return cinder.API()


def is_volume(bdm):
    return bdm.obj_attr_is_set("destination_type") and \
        bdm.destination_type == "volume"


def prepare(mgr, context, instance, bdms):
    """Driver block_device_mapping entries for the volume BDMs of a build.

    Raises whatever went wrong; the caller turns it into a build abort.
    """
    volumes = [b for b in bdms if is_volume(b)]
    if not volumes:
        return []
    api = volume_api()
    if api is None:
        raise exception.InvalidInput(
            reason="block storage (Cinder) is not configured")
    connector = mgr.driver.get_volume_connector(instance)
    return [_attach(api, context, instance, bdm, connector)
            for bdm in volumes]


def _create_volume(api, context, instance, bdm):
    snapshot = ({"id": bdm.snapshot_id} if bdm.source_type == "snapshot"
                else None)
    image_id = bdm.image_id if bdm.source_type == "image" else None
    vol = api.create(context, bdm.volume_size or 1,
                     "%s-blank-vol" % instance.uuid, "", snapshot=snapshot,
                     image_id=image_id, volume_type=bdm.volume_type,
                     availability_zone=instance.availability_zone)
    _await_available(api, context, vol["id"])
    bdm.volume_id = vol["id"]
    bdm.save()


def _await_available(api, context, volume_id):
    """Poll as Nova's _await_block_device_map_created, bounded by
    [DEFAULT]/block_device_allocate_retries(_interval)."""
    attempts = max(1, CONF.block_device_allocate_retries + 1)
    start = time.monotonic()
    for attempt in range(1, attempts + 1):
        status = api.get(context, volume_id)["status"]
        if status == "available":
            return
        if status == "error" or attempt == attempts:
            break
        time.sleep(CONF.block_device_allocate_retries_interval)
    raise exception.VolumeNotCreated(
        volume_id=volume_id, seconds=int(time.monotonic() - start),
        attempts=attempt, volume_status=status)


def _attach(api, context, instance, bdm, connector):
    if bdm.source_type in _CREATED_SOURCES and not bdm.volume_id:
        _create_volume(api, context, instance, bdm)
    if not bdm.attachment_id:
        bdm.attachment_id = api.attachment_create(
            context, bdm.volume_id, instance.uuid)["id"]
    attachment = api.attachment_update(context, bdm.attachment_id,
                                       connector, bdm.device_name)
    connection_info = attachment["connection_info"]
    bdm.connection_info = jsonutils.dumps(connection_info)
    bdm.save()
    api.attachment_complete(context, bdm.attachment_id)
    return driver_bdm(bdm, connection_info)


def driver_bdm(bdm, connection_info):
    """One ``block_device_mapping`` entry of a driver's
    block_device_info."""
    return {"connection_info": connection_info,
            "mount_device": bdm.device_name,
            "boot_index": bdm.boot_index,
            "delete_on_termination": bdm.delete_on_termination,
            "disk_bus": bdm.disk_bus, "device_type": bdm.device_type,
            "guest_format": bdm.guest_format,
            "attachment_id": bdm.attachment_id}


def cleanup(context, instance, bdms, delete_volumes=True):
    """Detach (delete the attachments) and delete the volumes marked
    delete_on_termination; never raises (a delete must finish)."""
    volumes = [b for b in (bdms or []) if is_volume(b) and b.volume_id]
    if not volumes:
        return
    api = volume_api()
    if api is None:
        return
    for bdm in volumes:
        try:
            if bdm.attachment_id:
                api.attachment_delete(context, bdm.attachment_id)
            if delete_volumes and bdm.delete_on_termination:
                api.delete(context, bdm.volume_id)
        except exception.VolumeNotFound:
            pass
        except Exception as exc:  # noqa: BLE001 - see docstring
            LOG.warning("Failed to clean up volume %s of instance %s: %s",
                        bdm.volume_id, instance.uuid, exc)
