"""Instance payloads and notifications (instance.create/delete/update/...).

Field sets and versions are those of Nova's samples (InstancePayload 1.9,
InstanceActionPayload 1.9, InstanceCreatePayload 1.13,
InstanceUpdatePayload 2.1).
"""
from keel.conf import CONF
from keel.notifications import base
from keel.notifications import fields as nf
from keel.notifications.objects import common
from keel.objects import fields


def _field(instance, name, default):
    """A field, lazy-loaded if need be (one query, as Nova); ``default``
    when it cannot be (an instance not in a cell database yet)."""
    try:
        return getattr(instance, name)
    except base.NOT_LOADABLE:
        return default


def _network_info(instance):
    cache = _field(instance, 'info_cache', None)
    if cache is None or not cache.obj_attr_is_set('network_info'):
        return []
    return cache.network_info or []


@base.notification
class SharePayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {
        'share_mapping_uuid': ('share_mapping', 'uuid'),
        'share_id': ('share_mapping', 'share_id'),
        'status': ('share_mapping', 'status'),
        'tag': ('share_mapping', 'tag'),
        'export_location': ('share_mapping', 'export_location'),
    }
    fields = {
        'share_mapping_uuid': fields.UUIDField(),
        'share_id': fields.UUIDField(),
        'status': fields.StringField(),
        'tag': fields.StringField(),
        'export_location': fields.StringField(),
    }

    def __init__(self, share_mapping):
        super().__init__()
        self.populate_schema(share_mapping=share_mapping)


def _shares(context, instance):
    if not CONF.notifications.include_share_mapping:
        return []
    from keel import objects
    share_list = getattr(objects, 'ShareMappingList', None)
    if share_list is None:  # no share mappings in this deployment yet
        return []
    return [SharePayload(m) for m in
            share_list.get_by_instance_uuid(context, instance.uuid)]


@base.notification
class InstancePayload(base.NotificationPayloadBase):
    SCHEMA = {
        'uuid': ('instance', 'uuid'),
        'user_id': ('instance', 'user_id'),
        'tenant_id': ('instance', 'project_id'),
        'reservation_id': ('instance', 'reservation_id'),
        'display_name': ('instance', 'display_name'),
        'display_description': ('instance', 'display_description'),
        'host_name': ('instance', 'hostname'),
        'host': ('instance', 'host'),
        'node': ('instance', 'node'),
        'os_type': ('instance', 'os_type'),
        'architecture': ('instance', 'architecture'),
        'availability_zone': ('instance', 'availability_zone'),
        'image_uuid': ('instance', 'image_ref'),
        'key_name': ('instance', 'key_name'),
        'kernel_id': ('instance', 'kernel_id'),
        'ramdisk_id': ('instance', 'ramdisk_id'),
        'created_at': ('instance', 'created_at'),
        'launched_at': ('instance', 'launched_at'),
        'terminated_at': ('instance', 'terminated_at'),
        'deleted_at': ('instance', 'deleted_at'),
        'updated_at': ('instance', 'updated_at'),
        'state': ('instance', 'vm_state'),
        'power_state': ('instance', 'power_state'),
        'task_state': ('instance', 'task_state'),
        'progress': ('instance', 'progress'),
        'metadata': ('instance', 'metadata'),
        'locked': ('instance', 'locked'),
        'auto_disk_config': ('instance', 'auto_disk_config'),
    }
    VERSION = '1.9'
    fields = {
        'uuid': fields.UUIDField(),
        'user_id': fields.StringField(nullable=True),
        'tenant_id': fields.StringField(nullable=True),
        'reservation_id': fields.StringField(nullable=True),
        'display_name': fields.StringField(nullable=True),
        'display_description': fields.StringField(nullable=True),
        'host_name': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'node': fields.StringField(nullable=True),
        'os_type': fields.StringField(nullable=True),
        'architecture': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('FlavorPayload'),
        'image_uuid': fields.StringField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'kernel_id': fields.StringField(nullable=True),
        'ramdisk_id': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'deleted_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'state': nf.InstanceStateField(nullable=True),
        'power_state': nf.InstancePowerStateField(nullable=True),
        'task_state': nf.InstanceTaskStateField(nullable=True),
        'progress': fields.IntegerField(nullable=True),
        'ip_addresses': fields.ListOfObjectsField('IpPayload'),
        'block_devices': fields.ListOfObjectsField('BlockDevicePayload',
                                                   nullable=True),
        'metadata': fields.DictOfStringsField(),
        'locked': fields.BooleanField(),
        'auto_disk_config': nf.DiskConfigField(),
        'request_id': fields.StringField(nullable=True),
        'action_initiator_user': fields.StringField(nullable=True),
        'action_initiator_project': fields.StringField(nullable=True),
        'locked_reason': fields.StringField(nullable=True),
        'shares': fields.ListOfObjectsField('SharePayload', nullable=True),
    }

    def __init__(self, context, instance, bdms=None):
        super().__init__()
        self.ip_addresses = common.IpPayload.from_network_info(
            _network_info(instance))
        self.flavor = common.FlavorPayload(flavor=instance.flavor)
        if bdms is not None:
            self.block_devices = common.BlockDevicePayload.from_bdms(bdms)
        else:
            self.block_devices = common.BlockDevicePayload.from_instance(
                instance)
        # A periodic task's context has no user/project: its request id
        # would mean nothing to a consumer.
        self.request_id = (context.request_id
                           if context.project_id and context.user_id
                           else None)
        self.action_initiator_user = context.user_id
        self.action_initiator_project = context.project_id
        sysmeta = (instance.system_metadata
                   if instance.obj_attr_is_set('system_metadata') else {})
        self.locked_reason = sysmeta.get('locked_reason')
        self.shares = _shares(context, instance)
        self.populate_schema(instance=instance)


