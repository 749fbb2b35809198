"""Objects: HostMapping, HostMappingList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class HostMapping(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'cell_mapping': fields.ObjectField('CellMapping'),
        'host': fields.StringField(),
        'id': fields.IntegerField(),
    }


@base.KeelObjectRegistry.register
class HostMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('HostMapping'),
    }
