"""Rescue, unrescue, lock, unlock and console output in the compute API
(Nova's compute/api.py semantics; see server_power for the state checks).
"""
from oslo_log import log as logging

from keel.compute_api import server_power as power
from keel.conf import CONF
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

RESCUE_BFV_TRAIT = "COMPUTE_RESCUE_BFV"
_RESCUE_DEVICE_PROPS = ("hw_rescue_bus", "hw_rescue_device")


def is_volume_backed(instance):
    """Booted from a volume: no image, or a volume root device."""
    if not instance.image_ref:
        return True
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        instance._context, instance.uuid)
    return any(b.boot_index == 0 and b.destination_type == "volume"
               for b in bdms)


def _rescue_image(ctx, image_ref):
    """The requested rescue image; one that cannot be read, or a volume
    snapshot image (not supported for rescue), is UnsupportedRescueImage."""
    from keel.image import api as image_api
    try:
        image = image_api.get_api().get(ctx, image_ref)
    except (exception.ImageNotFound, exception.ImageBadRequest):
        LOG.warning("Failed to fetch rescue image metadata using image_ref "
                    "%s", image_ref)
        raise exception.UnsupportedRescueImage(image=image_ref)
    if (image.get("properties") or {}).get("img_block_device_mapping"):
        raise exception.UnsupportedRescueImage(image=image_ref)
    return image


def _node_traits(instance):
    from keel.clients import placement as pl
    node = objects.ComputeNode.get_by_host_and_nodename(
        instance._context, instance.host, instance.node)
    traits, _generation = pl.PlacementClient(conf=CONF).get_traits(
        instance._context, node.uuid)
    return traits


def _check_bfv_rescue(instance, image, allow_bfv_rescue):
    """Volume-backed servers can be rescued only from 2.87, with a rescue
    image that names its rescue device and on a host that can (its
    COMPUTE_RESCUE_BFV trait)."""
    if not is_volume_backed(instance):
        return
    if allow_bfv_rescue and image is not None:
        props = image.get("properties") or {}
        if all(p in props for p in _RESCUE_DEVICE_PROPS):
            try:
                traits = _node_traits(instance)
            except Exception:  # noqa: BLE001 - unknown counts as unable
                LOG.warning("Could not read the traits of %s's host",
                            instance.uuid, exc_info=True)
                traits = set()
            if RESCUE_BFV_TRAIT not in traits:
                raise exception.InstanceNotRescuable(
                    instance_id=instance.uuid,
                    reason="Host unable to rescue a volume-backed instance")
            return
    raise exception.InstanceNotRescuable(
        instance_id=instance.uuid,
        reason="Cannot rescue a volume-backed instance")


def rescue(ctx, instance, rescue_password=None, rescue_image_ref=None,
           clean_shutdown=True, allow_bfv_rescue=False):
    power.check_locked(ctx, instance)
    power.check_state(instance, "rescue",
                      vm_state=[power.ACTIVE, power.STOPPED, power.ERROR])
    image = _rescue_image(ctx, rescue_image_ref) if rescue_image_ref \
        else None
    _check_bfv_rescue(instance, image, allow_bfv_rescue)
    power.claim(instance, "rescuing")
    power.record_action(instance, "rescue")
    power.compute_rpc().rescue_instance(
        instance._context, instance, rescue_password=rescue_password,
        rescue_image_ref=rescue_image_ref, clean_shutdown=clean_shutdown)


def unrescue(ctx, instance):
    power.check_locked(ctx, instance)
    power.check_state(instance, "unrescue", vm_state=[power.RESCUED])
    power.claim(instance, "unrescuing")
    power.record_action(instance, "unrescue")
    power.compute_rpc().unrescue_instance(instance._context, instance)


# -- lock ---------------------------------------------------------------------

def _is_owner(ctx, instance):
    return instance.project_id == ctx.project_id


def is_expected_locked_by(ctx, instance):
    """False when someone else (owner vs admin) holds the lock."""
    expected = "owner" if _is_owner(ctx, instance) else "admin"
    locked_by = instance.locked_by
    return not locked_by or locked_by == expected


def _notify(ctx, instance, action):
    try:
        from keel.notifications import instance as notif
        notif.notify_about_instance_action(
            ctx, instance, CONF.host, action=action,
            source=notif.SOURCE_API)
    except Exception:  # noqa: BLE001 - side channel
        LOG.exception("Could not emit instance.%s", action)


def _with_event(instance, name, change):
    """Run ``change`` as the event ``api_<name>`` of the action."""
    from keel.compute import events
    with events.EventReporter(instance._context, "api_" + name, CONF.host,
                              instance.uuid):
        change()


def lock(ctx, instance, reason=None):
    # An owner re-locking their locked server changes nothing (Nova).
    if instance.locked and _is_owner(ctx, instance):
        return
    power.record_action(instance, "lock")

    def change():
        instance.locked = True
        instance.locked_by = "owner" if _is_owner(ctx, instance) \
            else "admin"
        if reason:
            instance.system_metadata["locked_reason"] = reason
        instance.save()
    _with_event(instance, "lock", change)
    _notify(ctx, instance, "lock")


def unlock(ctx, instance):
    power.record_action(instance, "unlock")

    def change():
        instance.locked = False
        instance.locked_by = None
        instance.system_metadata.pop("locked_reason", None)
        instance.save()
    _with_event(instance, "unlock", change)
    _notify(ctx, instance, "unlock")


# -- console output -----------------------------------------------------------

def get_console_output(ctx, instance, tail_length=None):
    power.check_host(instance)
    return power.compute_rpc().get_console_output(
        instance._context, instance, tail_length)
