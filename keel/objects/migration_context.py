"""Objects: MigrationContext.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class MigrationContext(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.2'

    fields = {
        'instance_uuid': fields.UUIDField(),
        'migration_id': fields.IntegerField(),
        'new_numa_topology':
            fields.ObjectField('InstanceNUMATopology', nullable=True),
        'new_pci_devices': fields.ObjectField('PciDeviceList', nullable=True),
        'new_pci_requests':
            fields.ObjectField('InstancePCIRequests', nullable=True),
        'new_resources': fields.ObjectField('ResourceList', nullable=True),
        'old_numa_topology':
            fields.ObjectField('InstanceNUMATopology', nullable=True),
        'old_pci_devices': fields.ObjectField('PciDeviceList', nullable=True),
        'old_pci_requests':
            fields.ObjectField('InstancePCIRequests', nullable=True),
        'old_resources': fields.ObjectField('ResourceList', nullable=True),
    }
