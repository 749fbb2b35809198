"""Objects: RequestSpec, Destination, SchedulerRetries, SchedulerLimits,
RequestGroup, RequestLevelParams.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class RequestSpec(base.KeelObject):
    VERSION = '1.15'

    fields = {
        'availability_zone': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        'force_hosts': fields.ListOfStringsField(nullable=True),
        'force_nodes': fields.ListOfStringsField(nullable=True),
        'id': fields.IntegerField(),
        'ignore_hosts': fields.ListOfStringsField(nullable=True),
        'image': fields.ObjectField('ImageMeta', nullable=True),
        'instance_group': fields.ObjectField('InstanceGroup', nullable=True),
        'instance_uuid': fields.UUIDField(),
        'is_bfv': fields.BooleanField(),
        'limits': fields.ObjectField('SchedulerLimits', nullable=True),
        'network_metadata': fields.ObjectField('NetworkMetadata'),
        'num_instances': fields.IntegerField(default=1),
        'numa_topology':
            fields.ObjectField('InstanceNUMATopology', nullable=True),
        'pci_requests':
            fields.ObjectField('InstancePCIRequests', nullable=True),
        'project_id': fields.StringField(nullable=True),
        'request_level_params': fields.ObjectField('RequestLevelParams'),
        'requested_destination':
            fields.ObjectField('Destination', nullable=True),
        'requested_networks': fields.ObjectField('NetworkRequestList'),
        'requested_resources':
            fields.ListOfObjectsField('RequestGroup', nullable=True),
        'retry': fields.ObjectField('SchedulerRetries', nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(nullable=True),
        'security_groups': fields.ObjectField('SecurityGroupList'),
        'user_id': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class Destination(base.KeelObject):
    VERSION = '1.4'

    fields = {
        'aggregates': fields.ListOfStringsField(nullable=True),
        'allow_cross_cell_move': fields.BooleanField(default=False),
        'cell': fields.ObjectField('CellMapping', nullable=True),
        'forbidden_aggregates': fields.SetOfStringsField(nullable=True),
        'host': fields.StringField(),
        'node': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class SchedulerRetries(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'hosts': fields.ObjectField('ComputeNodeList'),
        'num_attempts': fields.IntegerField(),
    }


@base.KeelObjectRegistry.register
class SchedulerLimits(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'disk_gb': fields.IntegerField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'numa_topology':
            fields.ObjectField('NUMATopologyLimits', nullable=True),
        'vcpu': fields.IntegerField(nullable=True),
    }


@base.KeelObjectRegistry.register
class RequestGroup(base.KeelObject):
    VERSION = '1.3'

    fields = {
        'aggregates': fields.ListOfListsOfStringsField(default=[]),
        'forbidden_aggregates': fields.SetOfStringsField(default=set()),
        'forbidden_traits': fields.SetOfStringsField(default=set()),
        'in_tree': fields.UUIDField(nullable=True),
        'provider_uuids': fields.ListOfUUIDField(default=[]),
        'requester_id': fields.StringField(nullable=True),
        'required_traits': fields.SetOfStringsField(default=set()),
        'resources': fields.DictOfIntegersField(default={}),
        'use_same_provider': fields.BooleanField(default=True),
    }


@base.KeelObjectRegistry.register
class RequestLevelParams(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'root_forbidden': fields.SetOfStringsField(default=set()),
        'root_required': fields.SetOfStringsField(default=set()),
        'same_subtree': fields.ListOfListsOfStringsField(default=[]),
    }
