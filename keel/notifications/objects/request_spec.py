"""RequestSpecPayload (1.1) and what it nests: image, NUMA topology, PCI
requests, destination, retries, server group."""
from keel.notifications import base
from keel.notifications.objects import common
from keel.objects import fields
from keel.objects import image_meta as image_meta_obj


@base.notification
class ImageMetaPropsPayload(base.NotificationPayloadBase):
    """Every image property the ImageMetaProps object knows; only the ones
    set on the image appear in the payload (no wall of nulls)."""
    VERSION = '1.19'
    SCHEMA = {k: ('image_meta_props', k)
              for k in image_meta_obj.ImageMetaProps.fields}
    fields = dict(image_meta_obj.ImageMetaProps.fields)

    def __init__(self, image_meta_props):
        super().__init__()
        self.populate_schema(set_none=False,
                             image_meta_props=image_meta_props)


@base.notification
class ImageMetaPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    _NAMES = ('id', 'name', 'status', 'visibility', 'protected', 'checksum',
              'owner', 'size', 'virtual_size', 'container_format',
              'disk_format', 'created_at', 'updated_at', 'tags',
              'direct_url', 'min_ram', 'min_disk')
    SCHEMA = {k: ('image_meta', k) for k in _NAMES}
    fields = {
        'id': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'status': fields.StringField(nullable=True),
        'visibility': fields.StringField(nullable=True),
        'protected': fields.FlexibleBooleanField(nullable=True),
        'checksum': fields.StringField(nullable=True),
        'owner': fields.StringField(nullable=True),
        'size': fields.IntegerField(nullable=True),
        'virtual_size': fields.IntegerField(nullable=True),
        'container_format': fields.StringField(nullable=True),
        'disk_format': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'tags': fields.ListOfStringsField(nullable=True),
        'direct_url': fields.StringField(nullable=True),
        'min_ram': fields.IntegerField(nullable=True),
        'min_disk': fields.IntegerField(nullable=True),
        'properties': fields.ObjectField('ImageMetaPropsPayload'),
    }

    def __init__(self, image_meta):
        super().__init__()
        props = (image_meta.properties
                 if image_meta.obj_attr_is_set('properties')
                 else image_meta_obj.ImageMetaProps())
        self.properties = ImageMetaPropsPayload(image_meta_props=props)
        self.populate_schema(image_meta=image_meta)


@base.notification
class VirtCPUTopologyPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {k: ('virt_cpu_topology', k)
              for k in ('sockets', 'cores', 'threads')}
    fields = {
        'sockets': fields.IntegerField(nullable=True, default=1),
        'cores': fields.IntegerField(nullable=True, default=1),
        'threads': fields.IntegerField(nullable=True, default=1),
    }

    def __init__(self, virt_cpu_topology):
        super().__init__()
        self.populate_schema(virt_cpu_topology=virt_cpu_topology)


@base.notification
class InstanceNUMACellPayload(base.NotificationPayloadBase):
    VERSION = '1.2'
    SCHEMA = {k: ('numa_cell', k) for k in (
        'id', 'cpuset', 'pcpuset', 'cpuset_reserved', 'memory', 'pagesize',
        'cpu_pinning_raw', 'cpu_policy', 'cpu_thread_policy')}
    fields = {
        'id': fields.IntegerField(),
        'cpuset': fields.SetOfIntegersField(),
        'pcpuset': fields.SetOfIntegersField(),
        'cpuset_reserved': fields.SetOfIntegersField(nullable=True),
        'memory': fields.IntegerField(),
        'pagesize': fields.IntegerField(nullable=True),
        'cpu_topology': fields.ObjectField('VirtCPUTopologyPayload',
                                           nullable=True),
        'cpu_pinning_raw': fields.DictOfIntegersField(nullable=True),
        'cpu_policy': fields.CPUAllocationPolicyField(nullable=True),
        'cpu_thread_policy': fields.CPUThreadAllocationPolicyField(
            nullable=True),
    }

    def __init__(self, numa_cell):
        super().__init__()
        topo = (numa_cell.cpu_topology
                if numa_cell.obj_attr_is_set('cpu_topology') else None)
        self.cpu_topology = (VirtCPUTopologyPayload(topo)
                             if topo is not None else None)
        self.populate_schema(numa_cell=numa_cell)


