"""Objects: InstanceAction, InstanceActionList, InstanceActionEvent,
InstanceActionEventList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class InstanceAction(base.KeelPersistentObject, base.KeelObject,
                     base.KeelObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'action': fields.StringField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(nullable=True),
        'message': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'request_id': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'user_id': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class InstanceActionList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceAction'),
    }


@base.KeelObjectRegistry.register
class InstanceActionEvent(base.KeelPersistentObject, base.KeelObject,
                          base.KeelObjectDictCompat):
    VERSION = '1.4'

    fields = {
        'action_id': fields.IntegerField(nullable=True),
        'details': fields.StringField(nullable=True),
        'event': fields.StringField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'host': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'result': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'traceback': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class InstanceActionEventList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceActionEvent'),
    }
