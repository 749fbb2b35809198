"""Objects: NUMATopologyLimits.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class NUMATopologyLimits(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'cpu_allocation_ratio': fields.FloatField(),
        'network_metadata': fields.ObjectField('NetworkMetadata'),
        'ram_allocation_ratio': fields.FloatField(),
    }
