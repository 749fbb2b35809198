"""Payloads of API-side resources: service status, aggregate (server
groups use request_spec.ServerGroupPayload, flavors common.FlavorPayload).
"""
from keel.notifications import base
from keel.objects import fields


@base.notification
class ServiceStatusPayload(base.NotificationPayloadBase):
    VERSION = '1.1'
    SCHEMA = {k: ('service', k) for k in (
        'host', 'binary', 'topic', 'report_count', 'disabled',
        'disabled_reason', 'availability_zone', 'last_seen_up',
        'forced_down', 'version', 'uuid')}
    fields = {
        'host': fields.StringField(nullable=True),
        'binary': fields.StringField(nullable=True),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.IntegerField(),
        'disabled': fields.BooleanField(),
        'disabled_reason': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'forced_down': fields.BooleanField(),
        'version': fields.IntegerField(),
        'uuid': fields.UUIDField(),
    }

    def __init__(self, service):
        super().__init__()
        self.populate_schema(service=service)


@base.notification
class AggregatePayload(base.NotificationPayloadBase):
    VERSION = '1.1'
    SCHEMA = {k: ('aggregate', k) for k in (
        'id', 'uuid', 'name', 'hosts', 'metadata')}
    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(nullable=False),
        'name': fields.StringField(),
        'hosts': fields.ListOfStringsField(nullable=True),
        'metadata': fields.DictOfStringsField(nullable=True),
    }

    def __init__(self, aggregate):
        super().__init__()
        self.populate_schema(aggregate=aggregate)
