"""Objects: BlockDeviceMapping, BlockDeviceMappingList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class BlockDeviceMapping(base.KeelPersistentObject, base.KeelObject,
                         base.KeelObjectDictCompat):
    VERSION = '1.21'

    fields = {
        'attachment_id': fields.UUIDField(nullable=True),
        'boot_index': fields.IntegerField(nullable=True),
        'connection_info': fields.SensitiveStringField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'destination_type':
            fields.BlockDeviceDestinationTypeField(nullable=True),
        'device_name': fields.StringField(nullable=True),
        'device_type': fields.BlockDeviceTypeField(nullable=True),
        'disk_bus': fields.StringField(nullable=True),
        'encrypted': fields.BooleanField(default=False),
        'encryption_format':
            fields.BlockDeviceEncryptionFormatTypeField(nullable=True),
        'encryption_options': fields.StringField(nullable=True),
        'encryption_secret_uuid': fields.UUIDField(nullable=True),
        'guest_format': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'image_id': fields.StringField(nullable=True),
        'instance': fields.ObjectField('Instance', nullable=True),
        'instance_uuid': fields.UUIDField(),
        'no_device': fields.BooleanField(default=False),
        'snapshot_id': fields.StringField(nullable=True),
        'source_type': fields.BlockDeviceSourceTypeField(nullable=True),
        'tag': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'volume_id': fields.StringField(nullable=True),
        'volume_size': fields.IntegerField(nullable=True),
        'volume_type': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class BlockDeviceMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.18'

    fields = {
        'objects': fields.ListOfObjectsField('BlockDeviceMapping'),
    }
