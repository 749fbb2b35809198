"""Notifications on the message bus: legacy (unversioned) and versioned.

Both kinds go out through oslo.messaging notifiers on the notification
transport (``keel.rpc.transport.get_notification_transport()``):

* legacy: ``get_notifier(service, host)`` -> publisher ``<service>.<host>``,
  topics from [oslo_messaging_notifications]/topics; payloads are dicts
  (``keel.notifications.legacy``);
* versioned: ``get_versioned_notifier(publisher_id)`` -> publisher
  ``<source>:<host>`` (``nova-compute:host1``), topics from
  [notifications]/versioned_notifications_topics; payloads are
  ``nova_object.*`` primitives (``keel.notifications.objects``).

Where things are:

* ``instance``: instance create/action/delete/usage helpers, send_update,
  compute-task failures (legacy + versioned);
* ``instance_actions``: rebuild, rescue, resize_prep, snapshot, volume
  attach/detach/swap, instance.exists;
* ``others``: scheduler, keypair, service, flavor, aggregate, server group;
* ``exception_wrapper``: ``@wrap_exception`` for RPC endpoints;
* ``legacy``: the unversioned payload dicts; ``objects``: the versioned
  payloads; ``testing``: a capture for tests.

[notifications]/notification_format picks the kinds that are sent. With
[oslo_messaging_notifications]/driver empty or ``noop`` nothing is sent and,
more to the point, nothing is built: callers ask ``legacy_enabled()`` /
``versioned_enabled()`` (two option reads) before building any payload.
"""
import threading

import oslo_messaging as messaging

from keel.conf import CONF

_lock = threading.Lock()
_notifiers = {}

LEGACY_FORMATS = ('both', 'unversioned')
VERSIONED_FORMATS = ('both', 'versioned')


# The switches below are read on every helper call, and an oslo.config
# lookup costs ~3 us. They are kept in oslo.config's own value cache under a
# key no option can have: set_override/clear_override/reload empty that
# cache, so a changed option is seen at once. (Without that private cache
# the flags are simply computed each time.)
_FLAGS_KEY = ('__keel_notifications__', 'flags')


def _compute_flags():
    enabled = False
    for driver in CONF.oslo_messaging_notifications.driver:
        if driver and driver != 'noop':
            enabled = True
            break
    fmt = CONF.notifications.notification_format
    return (enabled,
            enabled and fmt in LEGACY_FORMATS,
            enabled and fmt in VERSIONED_FORMATS,
            CONF.notifications.notify_on_state_change if enabled else None)


def _flags():
    cache = getattr(CONF, '_ConfigOpts__cache', None)
    if cache is None:
        return _compute_flags()
    flags = cache.get(_FLAGS_KEY)
    if flags is None:
        flags = cache[_FLAGS_KEY] = _compute_flags()
    return flags


def notifications_enabled():
    """True when some notification driver other than noop is configured."""
    return _flags()[0]


def legacy_enabled():
    return _flags()[1]


def versioned_enabled():
    return _flags()[2]


def state_change_mode():
    """[notifications]/notify_on_state_change, None while notifications
    are off altogether."""
    return _flags()[3]


class _Serializer(messaging.Serializer):
    """Request context as ``_context_*`` keys, payloads as JSON values.

    oslo.messaging hands a plain dict for a missing context (None or {}),
    so the context side accepts both.
    """

    def serialize_entity(self, context, entity):
        from keel.rpc import serializer as rpc_serializer
        return rpc_serializer.JsonPayloadSerializer.serialize_entity(
            context, entity)

    def deserialize_entity(self, context, entity):
        return entity

    def serialize_context(self, context):
        if isinstance(context, dict):
            return context
        return context.to_dict()

    def deserialize_context(self, context):
        from keel import context as keel_context
        return keel_context.RequestContext.from_dict(context)


class NoopNotifier:
    """What ``get_notifier`` hands out while that kind is off: every
    priority method returns at once."""

    def is_enabled(self):
        return False

    def prepare(self, publisher_id=None, retry=None):
        return self

    def _nothing(self, ctxt, event_type, payload):
        return None

    audit = critical = debug = info = error = sample = warn = warning = \
        _nothing


NOOP = NoopNotifier()


def _transport():
    from keel.rpc import transport as rpc_transport
    return rpc_transport.get_notification_transport()


def _base_notifier(topics):
    """One oslo.messaging Notifier per (transport, drivers, topics).

    Building a Notifier loads its drivers through stevedore (slow), so it is
    built once; the key follows the options, so a changed option (tests,
    reload) gets a new one.
    """
    transport = _transport()
    if transport is None:
        return None
    drivers = tuple(CONF.oslo_messaging_notifications.driver)
    key = (transport, drivers, tuple(topics) if topics else None)
    notifier = _notifiers.get(key)
    if notifier is None:
        with _lock:
            notifier = _notifiers.get(key)
            if notifier is None:
                # Notifiers of a transport that was replaced (cleanup,
                # tests) are dropped rather than kept alive here.
                for old in [k for k in _notifiers if k[0] is not transport]:
                    del _notifiers[old]
                notifier = messaging.Notifier(
                    transport, serializer=_Serializer(),
                    topics=list(topics) if topics else None)
                _notifiers[key] = notifier
    return notifier


def get_notifier(service='compute', host=None, publisher_id=None):
    """The legacy notifier with Nova's publisher id ``<service>.<host>``.

    ``get_notifier('compute', 'host1')`` as Nova's ``rpc.get_notifier``;
    ``get_notifier(publisher_id='compute.host1')`` or a single argument
    that already is a publisher id (contains ``.`` or ``:``) is used as is.
    Returns ``NOOP`` when legacy notifications are off.
    """
    if not legacy_enabled():
        return NOOP
    if publisher_id is None:
        if host is None and ('.' in service or ':' in service):
            publisher_id = service
        else:
            publisher_id = '%s.%s' % (service, host or CONF.host)
    notifier = _base_notifier(None)
    if notifier is None:
        return NOOP
    return notifier.prepare(publisher_id=publisher_id)


def get_versioned_notifier(publisher_id):
    """The versioned notifier (topics [notifications]/
    versioned_notifications_topics); ``NOOP`` when versioned ones are off."""
    if not versioned_enabled():
        return NOOP
    notifier = _base_notifier(
        CONF.notifications.versioned_notifications_topics)
    if notifier is None:
        return NOOP
    return notifier.prepare(publisher_id=publisher_id)


def reset():
    """Forget the cached notifiers (tests; transport cleanup)."""
    with _lock:
        _notifiers.clear()