@base.notification
class InstanceActionPayload(InstancePayload):
    VERSION = '1.9'
    fields = {
        'fault': fields.ObjectField('ExceptionPayload', nullable=True),
        'request_id': fields.StringField(nullable=True),
    }

    def __init__(self, context, instance, fault, bdms=None):
        super().__init__(context=context, instance=instance, bdms=bdms)
        self.fault = fault


def _tags(instance):
    return [t.tag for t in _field(instance, 'tags', [])]


@base.notification
class InstanceCreatePayload(InstanceActionPayload):
    VERSION = '1.13'
    fields = {
        'keypairs': fields.ListOfObjectsField('KeypairPayload'),
        'tags': fields.ListOfStringsField(),
        'trusted_image_certificates': fields.ListOfStringsField(
            nullable=True),
        'instance_name': fields.StringField(nullable=True),
    }

    def __init__(self, context, instance, fault, bdms):
        super().__init__(context=context, instance=instance, fault=fault,
                         bdms=bdms)
        self.keypairs = [common.KeypairPayload(keypair=kp)
                         for kp in _field(instance, 'keypairs', [])]
        self.tags = _tags(instance)
        certs = _field(instance, 'trusted_certs', None)
        self.trusted_image_certificates = list(certs.ids) if certs else None
        self.instance_name = instance.name


@base.notification
class InstanceUpdatePayload(InstancePayload):
    VERSION = '2.1'
    fields = {
        'state_update': fields.ObjectField('InstanceStateUpdatePayload'),
        'audit_period': fields.ObjectField('AuditPeriodPayload'),
        'old_display_name': fields.StringField(nullable=True),
        'tags': fields.ListOfStringsField(),
    }

    def __init__(self, context, instance, state_update, audit_period,
                 old_display_name):
        super().__init__(context=context, instance=instance)
        self.state_update = state_update
        self.audit_period = audit_period
        self.old_display_name = old_display_name
        self.tags = _tags(instance)


@base.notification
class InstanceActionNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('InstanceActionPayload')}


@base.notification
class InstanceCreateNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('InstanceCreatePayload')}


@base.notification
class InstanceUpdateNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('InstanceUpdatePayload')}
