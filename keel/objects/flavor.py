"""Objects: Flavor, FlavorList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Flavor(base.KeelPersistentObject, base.KeelObject,
             base.KeelObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'description': fields.StringField(nullable=True),
        'disabled': fields.BooleanField(),
        'ephemeral_gb': fields.IntegerField(),
        'extra_specs': fields.DictOfStringsField(),
        'flavorid': fields.StringField(),
        'id': fields.IntegerField(),
        'is_public': fields.BooleanField(),
        'memory_mb': fields.IntegerField(),
        'name': fields.StringField(nullable=True),
        'projects': fields.ListOfStringsField(),
        'root_gb': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(nullable=True, default=1.0),
        'swap': fields.IntegerField(),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'vcpus': fields.IntegerField(),
    }


@base.KeelObjectRegistry.register
class FlavorList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('Flavor'),
    }
