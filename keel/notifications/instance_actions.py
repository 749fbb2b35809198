"""Versioned helpers for the instance actions with their own payloads
(Nova's compute/utils names and arguments):

  notify_about_instance_rebuild(context, instance, host, action='rebuild',
                                phase=None, source='nova-compute',
                                exception=None, bdms=None)
  notify_about_instance_rescue_action(context, instance, host,
                                      rescue_image_ref, phase=None)
  notify_about_resize_prep_instance(context, instance, host, phase,
                                    new_flavor)
  notify_about_instance_snapshot(context, instance, host, phase=None,
                                 snapshot_image_id=None)
  notify_about_volume_attach_detach(context, instance, host, action, phase,
                                    volume_id=None, exception=None)
  notify_about_volume_swap(context, instance, host, phase, old_volume_id,
                           new_volume_id, exception=None)
  notify_about_share_attach_detach(context, instance, host, action, phase,
                                   share_id=None, exception=None)
  notify_about_instance_exists(context, instance, host=None,
                               audit_period=None)
  notify_usage_exists(context, instance, host=None, current_period=False,
                      extra_usage_info=None)
      legacy compute.instance.exists and versioned instance.exists (the
      periodic usage audit; resize and rebuild send it too in Nova)

No-ops while their kind of notifications is off.
"""
from keel import notifications
from keel.notifications import audit
from keel.notifications import legacy
from keel.notifications import fields as nf
from keel.notifications.instance import _fault_and_priority
from keel.notifications.instance import _notification
from keel.notifications.instance import SOURCE_API
from keel.notifications.instance import SOURCE_COMPUTE


def _objs():
    from keel.notifications.objects import instance_actions
    return instance_actions


def _send(context, cls, priority, host, source, action, phase, payload):
    _notification(cls, priority, host, source, 'instance', action, phase,
                  payload).emit(context)


def notify_about_instance_rebuild(context, instance, host,
                                  action=nf.NotificationAction.REBUILD,
                                  phase=None, source=SOURCE_COMPUTE,
                                  exception=None, bdms=None):
    """instance.rebuild.* and instance.rebuild_scheduled (conductor)."""
    if not notifications.versioned_enabled():
        return
    o = _objs()
    fault, priority = _fault_and_priority(exception)
    payload = o.InstanceActionRebuildPayload(
        context=context, instance=instance, fault=fault, bdms=bdms)
    _send(context, o.InstanceActionRebuildNotification, priority, host,
          source, action, phase, payload)


def notify_about_instance_rescue_action(context, instance, host,
                                        rescue_image_ref, phase=None):
    if not notifications.versioned_enabled():
        return
    o = _objs()
    payload = o.InstanceActionRescuePayload(
        context=context, instance=instance, fault=None,
        rescue_image_ref=rescue_image_ref)
    _send(context, o.InstanceActionRescueNotification,
          nf.NotificationPriority.INFO, host, SOURCE_COMPUTE,
          nf.NotificationAction.RESCUE, phase, payload)


def notify_about_resize_prep_instance(context, instance, host, phase,
                                      new_flavor):
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import common
    o = _objs()
    payload = o.InstanceActionResizePrepPayload(
        context=context, instance=instance, fault=None,
        new_flavor=common.FlavorPayload(flavor=new_flavor))
    _send(context, o.InstanceActionResizePrepNotification,
          nf.NotificationPriority.INFO, host, SOURCE_COMPUTE,
          nf.NotificationAction.RESIZE_PREP, phase, payload)


def notify_about_instance_snapshot(context, instance, host, phase=None,
                                   snapshot_image_id=None):
    if not notifications.versioned_enabled():
        return
    o = _objs()
    payload = o.InstanceActionSnapshotPayload(
        context=context, instance=instance, fault=None,
        snapshot_image_id=snapshot_image_id)
    _send(context, o.InstanceActionSnapshotNotification,
          nf.NotificationPriority.INFO, host, SOURCE_COMPUTE,
          nf.NotificationAction.SNAPSHOT, phase, payload)


def notify_about_volume_attach_detach(context, instance, host, action, phase,
                                      volume_id=None, exception=None):
    """instance.volume_attach.* / instance.volume_detach.*"""
    if not notifications.versioned_enabled():
        return
    o = _objs()
    fault, priority = _fault_and_priority(exception)
    payload = o.InstanceActionVolumePayload(
        context=context, instance=instance, fault=fault,
        volume_id=volume_id)
    _send(context, o.InstanceActionVolumeNotification, priority, host,
          SOURCE_COMPUTE, action, phase, payload)


def notify_about_volume_swap(context, instance, host, phase, old_volume_id,
                             new_volume_id, exception=None):
    if not notifications.versioned_enabled():
        return
    o = _objs()
    fault, priority = _fault_and_priority(exception)
    payload = o.InstanceActionVolumeSwapPayload(
        context=context, instance=instance, fault=fault,
        old_volume_id=old_volume_id, new_volume_id=new_volume_id)
    _send(context, o.InstanceActionVolumeSwapNotification, priority, host,
          SOURCE_COMPUTE, nf.NotificationAction.VOLUME_SWAP, phase, payload)


def notify_about_share_attach_detach(context, instance, host, action, phase,
                                     share_id=None, exception=None):
    """instance.share_attach.* / instance.share_detach.* (published as
    nova-api, as Nova does, though the compute sends them)."""
    if not notifications.versioned_enabled():
        return
    o = _objs()
    fault, priority = _fault_and_priority(exception)
    payload = o.InstanceActionSharePayload(
        context=context, instance=instance, fault=fault, share_id=share_id)
    _send(context, o.InstanceActionShareNotification, priority, host,
          SOURCE_API, action, phase, payload)

def notify_about_instance_exists(context, instance, host=None,
                                 audit_period=None):
    """instance.exists for the last completed audit period (or the given
    ``(begin, end)``)."""
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import common
    o = _objs()
    begin, end = audit_period or audit.audit_period_bounds()
    payload = o.InstanceExistsPayload(
        context=context, instance=instance,
        audit_period=common.AuditPeriodPayload(
            audit_period_beginning=begin, audit_period_ending=end))
    _send(context, o.InstanceExistsNotification,
          nf.NotificationPriority.INFO, host, SOURCE_COMPUTE,
          nf.NotificationAction.EXISTS, None, payload)


def notify_usage_exists(context, instance, host=None, current_period=False,
                        extra_usage_info=None):
    """compute.instance.exists (legacy, with the audit period, image
    metadata and an empty bandwidth) and instance.exists (versioned)."""
    if not notifications.notifications_enabled():
        return
    begin, end = audit.audit_period_bounds(current_period)
    if notifications.legacy_enabled():
        sysmeta = (instance.system_metadata
                   if instance.obj_attr_is_set('system_metadata') else {})
        extra = dict(audit_period_beginning=str(begin),
                     audit_period_ending=str(end), bandwidth={},
                     image_meta=legacy.image_meta(sysmeta))
        extra.update(extra_usage_info or {})
        legacy.notify_about_instance_usage(context, instance, 'exists',
                                           extra_usage_info=extra, host=host)
    notify_about_instance_exists(context, instance, host=host,
                                 audit_period=(begin, end))
