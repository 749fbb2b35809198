"""Objects: ComputeNode, ComputeNodeList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class ComputeNode(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.19'

    fields = {
        'cpu_allocation_ratio': fields.FloatField(),
        'cpu_info': fields.StringField(nullable=True),
        'current_workload': fields.IntegerField(nullable=True),
        'disk_allocation_ratio': fields.FloatField(),
        'disk_available_least': fields.IntegerField(nullable=True),
        'free_disk_gb': fields.IntegerField(nullable=True),
        'free_ram_mb': fields.IntegerField(nullable=True),
        'host': fields.StringField(nullable=True),
        'host_ip': fields.IPAddressField(nullable=True),
        'hypervisor_hostname': fields.StringField(nullable=True),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(),
        'id': fields.IntegerField(),
        'local_gb': fields.IntegerField(),
        'local_gb_used': fields.IntegerField(),
        'mapped': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'memory_mb_used': fields.IntegerField(),
        'metrics': fields.StringField(nullable=True),
        'numa_topology': fields.StringField(nullable=True),
        'pci_device_pools':
            fields.ObjectField('PciDevicePoolList', nullable=True),
        'ram_allocation_ratio': fields.FloatField(),
        'running_vms': fields.IntegerField(nullable=True),
        'service_id': fields.IntegerField(nullable=True),
        'stats': fields.DictOfNullableStringsField(nullable=True),
        'supported_hv_specs': fields.ListOfObjectsField('HVSpec'),
        'uuid': fields.UUIDField(),
        'vcpus': fields.IntegerField(),
        'vcpus_used': fields.IntegerField(),
    }


@base.KeelObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.17'

    fields = {
        'objects': fields.ListOfObjectsField('ComputeNode'),
    }
