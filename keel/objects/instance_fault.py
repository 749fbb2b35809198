"""Objects: InstanceFault, InstanceFaultList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class InstanceFault(base.KeelPersistentObject, base.KeelObject,
                    base.KeelObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'code': fields.IntegerField(),
        'details': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'message': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class InstanceFaultList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.2'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceFault'),
    }
