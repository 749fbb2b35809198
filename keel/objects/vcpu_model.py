"""Objects: VirtCPUModel, VirtCPUFeature.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class VirtCPUModel(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'arch': fields.ArchitectureField(nullable=True),
        'features': fields.ListOfObjectsField('VirtCPUFeature', default=[]),
        'match': fields.CPUMatchField(nullable=True),
        'mode': fields.CPUModeField(nullable=True),
        'model': fields.StringField(nullable=True),
        'topology': fields.ObjectField('VirtCPUTopology', nullable=True),
        'vendor': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class VirtCPUFeature(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'name': fields.StringField(),
        'policy': fields.CPUFeaturePolicyField(nullable=True),
    }
