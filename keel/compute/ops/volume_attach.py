"""Volume attach and detach on a running instance's compute host (Nova's
reserve_block_device_name / attach_volume / detach_volume).

The API first asks this host to reserve a device name: the BDM row is
created here, under the instance lock, so two concurrent attachments never
get the same name. The API then creates the Cinder attachment (no
connector yet) and casts ``attach_volume``: the attachment is updated with
this host's connector, the driver plugs the volume, the attachment is
completed and the BDM keeps the connection info. A failure deletes the
attachment and the BDM again (the user sees the volume available, a fault
and an instance.volume_attach.error notification).

Detach is the reverse: driver unplug, attachment delete, BDM destroyed.

remove_volume_connection only disconnects the volume from this host (the
BDM stays): a live migration's rollback asks it of the destination.
"""
import string
import sys

from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.compute.ops import notify
from keel.compute.ops import volumes as volume_ops
from keel.conf import CONF
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

_DEFAULT_PREFIX = "/dev/vd"


def _notify_volume(context, instance, host, action, phase, volume_id,
                   exc=None):
    try:
        from keel.notifications import instance_actions
    except ImportError:
        return
    try:
        instance_actions.notify_about_volume_attach_detach(
            context, instance, host, action, phase, volume_id=volume_id,
            exception=exc)
    except Exception:  # noqa: BLE001 - a notification is a side channel
        LOG.exception("Could not emit instance.%s.%s", action, phase)


def _prefix(instance, bdms):
    """The device prefix of the root disk (/dev/vda -> /dev/vd)."""
    root = getattr(instance, "root_device_name", None) if \
        instance.obj_attr_is_set("root_device_name") else None
    if not root:
        root = next((b.device_name for b in bdms
                     if b.boot_index == 0 and b.device_name), None)
    if not root:
        return _DEFAULT_PREFIX
    return _strip_letter(root)


def _strip_letter(device):
    """/dev/vda -> /dev/vd, /dev/xvdb1 -> /dev/xvd."""
    device = device.rstrip(string.digits)
    if device.startswith("/dev/xvd"):
        return "/dev/xvd"
    return device[:-1] if len(device) > len("/dev/") + 1 else \
        _DEFAULT_PREFIX


def _letters():
    for first in [""] + list(string.ascii_lowercase):
        for second in string.ascii_lowercase:
            yield first + second


def next_device_name(instance, bdms, requested=None):
    """The requested name when it is free, else the first free name on the
    root disk's bus (Nova's get_device_name_for_instance)."""
    used = {b.device_name for b in bdms if b.device_name}
    if instance.obj_attr_is_set("root_device_name") and \
            instance.root_device_name:
        used.add(instance.root_device_name)
    else:
        # No recorded root: the image disk still takes the first name.
        used.add(_prefix(instance, bdms) + "a")
    if requested:
        if requested in used:
            raise exception.DevicePathInUse(path=requested)
        return requested
    prefix = _prefix(instance, bdms)
    for letters in _letters():
        candidate = prefix + letters
        if candidate not in used:
            return candidate
    raise exception.TooManyDiskDevices(maximum=len(used))


def reserve_block_device_name(mgr, context, instance, device, volume_id,
                              disk_bus, device_type, tag, multiattach):
    caps = getattr(mgr.driver, "capabilities", {}) or {}
    if tag and not caps.get("supports_tagged_attach_volume", False):
        raise exception.VolumeTaggedAttachNotSupported()
    with mgr.instance_lock(instance.uuid):
        bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
            context, instance.uuid)
        if not multiattach and any(b.volume_id == volume_id for b in bdms):
            # A second attachment of the same volume to one instance.
            raise exception.InvalidVolume(
                reason="volume %s already attached" % volume_id)
        bdm = objects.BlockDeviceMapping(
            context, source_type="volume", destination_type="volume",
            instance_uuid=instance.uuid, boot_index=None,
            volume_id=volume_id, device_name=None, disk_bus=disk_bus,
            device_type=device_type or "disk", tag=tag,
            delete_on_termination=False, guest_format=None,
            no_device=False, connection_info=None, attachment_id=None,
            snapshot_id=None, image_id=None, volume_size=None,
            volume_type=None)
        limit = CONF.compute.max_disk_devices_to_attach
        disks = [b for b in bdms if b.destination_type in ("volume",
                                                           "local")]
        # An image root disk has no BDM row when none was given.
        count = len(disks) + (0 if any(b.boot_index == 0 for b in disks)
                              else 1)
        if 0 <= limit < count + 1:
            raise exception.TooManyDiskDevices(maximum=limit)
        bdm.device_name = next_device_name(instance, bdms, device)
        bdm.create()
        return bdm


