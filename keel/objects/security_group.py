"""Objects: SecurityGroup, SecurityGroupList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class SecurityGroup(base.KeelPersistentObject, base.KeelObject,
                    base.KeelObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'description': fields.StringField(),
        'id': fields.IntegerField(),
        'name': fields.StringField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(),
        'uuid': fields.UUIDField(),
    }


@base.KeelObjectRegistry.register
class SecurityGroupList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('SecurityGroup'),
    }
