"""Volume attach/detach in the compute API (Nova's compute/api.py
attach_volume / detach_volume).

Attach: the instance's compute reserves the device name (and creates the
BDM), then a Cinder attachment without connector reserves the volume, the
BDM keeps its id and the compute is told to attach. A failure before the
cast removes what was made, so the volume stays available. A shelved
offloaded instance has no compute: the BDM and the attachment are made
here and the attachment is completed when the instance is unshelved.
"""
from oslo_log import log as logging

from keel.clients import cinder
from keel.compute_api import server_power as power
from keel.conf import CONF
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

ACTIVE, PAUSED, STOPPED, RESIZED = "active", "paused", "stopped", "resized"
SOFT_DELETED, SHELVED, SHELVED_OFFLOADED = "soft-delete", "shelved", \
    "shelved_offloaded"
ATTACH_VM_STATES = [ACTIVE, PAUSED, STOPPED, RESIZED, SOFT_DELETED, SHELVED,
                    SHELVED_OFFLOADED]
DETACH_VM_STATES = ATTACH_VM_STATES


class CinderNotConfigured(exception.Invalid):
    msg_fmt = ("Volumes need the block storage service (Cinder), which is "
               "not configured.")


def volume_api():
    if not cinder.is_configured(CONF):
        raise CinderNotConfigured()
    return cinder.API()


def list_bdms(instance):
    """The instance's volume BDMs (one query), in creation order."""
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        instance._context, instance.uuid)
    return [b for b in bdms if b.volume_id]


def get_bdm(instance, volume_id):
    """VolumeBDMNotFound when the volume is not attached to it."""
    return objects.BlockDeviceMapping.get_by_volume_and_instance(
        instance._context, volume_id, instance.uuid)


def _check_not_attached(instance, volume_id):
    try:
        get_bdm(instance, volume_id)
    except exception.VolumeBDMNotFound:
        return
    raise exception.InvalidVolume(
        reason="volume %s already attached" % volume_id)


def attach_volume(ctx, instance, volume_id, device=None, tag=None,
                  delete_on_termination=False):
    """The device name the volume gets (None when shelved offloaded)."""
    power.check_locked(ctx, instance)
    power.check_state(instance, "attach_volume", vm_state=ATTACH_VM_STATES,
                      must_have_launched=False)
    api = volume_api()
    volume = api.get(ctx, volume_id)
    _check_not_attached(instance, volume_id)
    if volume.get("multiattach"):
        # Nova needs 2.60 and driver support; neither is offered here.
        raise exception.InvalidVolume(
            reason="multiattach volumes are not supported")
    if volume["status"] != "available":
        raise exception.InvalidVolume(
            reason="volume %s status must be 'available', not '%s'"
                   % (volume_id, volume["status"]))
    api.check_availability_zone(ctx, volume, instance=instance)
    if instance.vm_state == SHELVED_OFFLOADED:
        return _attach_offloaded(ctx, instance, api, volume_id, device, tag,
                                 delete_on_termination)
    power.check_host(instance)
    rpc = power.compute_rpc()
    bdm = rpc.reserve_block_device_name(
        instance._context, instance, device, volume_id, disk_bus=None,
        device_type=None, tag=tag, multiattach=False)
    try:
        bdm.attachment_id = api.attachment_create(
            ctx, volume_id, instance.uuid)["id"]
        bdm.delete_on_termination = bool(delete_on_termination)
        bdm.save()
        power.record_action(instance, "attach_volume")
        rpc.attach_volume(instance._context, instance, bdm)
    except Exception:
        _undo(ctx, api, bdm)
        raise
    return bdm


def _undo(ctx, api, bdm):
    try:
        if bdm.obj_attr_is_set("attachment_id") and bdm.attachment_id:
            api.attachment_delete(ctx, bdm.attachment_id)
        bdm.destroy()
    except Exception:  # noqa: BLE001 - the original error is reported
        LOG.exception("Could not undo the attachment of volume %s",
                      bdm.volume_id)


def _attach_offloaded(ctx, instance, api, volume_id, device, tag,
                      delete_on_termination):
    bdm = objects.BlockDeviceMapping(
        instance._context, source_type="volume", destination_type="volume",
        instance_uuid=instance.uuid, boot_index=None, volume_id=volume_id,
        device_name=None, tag=tag, device_type="disk",
        delete_on_termination=bool(delete_on_termination))
    bdm.create()
    try:
        bdm.attachment_id = api.attachment_create(
            ctx, volume_id, instance.uuid)["id"]
        bdm.save()
    except Exception:
        _undo(ctx, api, bdm)
        raise
    power.record_action(instance, "attach_volume")
    return bdm


def detach_volume(ctx, instance, bdm):
    power.check_locked(ctx, instance)
    power.check_state(instance, "detach_volume", vm_state=DETACH_VM_STATES,
                      must_have_launched=False)
    api = volume_api()
    power.record_action(instance, "detach_volume")
    if instance.vm_state == SHELVED_OFFLOADED:
        if bdm.attachment_id:
            api.attachment_delete(ctx, bdm.attachment_id)
        bdm.destroy()
        return
    power.check_host(instance)
    power.compute_rpc().detach_volume(
        instance._context, instance, bdm.volume_id,
        attachment_id=bdm.attachment_id)


def update_delete_on_termination(ctx, instance, bdm, value):
    """2.85: only the flag changes (no swap)."""
    power.check_locked(ctx, instance)
    bdm.delete_on_termination = bool(value)
    bdm.save()
