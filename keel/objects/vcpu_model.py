"""Objects: VirtCPUModel, VirtCPUFeature.
"""
from keel.objects import base
from keel.objects import fields
from keel.objects import instance_db


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

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """From instance_extra.vcpu_model (None when empty)."""
        return instance_db.obj_from_extra(cls, context, instance_uuid,
                                          "vcpu_model")


@base.KeelObjectRegistry.register
class VirtCPUFeature(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'name': fields.StringField(),
        'policy': fields.CPUFeaturePolicyField(nullable=True),
    }
