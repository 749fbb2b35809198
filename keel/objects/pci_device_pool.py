"""Objects: PciDevicePool, PciDevicePoolList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class PciDevicePool(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'count': fields.IntegerField(),
        'numa_node': fields.IntegerField(nullable=True),
        'product_id': fields.StringField(),
        'tags': fields.DictOfNullableStringsField(),
        'vendor_id': fields.StringField(),
    }


@base.KeelObjectRegistry.register
class PciDevicePoolList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('PciDevicePool'),
    }