@base.notification
class InstanceNUMATopologyPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {
        'instance_uuid': ('numa_topology', 'instance_uuid'),
        'emulator_threads_policy': ('numa_topology',
                                    'emulator_threads_policy'),
    }
    fields = {
        'instance_uuid': fields.UUIDField(),
        'cells': fields.ListOfObjectsField('InstanceNUMACellPayload'),
        'emulator_threads_policy': fields.CPUEmulatorThreadsPolicyField(
            nullable=True),
    }

    def __init__(self, numa_topology):
        super().__init__()
        self.cells = [InstanceNUMACellPayload(c) for c in numa_topology.cells]
        self.populate_schema(numa_topology=numa_topology)


@base.notification
class InstancePCIRequestPayload(base.NotificationPayloadBase):
    VERSION = '1.1'
    SCHEMA = {k: ('pci_request', k) for k in (
        'count', 'spec', 'alias_name', 'request_id', 'numa_policy')}
    fields = {
        'count': fields.IntegerField(),
        'spec': fields.ListOfDictOfNullableStringsField(),
        'alias_name': fields.StringField(nullable=True),
        'request_id': fields.UUIDField(nullable=True),
        'numa_policy': fields.PCINUMAAffinityPolicyField(nullable=True),
    }

    def __init__(self, pci_request):
        super().__init__()
        self.populate_schema(pci_request=pci_request)


@base.notification
class InstancePCIRequestsPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {'instance_uuid': ('pci_requests', 'instance_uuid')}
    fields = {
        'instance_uuid': fields.UUIDField(),
        'requests': fields.ListOfObjectsField('InstancePCIRequestPayload'),
    }

    def __init__(self, pci_requests):
        super().__init__()
        self.requests = [InstancePCIRequestPayload(r)
                         for r in pci_requests.requests]
        self.populate_schema(pci_requests=pci_requests)


@base.notification
class CellMappingPayload(base.NotificationPayloadBase):
    VERSION = '2.0'
    SCHEMA = {k: ('cell', k) for k in ('uuid', 'name', 'disabled')}
    fields = {
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'disabled': fields.BooleanField(default=False),
    }

    def __init__(self, cell):
        super().__init__()
        self.populate_schema(cell=cell)


@base.notification
class DestinationPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {'aggregates': ('destination', 'aggregates')}
    fields = {
        'host': fields.StringField(),
        'node': fields.StringField(nullable=True),
        'cell': fields.ObjectField('CellMappingPayload', nullable=True),
        'aggregates': fields.ListOfStringsField(nullable=True, default=None),
    }

    def __init__(self, destination):
        super().__init__()
        for name in ('host', 'node'):
            if (destination.obj_attr_is_set(name) and
                    getattr(destination, name) is not None):
                setattr(self, name, getattr(destination, name))
        if (destination.obj_attr_is_set('cell') and
                destination.cell is not None):
            self.cell = CellMappingPayload(destination.cell)
        self.populate_schema(destination=destination)


@base.notification
class SchedulerRetriesPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {'num_attempts': ('retry', 'num_attempts')}
    fields = {
        'num_attempts': fields.IntegerField(),
        'hosts': fields.ListOfStringsField(),
    }

    def __init__(self, retry):
        super().__init__()
        self.hosts = [node.hypervisor_hostname for node in retry.hosts]
        self.populate_schema(retry=retry)


@base.notification
class ServerGroupPayload(base.NotificationPayloadBase):
    VERSION = '1.1'
    SCHEMA = {k: ('group', k) for k in (
        'uuid', 'name', 'user_id', 'project_id', 'policies', 'members',
        'hosts', 'policy', 'rules')}
    fields = {
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'policies': fields.ListOfStringsField(nullable=True),
        'members': fields.ListOfStringsField(nullable=True),
        'hosts': fields.ListOfStringsField(nullable=True),
        'policy': fields.StringField(nullable=True),
        'rules': fields.DictOfStringsField(),
    }

    def __init__(self, group):
        super().__init__()
        self.populate_schema(group=group)


