"""Serializers: the request context as ``_context_*`` keys, objects as
``nova_object.*`` primitives (the object serializer is the objects package's
``KeelObjectSerializer``; this module only adds the context)."""
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from keel import context as keel_context


class RequestContextSerializer(messaging.Serializer):
    """Wraps an entity serializer and carries the RequestContext.

    oslo.messaging prefixes every key of ``serialize_context``'s dict with
    ``_context_`` on the wire, which gives Nova's frame (see the seed's
    sample message).
    """

    def __init__(self, base=None):
        self._base = base

    def serialize_entity(self, context, entity):
        if self._base is None:
            return entity
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        if self._base is None:
            return entity
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        return keel_context.RequestContext.from_dict(context)


class JsonPayloadSerializer(messaging.NoOpSerializer):
    """Notification payloads: anything JSON can carry, strings for the rest."""

    @staticmethod
    def serialize_entity(context, entity):
        return jsonutils.to_primitive(entity, convert_instances=True,
                                      fallback=str)


def object_serializer():
    """The objects package's serializer (imported late: objects import rpc)."""
    from keel.objects import base as objects_base
    return objects_base.KeelObjectSerializer()
