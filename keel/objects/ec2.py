"""Objects: EC2Ids.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class EC2Ids(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'ami_id': fields.StringField(nullable=True),
        'instance_id': fields.StringField(),
        'kernel_id': fields.StringField(nullable=True),
        'ramdisk_id': fields.StringField(nullable=True),
    }
