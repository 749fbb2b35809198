"""Objects: KeyPair, KeyPairList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class KeyPair(base.KeelPersistentObject, base.KeelObject,
              base.KeelObjectDictCompat):
    VERSION = '1.4'

    fields = {
        'fingerprint': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'name': fields.StringField(),
        'public_key': fields.StringField(nullable=True),
        'type': fields.StringField(),
        'user_id': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class KeyPairList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('KeyPair'),
    }
