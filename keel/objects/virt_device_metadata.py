"""Objects: DeviceBus, PCIDeviceBus, USBDeviceBus, SCSIDeviceBus, IDEDeviceBus,
XenDeviceBus, DeviceMetadata, NetworkInterfaceMetadata, DiskMetadata,
ShareMetadata, InstanceDeviceMetadata.
"""
from keel.objects import base
from keel.objects import fields
from keel.objects import instance_db


@base.KeelObjectRegistry.register
class DeviceBus(base.KeelObject):
    VERSION = '1.0'

    fields = {}


@base.KeelObjectRegistry.register
class PCIDeviceBus(DeviceBus):
    VERSION = '1.0'

    fields = {
        'address': fields.PCIAddressField(),
    }


@base.KeelObjectRegistry.register
class USBDeviceBus(DeviceBus):
    VERSION = '1.0'

    fields = {
        'address': fields.USBAddressField(),
    }


@base.KeelObjectRegistry.register
class SCSIDeviceBus(DeviceBus):
    VERSION = '1.0'

    fields = {
        'address': fields.SCSIAddressField(),
    }


@base.KeelObjectRegistry.register
class IDEDeviceBus(DeviceBus):
    VERSION = '1.0'

    fields = {
        'address': fields.IDEAddressField(),
    }


@base.KeelObjectRegistry.register
class XenDeviceBus(DeviceBus):
    VERSION = '1.0'

    fields = {
        'address': fields.XenAddressField(),
    }


@base.KeelObjectRegistry.register
class DeviceMetadata(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'bus': fields.ObjectField('DeviceBus', subclasses=True),
        'tags': fields.ListOfStringsField(),
    }


@base.KeelObjectRegistry.register
class NetworkInterfaceMetadata(DeviceMetadata):
    VERSION = '1.2'

    fields = {
        'mac': fields.MACAddressField(),
        'vf_trusted': fields.BooleanField(default=False),
        'vlan': fields.IntegerField(),
    }


@base.KeelObjectRegistry.register
class DiskMetadata(DeviceMetadata):
    VERSION = '1.0'

    fields = {
        'path': fields.StringField(nullable=True),
        'serial': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class ShareMetadata(DeviceMetadata):
    VERSION = '1.0'

    fields = {
        'share_id': fields.StringField(nullable=True),
        'tag': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class InstanceDeviceMetadata(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'devices':
            fields.ListOfObjectsField('DeviceMetadata', subclasses=True),
    }

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """From instance_extra.device_metadata (None when empty)."""
        return instance_db.obj_from_extra(cls, context, instance_uuid,
                                          "device_metadata")
