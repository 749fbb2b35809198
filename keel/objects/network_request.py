"""Objects: NetworkRequest, NetworkRequestList (the networks/ports a
server create asked for)."""
from keel.objects import base
from keel.objects import fields

# Special network ids of API microversion 2.37+: let Neutron pick one
# ("auto"), or attach no network at all ("none").
NETWORK_ID_AUTO = 'auto'
NETWORK_ID_NONE = 'none'


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

    def obj_load_attr(self, attr):
        # Every field is optional and simply empty when not given.
        setattr(self, attr, None)

    @property
    def auto_allocate(self):
        return self.network_id == NETWORK_ID_AUTO

    @property
    def no_allocate(self):
        return self.network_id == NETWORK_ID_NONE

    def to_tuple(self):
        address = str(self.address) if self.address is not None else None
        return self.network_id, address, self.port_id, self.pci_request_id

    @classmethod
    def from_tuple(cls, net_tuple):
        network_id, address, port_id, pci_request_id = (
            tuple(net_tuple) + (None,) * 4)[:4]
        return cls(network_id=network_id, address=address, port_id=port_id,
                   pci_request_id=pci_request_id)


@base.KeelObjectRegistry.register
class NetworkRequestList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('NetworkRequest'),
    }

    def as_tuples(self):
        return [r.to_tuple() for r in self.objects]

    @classmethod
    def from_tuples(cls, net_tuples):
        return cls(objects=[NetworkRequest.from_tuple(t) for t in net_tuples])

    @property
    def is_single_unspecified(self):
        return (len(self.objects) == 1 and
                self.objects[0].to_tuple() == NetworkRequest().to_tuple())

    @property
    def auto_allocate(self):
        return len(self.objects) == 1 and self.objects[0].auto_allocate

    @property
    def no_allocate(self):
        return len(self.objects) == 1 and self.objects[0].no_allocate
