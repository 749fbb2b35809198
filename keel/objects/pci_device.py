"""Objects: PciDevice, PciDeviceList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class PciDevice(base.KeelPersistentObject, base.KeelObject,
                base.KeelObjectDictCompat):
    VERSION = '1.7'

    fields = {
        'address': fields.StringField(),
        'compute_node_id': fields.IntegerField(nullable=True),
        'dev_id': fields.StringField(nullable=True),
        'dev_type': fields.PciDeviceTypeField(),
        'extra_info': fields.DictOfStringsField(default={}),
        'id': fields.IntegerField(),
        'instance_uuid': fields.StringField(nullable=True),
        'label': fields.StringField(nullable=True),
        'numa_node': fields.IntegerField(nullable=True),
        'parent_addr': fields.StringField(nullable=True),
        'product_id': fields.StringField(),
        'request_id': fields.StringField(nullable=True),
        'status': fields.PciDeviceStatusField(),
        'uuid': fields.UUIDField(),
        'vendor_id': fields.StringField(),
    }


@base.KeelObjectRegistry.register
class PciDeviceList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('PciDevice'),
    }
