"""Objects: VirtCPUTopology.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class VirtCPUTopology(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'cores': fields.IntegerField(nullable=True, default=1),
        'sockets': fields.IntegerField(nullable=True, default=1),
        'threads': fields.IntegerField(nullable=True, default=1),
    }
