"""Objects: InstancePCIRequest, InstancePCIRequests.
"""
from keel.objects import base
from keel.objects import fields
from keel.objects import instance_db


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

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """From instance_extra.pci_requests (None when empty)."""
        return instance_db.obj_from_extra(cls, context, instance_uuid,
                                          "pci_requests")
