"""Objects: HVSpec.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class HVSpec(base.KeelObject):
    VERSION = '1.2'

    fields = {
        'arch': fields.ArchitectureField(),
        'hv_type': fields.HVTypeField(),
        'vm_mode': fields.VMModeField(),
    }
