"""Objects: Instance, InstanceList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Instance(base.KeelPersistentObject, base.KeelObject,
               base.KeelObjectDictCompat):
    VERSION = '2.8'

    fields = {
        'access_ip_v4': fields.IPV4AddressField(nullable=True),
        'access_ip_v6': fields.IPV6AddressField(nullable=True),
        'architecture': fields.StringField(nullable=True),
        'auto_disk_config': fields.BooleanField(default=False),
        'availability_zone': fields.StringField(nullable=True),
        'cell_name': fields.StringField(nullable=True),
        'cleaned': fields.BooleanField(default=False),
        'compute_id': fields.IntegerField(nullable=True),
        'config_drive': fields.StringField(nullable=True),
        'default_ephemeral_device': fields.StringField(nullable=True),
        'default_swap_device': fields.StringField(nullable=True),
        'device_metadata':
            fields.ObjectField('InstanceDeviceMetadata', nullable=True),
        'disable_terminate': fields.BooleanField(default=False),
        'display_description': fields.StringField(nullable=True),
        'display_name': fields.StringField(nullable=True),
        'ec2_ids': fields.ObjectField('EC2Ids'),
        'ephemeral_gb': fields.IntegerField(nullable=True),
        'ephemeral_key_uuid': fields.UUIDField(nullable=True),
        'fault': fields.ObjectField('InstanceFault', nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        'hidden': fields.BooleanField(default=False),
        'host': fields.StringField(nullable=True),
        'hostname': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'image_ref': fields.StringField(nullable=True),
        'info_cache': fields.ObjectField('InstanceInfoCache', nullable=True),
        'instance_type_id': fields.IntegerField(nullable=True),
        'kernel_id': fields.StringField(nullable=True),
        'key_data': fields.StringField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'keypairs': fields.ObjectField('KeyPairList'),
        'launch_index': fields.IntegerField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'launched_on': fields.StringField(nullable=True),
        'locked': fields.BooleanField(default=False),
        'locked_by': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'metadata': fields.DictOfStringsField(),
        'migration_context':
            fields.ObjectField('MigrationContext', nullable=True),
        'new_flavor': fields.ObjectField('Flavor', nullable=True),
        'node': fields.StringField(nullable=True),
        'numa_topology':
            fields.ObjectField('InstanceNUMATopology', nullable=True),
        'old_flavor': fields.ObjectField('Flavor', nullable=True),
        'os_type': fields.StringField(nullable=True),
        'pci_devices': fields.ObjectField('PciDeviceList', nullable=True),
        'pci_requests':
            fields.ObjectField('InstancePCIRequests', nullable=True),
        'power_state': fields.IntegerField(nullable=True),
        'progress': fields.IntegerField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'ramdisk_id': fields.StringField(nullable=True),
        'reservation_id': fields.StringField(nullable=True),
        'resources': fields.ObjectField('ResourceList', nullable=True),
        'root_device_name': fields.StringField(nullable=True),
        'root_gb': fields.IntegerField(nullable=True),
        'security_groups': fields.ObjectField('SecurityGroupList'),
        'services': fields.ObjectField('ServiceList'),
        'shutdown_terminate': fields.BooleanField(default=False),
        'system_metadata': fields.DictOfNullableStringsField(),
        'tags': fields.ObjectField('TagList'),
        'task_state': fields.StringField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'trusted_certs': fields.ObjectField('TrustedCerts', nullable=True),
        'user_data': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'vcpu_model': fields.ObjectField('VirtCPUModel', nullable=True),
        'vcpus': fields.IntegerField(nullable=True),
        'vm_mode': fields.StringField(nullable=True),
        'vm_state': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class InstanceList(base.ObjectListBase, base.KeelObject):
    VERSION = '2.6'

    fields = {
        'objects': fields.ListOfObjectsField('Instance'),
    }
