"""Rescue and unrescue on the compute host (Nova's semantics).

Rescue powers the guest off and boots it from a rescue image -- the one the
user asked for, else the image the instance was built from -- with the
original disk attached, so a user can repair a guest that no longer boots.
A driver failure leaves the instance in ERROR (the guest may be half-way
between its disks) and is reported as InstanceNotRescuable, as Nova does.
"""
import secrets

from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute.ops import cleanup
from keel.compute.ops import notify
from keel.compute.ops import power
from keel.compute.ops import states
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

RESCUING = "rescuing"
UNRESCUING = "unrescuing"
_PASSWORD_CHARS = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _password(length=12):
    return "".join(secrets.choice(_PASSWORD_CHARS) for _ in range(length))


def _image_api():
    from keel.image import api as image_api
    return image_api.get_api()


def rescue_image_ref(instance, requested=None):
    """The requested image, else the instance's base image, else the
    image it runs (Nova's order: a familiar rescue environment)."""
    if requested:
        return requested
    sysmeta = instance.system_metadata or {}
    base = sysmeta.get("image_base_image_ref")
    if base:
        return base
    LOG.warning("Unable to find a different image to use for rescue VM of "
                "%s, using instance's current image", instance.uuid)
    return instance.image_ref


def _rescue_image(context, instance, requested):
    ref = rescue_image_ref(instance, requested)
    return objects.ImageMeta.from_dict(_image_api().get(context, ref))


def _versioned_rescue(context, instance, host, image_ref, phase):
    try:
        from keel.notifications import instance_actions
        instance_actions.notify_about_instance_rescue_action(
            context, instance, host, image_ref, phase=phase)
    except Exception:  # noqa: BLE001 - a side channel never fails rescue
        LOG.exception("Could not emit instance.rescue.%s", phase)


def rescue_instance(mgr, context, instance, rescue_password,
                    rescue_image_ref=None, clean_shutdown=True):
    context = context.elevated()
    with mgr.instance_lock(instance.uuid):
        admin_password = rescue_password or _password()
        network_info = cleanup.network_info_of(instance)
        image_meta = _rescue_image(context, instance, rescue_image_ref)
        extra = {"rescue_image_name": getattr(image_meta, "name", "")
                 if image_meta.obj_attr_is_set("name") else ""}
        notify.usage(context, instance, "rescue.start", mgr.host,
                     network_info=network_info, extra_usage_info=extra)
        _versioned_rescue(context, instance, mgr.host, rescue_image_ref,
                          "start")
        try:
            power.power_off_instance(mgr, instance, clean_shutdown)
            mgr.driver.rescue(context, instance, network_info, image_meta,
                              admin_password, None)
        except Exception as exc:
            LOG.exception("Error trying to rescue instance %s",
                          instance.uuid)
            power.set_error_state(instance)
            raise exception.InstanceNotRescuable(
                instance_id=instance.uuid, reason="Driver Error: %s" % exc)
        instance.vm_state = power.RESCUED
        instance.task_state = None
        instance.power_state = power.get_power_state(mgr, instance)
        instance.launched_at = timeutils.utcnow()
        instance.save(expected_task_state=RESCUING)
        notify.usage(context, instance, "rescue.end", mgr.host,
                     network_info=network_info, extra_usage_info=extra)
        _versioned_rescue(context, instance, mgr.host, rescue_image_ref,
                          "end")


def unrescue_instance(mgr, context, instance):
    context = context.elevated()
    with mgr.instance_lock(instance.uuid):
        network_info = cleanup.network_info_of(instance)
        notify.both(context, instance, mgr.host, "unrescue", "start",
                    network_info=network_info)
        with power.error_out_on_exception(instance, states.ACTIVE):
            mgr.driver.unrescue(context, instance)
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        instance.power_state = power.get_power_state(mgr, instance)
        instance.save(expected_task_state=UNRESCUING)
        notify.both(context, instance, mgr.host, "unrescue", "end",
                    network_info=network_info)
