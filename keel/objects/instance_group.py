"""Objects: InstanceGroup, InstanceGroupList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class InstanceGroup(base.KeelPersistentObject, base.KeelObject,
                    base.KeelObjectDictCompat):
    VERSION = '1.11'

    fields = {
        '_rules': fields.DictOfStringsField(),
        'hosts': fields.ListOfStringsField(nullable=True),
        'id': fields.IntegerField(),
        'members': fields.ListOfStringsField(nullable=True),
        'name': fields.StringField(nullable=True),
        'policies': fields.ListOfStringsField(nullable=True),
        'policy': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
    }


@base.KeelObjectRegistry.register
class InstanceGroupList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.8'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceGroup'),
    }
