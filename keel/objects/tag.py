"""Objects: Tag, TagList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Tag(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'resource_id': fields.StringField(),
        'tag': fields.StringField(),
    }


@base.KeelObjectRegistry.register
class TagList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('Tag'),
    }
