"""Objects: Aggregate, AggregateList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Aggregate(base.KeelPersistentObject, base.KeelObject,
                base.KeelObjectDictCompat):
    VERSION = '1.3'

    fields = {
        'hosts': fields.ListOfStringsField(nullable=True),
        'id': fields.IntegerField(),
        'metadata': fields.DictOfStringsField(nullable=True),
        'name': fields.StringField(),
        'uuid': fields.UUIDField(),
    }


@base.KeelObjectRegistry.register
class AggregateList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('Aggregate'),
    }
