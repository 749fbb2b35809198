"""Objects: InstancePCIRequest, InstancePCIRequests.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class InstancePCIRequest(base.KeelObject):
    VERSION = '1.4'

    fields = {
        'alias_name': fields.StringField(nullable=True),
        'count': fields.IntegerField(),
        'is_new': fields.BooleanField(default=False),
        'numa_policy': fields.PCINUMAAffinityPolicyField(nullable=True),
        'request_id': fields.UUIDField(nullable=True),
        'requester_id': fields.StringField(nullable=True),
        'spec': fields.ListOfDictOfNullableStringsField(),
    }


@base.KeelObjectRegistry.register
class InstancePCIRequests(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'instance_uuid': fields.UUIDField(),
        'requests': fields.ListOfObjectsField('InstancePCIRequest'),
    }
