"""Objects: NetworkRequest, NetworkRequestList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class NetworkRequest(base.KeelObject):
    VERSION = '1.3'

    fields = {
        'address': fields.IPAddressField(nullable=True),
        'arq_uuid': fields.UUIDField(nullable=True),
        'device_profile': fields.StringField(nullable=True),
        'network_id': fields.StringField(nullable=True),
        'pci_request_id': fields.UUIDField(nullable=True),
        'port_id': fields.UUIDField(nullable=True),
        'tag': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class NetworkRequestList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('NetworkRequest'),
    }
