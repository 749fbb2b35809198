"""Objects: InstanceInfoCache.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class InstanceInfoCache(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.5'

    fields = {
        'instance_uuid': fields.UUIDField(),
        'network_info': fields.NetworkModelField(nullable=True),
    }
