"""Objects: MigrationContext.
"""
from keel.objects import base
from keel.objects import fields
from keel.objects import instance_db


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

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """From instance_extra.migration_context (None when empty)."""
        return instance_db.obj_from_extra(cls, context, instance_uuid,
                                          "migration_context")
