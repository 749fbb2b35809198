"""Versioned notification machinery: the notification object, its event
type and publisher, and the payload base whose ``SCHEMA`` copies fields from
source objects.

The classes are oslo.versionedobjects in Nova's namespace with Nova's names
and versions, so the payload a consumer reads is the same JSON
(``nova_object.name/namespace/version/data``). They are *not* put in the RPC
object registry (``register_if(False)``): they never travel as RPC arguments
and must not shadow RPC objects of the same name.
"""
import logging

from oslo_versionedobjects import exception as ovo_exc

from keel import exception
from keel import notifications
from keel.notifications import fields as nf
from keel.objects import base
from keel.objects import fields

LOG = logging.getLogger(__name__)

# register_if(False) gives a class the ovo field machinery without putting
# it in the RPC registry (nor in keel.objects).
register_notification = base.KeelObjectRegistry.register_if(False)


class NotificationRegistry:
    """The catalogue of notification and payload classes by name."""

    classes = {}

    @classmethod
    def register(cls, obj_cls):
        obj_cls = register_notification(obj_cls)
        cls.classes[obj_cls.obj_name()] = obj_cls
        return obj_cls


# What reading a field that is not loaded can raise: not lazy-loadable, no
# context to load with, or (an instance still in its BuildRequest) no row.
NOT_LOADABLE = (exception.ObjectActionError, NotImplementedError,
                exception.OrphanedObjectError, ovo_exc.OrphanedObjectError,
                exception.InstanceNotFound)


def notification(obj_cls):
    """Class decorator for concrete notification and payload classes."""
    return NotificationRegistry.register(obj_cls)


class NotificationObject(base.KeelObject):
    """Base of every notification object.

    Built on the fly at emit time, so every field would read as changed;
    a change list means nothing to a consumer, so a notification object
    never reports one (and its primitive has no ``nova_object.changes``).
    Answering "nothing changed" directly, instead of resetting the change
    lists of the whole payload tree, is most of the cost of building one.
    """
    VERSION = '1.0'

    def obj_what_changed(self):
        return set()

    def obj_reset_changes(self, fields=None, recursive=False):
        self._changed_fields.clear()


@notification
class EventType(NotificationObject):
    # Not on the wire (the envelope carries the event type as a string).
    VERSION = '1.0'

    fields = {
        'object': fields.StringField(nullable=False),
        'action': nf.NotificationActionField(nullable=False),
        'phase': nf.NotificationPhaseField(nullable=True),
    }

    def __init__(self, object, action, phase=None):
        super().__init__()
        self.object = object
        self.action = action
        self.phase = phase

    def to_notification_event_type_field(self):
        """``<object>.<action>[.<phase>]`` as on the wire."""
        if self.phase:
            return '%s.%s.%s' % (self.object, self.action, self.phase)
        return '%s.%s' % (self.object, self.action)


class NotificationPayloadBase(NotificationObject):
    """Base of payloads.

    ``SCHEMA`` maps a payload field to ``(source_name, source_field)``;
    ``populate_schema(source_name=obj, ...)`` copies them. A source field
    that cannot be read (not loadable, orphaned object) becomes None, as in
    Nova, rather than failing the notification.
    """
    SCHEMA = {}
    VERSION = '1.0'

    def __init__(self):
        super().__init__()
        self.populated = not self.SCHEMA

    def populate_schema(self, set_none=True, **kwargs):
        """Copy the SCHEMA fields; with ``set_none=False`` a field unset on
        the source stays unset here (and so out of the JSON)."""
        for key, (source_name, field) in self.SCHEMA.items():
            source = kwargs[source_name]
            if (not set_none and hasattr(source, 'obj_attr_is_set') and
                    not source.obj_attr_is_set(field)):
                continue
            try:
                value = getattr(source, field)
            except NOT_LOADABLE as e:
                LOG.debug("Defaulting %s.%s to None: %s",
                          self.__class__.__name__, key, e)
                value = None
            setattr(self, key, value)
        self.populated = True


@notification
class NotificationPublisher(NotificationObject):
    VERSION = '2.2'

    fields = {
        'host': fields.StringField(nullable=False),
        'source': nf.NotificationSourceField(nullable=False),
    }

    def __init__(self, host, source):
        super().__init__()
        self.host = host
        self.source = source

    @classmethod
    def from_service_obj(cls, service):
        source = nf.NotificationSource.get_source_by_binary(service.binary)
        return cls(host=service.host, source=source)


class NotificationBase(NotificationObject):
    """A versioned notification; subclasses add a ``payload`` field."""
    VERSION = '1.0'

    fields = {
        'priority': nf.NotificationPriorityField(),
        'event_type': fields.ObjectField('EventType'),
        'publisher': fields.ObjectField('NotificationPublisher'),
    }

    def emit(self, context):
        """Send it on the versioned topics (no-op when those are off)."""
        if not notifications.versioned_enabled():
            return
        assert self.payload.populated
        publisher_id = '%s:%s' % (self.publisher.source, self.publisher.host)
        notifier = notifications.get_versioned_notifier(publisher_id)
        send = getattr(notifier, self.priority)
        send(context, self.event_type.to_notification_event_type_field(),
             self.payload.obj_to_primitive())
