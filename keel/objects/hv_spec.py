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

    @classmethod
    def from_list(cls, data):
        """From the [arch, hv_type, vm_mode] triple stored in the DB."""
        return cls(arch=data[0], hv_type=data[1], vm_mode=data[2])

    def to_list(self):
        return [self.arch, self.hv_type, self.vm_mode]
