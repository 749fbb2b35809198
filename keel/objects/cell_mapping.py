"""Objects: CellMapping, CellMappingList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class CellMapping(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'database_connection': fields.StringField(),
        'disabled': fields.BooleanField(default=False),
        'id': fields.IntegerField(),
        'name': fields.StringField(nullable=True),
        'transport_url': fields.StringField(),
        'uuid': fields.UUIDField(),
    }


@base.KeelObjectRegistry.register
class CellMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('CellMapping'),
    }
