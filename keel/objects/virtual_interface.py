"""Objects: VirtualInterface, VirtualInterfaceList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class VirtualInterface(base.KeelPersistentObject, base.KeelObject,
                       base.KeelObjectDictCompat):
    VERSION = '1.3'

    fields = {
        'address': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'network_id': fields.IntegerField(),
        'tag': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
    }


@base.KeelObjectRegistry.register
class VirtualInterfaceList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('VirtualInterface'),
    }
