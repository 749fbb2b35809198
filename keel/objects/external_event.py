"""Objects: InstanceExternalEvent.
"""
from keel.objects import base
from keel.objects import fields

EVENT_NAMES = ['network-changed', 'network-vif-plugged',
               'network-vif-unplugged', 'network-vif-deleted',
               'volume-extended', 'power-update',
               'accelerator-request-bound', 'volume-reimaged']
EVENT_STATUSES = ['failed', 'completed', 'in-progress']


@base.KeelObjectRegistry.register
class InstanceExternalEvent(base.KeelObject):
    VERSION = '1.5'

    fields = {
        'data': fields.DictOfStringsField(),
        'instance_uuid': fields.UUIDField(),
        'name':
            fields.EnumField(valid_values=EVENT_NAMES),
        'status':
            fields.EnumField(valid_values=EVENT_STATUSES),
        'tag': fields.StringField(nullable=True),
    }
