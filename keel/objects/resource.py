"""Objects: Resource, ResourceList, ResourceMetadata.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Resource(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'identifier': fields.StringField(),
        'metadata': fields.ObjectField('ResourceMetadata'),
        'provider_uuid': fields.UUIDField(),
        'resource_class': fields.ResourceClassField(),
    }


@base.KeelObjectRegistry.register
class ResourceList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Resource'),
    }


@base.KeelObjectRegistry.register
class ResourceMetadata(base.KeelObject):
    VERSION = '1.0'

    fields = {}
