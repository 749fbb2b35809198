"""Objects: Selection.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Selection(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'allocation_request': fields.StringField(nullable=True),
        'allocation_request_version': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'cell_uuid': fields.UUIDField(),
        'compute_node_uuid': fields.UUIDField(),
        'limits': fields.ObjectField('SchedulerLimits', nullable=True),
        'nodename': fields.StringField(),
        'service_host': fields.StringField(),
    }
