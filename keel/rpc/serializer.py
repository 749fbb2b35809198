"""Serializers: the request context as ``_context_*`` keys, objects as
``nova_object.*`` primitives (the object serializer is the objects package's
``KeelObjectSerializer``; this module only adds the context)."""
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_versionedobjects import base as ovo_base

from keel import context as keel_context

# Values oslo.versionedobjects' serializer passes through unchanged.
_SCALARS = frozenset((str, int, float, bool, type(None)))


class Primitives(dict):
    """A dict an endpoint returns whose values are primitives already
    (made by the fields' to_primitive: no object or set inside, nothing
    shared with a live object), or sets of strings: sent as a plain dict
    without walking every value of every nested primitive again. Same
    content as the walk gives, so the same message."""


class RequestContextSerializer(messaging.Serializer):
    """Wraps an entity serializer and carries the RequestContext.

    oslo.messaging prefixes every key of ``serialize_context``'s dict with
    ``_context_`` on the wire, which gives Nova's frame (see the seed's
    sample message).

    With an object serializer as the base, plain dicts, lists, tuples and
    scalars are walked here rather than by oslo.versionedobjects' generic
    ``_process_iterable`` (a method call and several isinstance tests per
    value): a conductor's answers are mostly primitives already (changed
    fields, backported objects, version manifests) and were walked value by
    value. The result is the same -- new dicts/lists/tuples, objects turned
    into (or rebuilt from) primitives; anything else (sets, subclasses,
    objects) still goes through the base serializer.
    """

    def __init__(self, base=None):
        self._base = base
        self._walk = isinstance(base, ovo_base.VersionedObjectSerializer)
        if self._walk:
            self._namekey = (base.OBJ_BASE_CLASS.OBJ_SERIAL_NAMESPACE
                             + ".name")

    def serialize_entity(self, context, entity):
        if self._base is None:
            return entity
        if not self._walk:
            return self._base.serialize_entity(context, entity)
        return self._serialize(context, entity)

    def _serialize(self, context, entity):
        kind = type(entity)
        if kind in _SCALARS:
            return entity
        if kind is dict:
            return {k: self._serialize(context, v) for k, v in entity.items()}
        if kind is Primitives:
            # A set (the changed-field names) becomes the list the walk
            # makes of it; field primitives hold no sets (Set fields are
            # sent as tuples).
            return {k: (list(v) if type(v) is set else v)
                    for k, v in entity.items()}
        if kind is list:
            return [self._serialize(context, v) for v in entity]
        if kind is tuple:
            return tuple([self._serialize(context, v) for v in entity])
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        if self._base is None:
            return entity
        if not self._walk:
            return self._base.deserialize_entity(context, entity)
        return self._deserialize(context, entity)

    def _deserialize(self, context, entity):
        kind = type(entity)
        if kind in _SCALARS:
            return entity
        if kind is dict:
            if self._namekey in entity:     # an object's primitive
                return self._base.deserialize_entity(context, entity)
            return {k: self._deserialize(context, v)
                    for k, v in entity.items()}
        if kind is list:
            return [self._deserialize(context, v) for v in entity]
        if kind is tuple:
            return tuple([self._deserialize(context, v) for v in entity])
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
