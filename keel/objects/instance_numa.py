"""Objects: InstanceNUMACell, InstanceNUMATopology.
"""
from keel.objects import base
from keel.objects import fields
from keel.objects import instance_db


@base.KeelObjectRegistry.register
class InstanceNUMACell(base.KeelObject):
    VERSION = '1.6'

    fields = {
        'cpu_pinning_raw': fields.DictOfIntegersField(nullable=True),
        'cpu_policy': fields.CPUAllocationPolicyField(nullable=True),
        'cpu_thread_policy':
            fields.CPUThreadAllocationPolicyField(nullable=True),
        'cpu_topology': fields.ObjectField('VirtCPUTopology', nullable=True),
        'cpuset': fields.SetOfIntegersField(),
        'cpuset_reserved': fields.SetOfIntegersField(nullable=True),
        'id': fields.IntegerField(),
        'memory': fields.IntegerField(),
        'pagesize': fields.IntegerField(nullable=True),
        'pcpuset': fields.SetOfIntegersField(),
    }


@base.KeelObjectRegistry.register
class InstanceNUMATopology(base.KeelObject):
    VERSION = '1.3'

    fields = {
        'cells': fields.ListOfObjectsField('InstanceNUMACell'),
        'emulator_threads_policy':
            fields.CPUEmulatorThreadsPolicyField(nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
    }

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """From instance_extra.numa_topology (None when empty)."""
        return instance_db.obj_from_extra(cls, context, instance_uuid,
                                          "numa_topology")
