"""Objects: InstanceMapping, InstanceMappingList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class InstanceMapping(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.2'

    fields = {
        'cell_mapping': fields.ObjectField('CellMapping', nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'queued_for_delete': fields.BooleanField(default=False),
        'user_id': fields.StringField(),
    }


@base.KeelObjectRegistry.register
class InstanceMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceMapping'),
    }