def _is_set(obj, name):
    return obj.obj_attr_is_set(name) and getattr(obj, name)


@base.notification
class RequestSpecPayload(base.NotificationPayloadBase):
    VERSION = '1.1'
    SCHEMA = {k: ('request_spec', k) for k in (
        'ignore_hosts', 'instance_uuid', 'project_id', 'user_id',
        'availability_zone', 'num_instances', 'scheduler_hints')}
    fields = {
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('FlavorPayload', nullable=True),
        'force_hosts': fields.StringField(nullable=True),
        'force_nodes': fields.StringField(nullable=True),
        'ignore_hosts': fields.ListOfStringsField(nullable=True),
        'instance_group': fields.ObjectField('ServerGroupPayload',
                                             nullable=True),
        'image': fields.ObjectField('ImageMetaPayload', nullable=True),
        'numa_topology': fields.ObjectField('InstanceNUMATopologyPayload',
                                            nullable=True),
        'pci_requests': fields.ObjectField('InstancePCIRequestsPayload',
                                           nullable=True),
        'num_instances': fields.IntegerField(default=1),
        'requested_destination': fields.ObjectField('DestinationPayload',
                                                    nullable=True),
        'retry': fields.ObjectField('SchedulerRetriesPayload',
                                    nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(nullable=True),
        'security_groups': fields.ListOfStringsField(),
    }

    def __init__(self, request_spec):
        super().__init__()
        # Filled in below where unset: work on a copy, the caller's spec
        # may still be saved.
        spec = request_spec.obj_clone()
        self.flavor = (common.FlavorPayload(spec.flavor)
                       if _is_set(spec, 'flavor') else None)
        self.image = (ImageMetaPayload(spec.image)
                      if _is_set(spec, 'image') else None)
        numa = spec.numa_topology if _is_set(spec, 'numa_topology') else None
        if numa is not None and not numa.obj_attr_is_set('instance_uuid'):
            numa.instance_uuid = spec.instance_uuid
        self.numa_topology = (InstanceNUMATopologyPayload(numa)
                              if numa is not None else None)
        pci = spec.pci_requests if _is_set(spec, 'pci_requests') else None
        if pci is not None and not pci.obj_attr_is_set('instance_uuid'):
            pci.instance_uuid = spec.instance_uuid
        self.pci_requests = (InstancePCIRequestsPayload(pci)
                             if pci is not None else None)
        self.requested_destination = (
            DestinationPayload(spec.requested_destination)
            if _is_set(spec, 'requested_destination') else None)
        self.retry = (SchedulerRetriesPayload(spec.retry)
                      if _is_set(spec, 'retry') else None)
        groups = spec.security_groups if _is_set(spec, 'security_groups') \
            else []
        # Nova's SecurityGroup has ``identifier`` (name or uuid); ours may
        # only have the name.
        self.security_groups = [
            g.identifier if 'identifier' in g.fields and g.obj_attr_is_set(
                'identifier') else g.name for g in groups]
        self.instance_group = (ServerGroupPayload(spec.instance_group)
                               if _is_set(spec, 'instance_group') else None)
        # Nova shows the first forced host/node only (a string).
        self.force_hosts = (spec.force_hosts[0]
                            if _is_set(spec, 'force_hosts') else None)
        self.force_nodes = (spec.force_nodes[0]
                            if _is_set(spec, 'force_nodes') else None)
        for name in ('ignore_hosts', 'project_id', 'user_id',
                     'availability_zone', 'scheduler_hints'):
            if not spec.obj_attr_is_set(name):
                setattr(spec, name, None)
        if not spec.obj_attr_is_set('num_instances'):
            spec.num_instances = 1
        self.populate_schema(request_spec=spec)
