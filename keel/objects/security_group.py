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

    @property
    def identifier(self):
        """What a create asked for: the group's uuid, else its name."""
        return self.uuid if self.obj_attr_is_set("uuid") else self.name


@base.KeelObjectRegistry.register
class SecurityGroupList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('SecurityGroup'),
    }