def attach_volume(mgr, context, instance, bdm):
    with mgr.instance_lock(instance.uuid):
        try:
            _attach(mgr, context, instance, bdm)
        except Exception:
            try:
                bdm.destroy()
            except Exception:  # noqa: BLE001 - the original error matters
                LOG.warning("Could not remove the BDM of volume %s",
                            bdm.volume_id)
            raise


def _attach(mgr, context, instance, bdm):
    api = volume_ops.volume_api()
    if api is None:
        raise exception.InvalidInput(
            reason="block storage (Cinder) is not configured")
    _notify_volume(context, instance, mgr.host, "volume_attach", "start",
                   bdm.volume_id)
    try:
        connector = mgr.driver.get_volume_connector(instance)
        attachment = api.attachment_update(context, bdm.attachment_id,
                                           connector, bdm.device_name)
        connection_info = attachment["connection_info"]
        mgr.driver.attach_volume(context, connection_info, instance,
                                 bdm.device_name, disk_bus=bdm.disk_bus,
                                 device_type=bdm.device_type)
        api.attachment_complete(context, bdm.attachment_id)
        bdm.connection_info = jsonutils.dumps(connection_info)
        bdm.save()
    except Exception as exc:
        LOG.exception("Failed to attach volume %s to instance %s",
                      bdm.volume_id, instance.uuid)
        _record_fault(mgr, context, instance, exc)
        _notify_volume(context, instance, mgr.host, "volume_attach",
                       "error", bdm.volume_id, exc)
        if bdm.attachment_id:
            try:
                api.attachment_delete(context, bdm.attachment_id)
            except Exception:  # noqa: BLE001 - best effort rollback
                LOG.warning("Could not delete attachment %s",
                            bdm.attachment_id)
        raise
    notify.usage(context, instance, "attach_volume", mgr.host,
                 extra_usage_info={"volume_id": bdm.volume_id})
    _notify_volume(context, instance, mgr.host, "volume_attach", "end",
                   bdm.volume_id)


def _record_fault(mgr, context, instance, exc):
    from keel.compute import faults
    try:
        faults.add_instance_fault_from_exc(context, instance, exc,
                                           sys.exc_info(), host=mgr.host)
    except Exception:  # noqa: BLE001 - the operation outcome matters more
        LOG.exception("Could not record the fault of %s", instance.uuid)


def detach_volume(mgr, context, volume_id, instance, attachment_id=None):
    with mgr.instance_lock(instance.uuid):
        bdm = objects.BlockDeviceMapping.get_by_volume_and_instance(
            context, volume_id, instance.uuid)
        detach_bdm(mgr, context, instance, bdm, attachment_id)


def detach_bdm(mgr, context, instance, bdm, attachment_id=None):
    _notify_volume(context, instance, mgr.host, "volume_detach", "start",
                   bdm.volume_id)
    try:
        connection_info = jsonutils.loads(bdm.connection_info) \
            if bdm.connection_info else {}
        try:
            mgr.driver.detach_volume(context, connection_info, instance,
                                     bdm.device_name)
        except exception.InstanceNotFound:
            # No guest (stopped on a driver that forgets it): nothing to
            # unplug, the attachment still has to go.
            LOG.info("Guest of %s not found while detaching volume %s",
                     instance.uuid, bdm.volume_id)
        api = volume_ops.volume_api()
        attachment_id = attachment_id or bdm.attachment_id
        if api is not None and attachment_id:
            api.attachment_delete(context, attachment_id)
    except Exception as exc:
        _notify_volume(context, instance, mgr.host, "volume_detach",
                       "error", bdm.volume_id, exc)
        raise
    notify.usage(context, instance, "detach_volume", mgr.host,
                 extra_usage_info={"volume_id": bdm.volume_id})
    bdm.destroy()
    _notify_volume(context, instance, mgr.host, "volume_detach", "end",
                   bdm.volume_id)


def remove_volume_connection(mgr, context, volume_id, instance,
                             delete_attachment=False):
    """This host lets go of one volume of the instance (Nova's
    remove_volume_connection): the driver disconnects it with the BDM's
    connection info as it is now; the attachment is deleted only when the
    caller asks (a live migration's rollback deletes it on the source).
    No BDM, no guest or no disk here: nothing to do."""
    try:
        bdm = objects.BlockDeviceMapping.get_by_volume_and_instance(
            context, volume_id, instance.uuid)
        connection_info = jsonutils.loads(bdm.connection_info) \
            if bdm.connection_info else {}
        LOG.info("Removing the connection of volume %s of instance %s "
                 "from %s", volume_id, instance.uuid, mgr.host)
        mgr.driver.detach_volume(context, connection_info, instance,
                                 bdm.device_name)
        if delete_attachment and bdm.attachment_id:
            api = volume_ops.volume_api()
            if api is not None:
                api.attachment_delete(context, bdm.attachment_id)
    except exception.NotFound:
        pass
