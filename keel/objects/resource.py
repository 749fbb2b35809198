"""Objects: Resource, ResourceList, ResourceMetadata.
"""
from keel.objects import base
from keel.objects import fields
from keel.objects import instance_db


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

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """From instance_extra.resources (None when empty)."""
        return instance_db.obj_from_extra(cls, context, instance_uuid,
                                          "resources")


@base.KeelObjectRegistry.register
class ResourceMetadata(base.KeelObject):
    VERSION = '1.0'

    fields = {}
