"""Objects: Service, ServiceList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Service(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.22'

    fields = {
        'availability_zone': fields.StringField(nullable=True),
        'binary': fields.StringField(nullable=True),
        'compute_node': fields.ObjectField('ComputeNode'),
        'disabled': fields.BooleanField(),
        'disabled_reason': fields.StringField(nullable=True),
        'forced_down': fields.BooleanField(),
        'host': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'report_count': fields.IntegerField(),
        'topic': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'version': fields.IntegerField(),
    }


@base.KeelObjectRegistry.register
class ServiceList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.19'

    fields = {
        'objects': fields.ListOfObjectsField('Service'),
    }
