"""Payloads of the instance actions that carry one more thing than
InstanceActionPayload: rebuild (certificates), rescue (image), resize_prep
(new flavor), snapshot (image), volume attach/detach and swap (volumes),
and instance.exists (audit period). Versions as in Nova's samples."""
from keel.notifications import base
from keel.notifications.objects import instance as inst_obj
from keel.objects import fields


@base.notification
class InstanceActionRebuildPayload(inst_obj.InstanceActionPayload):
    VERSION = '1.10'
    fields = {
        'trusted_image_certificates': fields.ListOfStringsField(
            nullable=True),
    }

    def __init__(self, context, instance, fault, bdms=None):
        super().__init__(context=context, instance=instance, fault=fault,
                         bdms=bdms)
        certs = inst_obj._field(instance, 'trusted_certs', None)
        self.trusted_image_certificates = list(certs.ids) if certs else None


@base.notification
class InstanceActionRescuePayload(inst_obj.InstanceActionPayload):
    VERSION = '1.4'
    fields = {'rescue_image_ref': fields.UUIDField(nullable=True)}

    def __init__(self, context, instance, fault, rescue_image_ref):
        super().__init__(context=context, instance=instance, fault=fault)
        self.rescue_image_ref = rescue_image_ref


@base.notification
class InstanceActionResizePrepPayload(inst_obj.InstanceActionPayload):
    VERSION = '1.4'
    fields = {'new_flavor': fields.ObjectField('FlavorPayload',
                                               nullable=True)}

    def __init__(self, context, instance, fault, new_flavor):
        super().__init__(context=context, instance=instance, fault=fault)
        self.new_flavor = new_flavor


@base.notification
class InstanceActionSnapshotPayload(inst_obj.InstanceActionPayload):
    VERSION = '1.10'
    fields = {'snapshot_image_id': fields.UUIDField()}

    def __init__(self, context, instance, fault, snapshot_image_id):
        super().__init__(context=context, instance=instance, fault=fault)
        self.snapshot_image_id = snapshot_image_id


@base.notification
class InstanceActionVolumePayload(inst_obj.InstanceActionPayload):
    VERSION = '1.7'
    fields = {'volume_id': fields.UUIDField()}

    def __init__(self, context, instance, fault, volume_id):
        super().__init__(context=context, instance=instance, fault=fault)
        self.volume_id = volume_id


@base.notification
class InstanceActionVolumeSwapPayload(inst_obj.InstanceActionPayload):
    VERSION = '1.9'
    fields = {
        'old_volume_id': fields.UUIDField(),
        'new_volume_id': fields.UUIDField(),
    }

    def __init__(self, context, instance, fault, old_volume_id,
                 new_volume_id):
        super().__init__(context=context, instance=instance, fault=fault)
        self.old_volume_id = old_volume_id
        self.new_volume_id = new_volume_id


@base.notification
class InstanceActionSharePayload(inst_obj.InstanceActionPayload):
    VERSION = '1.0'
    fields = {'share_id': fields.UUIDField()}

    def __init__(self, context, instance, fault, share_id):
        super().__init__(context=context, instance=instance, fault=fault)
        self.share_id = share_id


@base.notification
class InstanceExistsPayload(inst_obj.InstancePayload):
    VERSION = '2.1'
    fields = {'audit_period': fields.ObjectField('AuditPeriodPayload')}

    def __init__(self, context, instance, audit_period):
        super().__init__(context=context, instance=instance)
        self.audit_period = audit_period


def _notification_class(name, payload_name):
    cls = type(name, (base.NotificationBase,), {
        'VERSION': '1.0',
        'fields': {'payload': fields.ObjectField(payload_name)},
    })
    return base.notification(cls)


InstanceActionRebuildNotification = _notification_class(
    'InstanceActionRebuildNotification', 'InstanceActionRebuildPayload')
InstanceActionRescueNotification = _notification_class(
    'InstanceActionRescueNotification', 'InstanceActionRescuePayload')
InstanceActionResizePrepNotification = _notification_class(
    'InstanceActionResizePrepNotification',
    'InstanceActionResizePrepPayload')
InstanceActionSnapshotNotification = _notification_class(
    'InstanceActionSnapshotNotification', 'InstanceActionSnapshotPayload')
InstanceActionVolumeNotification = _notification_class(
    'InstanceActionVolumeNotification', 'InstanceActionVolumePayload')
InstanceActionVolumeSwapNotification = _notification_class(
    'InstanceActionVolumeSwapNotification',
    'InstanceActionVolumeSwapPayload')
InstanceExistsNotification = _notification_class(
    'InstanceExistsNotification', 'InstanceExistsPayload')
InstanceActionShareNotification = _notification_class(
    'InstanceActionShareNotification', 'InstanceActionSharePayload')
