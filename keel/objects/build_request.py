"""Objects: BuildRequest, BuildRequestList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class BuildRequest(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'block_device_mappings': fields.ObjectField('BlockDeviceMappingList'),
        'id': fields.IntegerField(),
        'instance': fields.ObjectField('Instance'),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'tags': fields.ObjectField('TagList'),
    }


@base.KeelObjectRegistry.register
class BuildRequestList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('BuildRequest'),
    }
