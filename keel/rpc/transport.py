"""oslo.messaging transports: the default one, one per cell URL, notifications.

A process has one default transport (``[DEFAULT]/transport_url``). The API
and the super-conductor also talk to each cell's broker through
``cell_mappings.transport_url``; ``cell_transport(url)`` keeps one transport
per URL so that a cell is connected once per process. The default URL is in
the same cache, so a cell whose URL equals ours reuses our connection.
"""
import threading

from oslo_log import log as logging
import oslo_messaging as messaging

from keel import benchcounters
from keel.conf import CONF
from keel.rpc import amqp_context
from keel.rpc import amqp_polling
from keel.rpc import executor as rpc_executor
from keel.rpc import kombu_retry
from keel.rpc import serializer as rpc_serializer

if benchcounters.ENABLED:  # bench/boot.py only; nothing installed otherwise
    benchcounters.install_rpc()

LOG = logging.getLogger(__name__)

# Before any transport exists: its reply waiter and listeners poll cheaply.
amqp_polling.install()
amqp_context.install()
kombu_retry.install()

# Exceptions raised by a server in these modules are re-raised as the same
# class by the caller (others arrive as messaging.RemoteError).
ALLOWED_EXMODS = ["keel.exception", "nova.exception"]
_EXTRA_EXMODS = []

# Above this rpc_response_timeout a long call asks the server for heartbeats
# (Nova's HEARTBEAT_THRESHOLD), so a dead server is noticed early.
HEARTBEAT_THRESHOLD = 60

_lock = threading.Lock()
_default = None
_notification = None
_by_url = {}


def add_extra_exmods(*modules):
    _EXTRA_EXMODS.extend(modules)


def clear_extra_exmods():
    del _EXTRA_EXMODS[:]


def allowed_exmods():
    return ALLOWED_EXMODS + _EXTRA_EXMODS


_keys = {}


def _key(url):
    # Every cell-targeted context asks for its cell's transport: parsing
    # the URL each time was ~1.6% of the conductor's CPU. A URL string
    # always parses to the same key, so remember it.
    # None means [DEFAULT]/transport_url, which may change: not cached.
    if url is None:
        return str(messaging.TransportURL.parse(CONF, url))
    key = _keys.get(url)
    if key is None:
        key = _keys[url] = str(messaging.TransportURL.parse(CONF, url))
    return key


def _create(url):
    return messaging.get_rpc_transport(
        CONF, url=messaging.TransportURL.parse(CONF, url),
        allowed_remote_exmods=allowed_exmods())


def init(conf=CONF):
    """Create the default and notification transports (idempotent)."""
    global _default, _notification
    with _lock:
        if _default is None:
            _default = messaging.get_rpc_transport(
                conf, allowed_remote_exmods=allowed_exmods())
            _by_url[_key(conf.transport_url)] = _default
        if _notification is None:
            try:
                _notification = messaging.get_notification_transport(
                    conf, allowed_remote_exmods=allowed_exmods())
            except messaging.InvalidTransportURL:
                _notification = None
    return _default


def get_transport():
    return _default if _default is not None else init()


def get_notification_transport():
    init()
    return _notification


def cell_transport(url):
    """The transport for a cell's ``transport_url`` (cached per URL)."""
    if not url:
        return get_transport()
    init()
    key = _key(url)
    with _lock:
        transport = _by_url.get(key)
        if transport is None:
            transport = _create(url)
            _by_url[key] = transport
        return transport


def cleanup():
    """Close every transport this process opened (service stop, tests).

    The registry is emptied under the lock, the transports are closed
    outside it: closing one whose broker went away can block for ever
    (oslo.messaging joins a heartbeat thread that retries the broker), and
    keel.service gives up waiting for that after a while -- a close still
    stuck must not hold the lock every later init() and cleanup() need.
    """
    global _default, _notification
    with _lock:
        closing = list(_by_url.values()) + [_default, _notification]
        _by_url.clear()
        _default = _notification = None
    seen = set()
    for transport in closing:
        if transport is None or id(transport) in seen:
            continue
        seen.add(id(transport))
        try:
            transport.cleanup()
        except Exception:  # noqa: BLE001 - best effort on the way out
            LOG.debug("transport cleanup failed", exc_info=True)


def get_client(target, version_cap=None, serializer=None, transport=None,
               call_monitor_timeout=None):
    """An RPC client whose messages carry the request context."""
    return messaging.get_rpc_client(
        transport or get_transport(), target, version_cap=version_cap,
        serializer=rpc_serializer.RequestContextSerializer(serializer),
        call_monitor_timeout=call_monitor_timeout)


def get_server(target, endpoints, serializer=None, transport=None):
    """An RPC server on the threading executor (no eventlet in keel)."""
    from oslo_messaging.rpc import dispatcher
    return rpc_executor.use_reusing_pool(messaging.get_rpc_server(
        transport or get_transport(), target, endpoints,
        executor="threading",
        serializer=rpc_serializer.RequestContextSerializer(serializer),
        access_policy=dispatcher.DefaultRPCAccessPolicy))


def get_notifier(service, host=None, publisher_id=None):
    """A legacy (unversioned) notifier with Nova's publisher id form."""
    transport = get_notification_transport()
    publisher_id = publisher_id or f"{service}.{host or CONF.host}"
    notifier = messaging.Notifier(
        transport, publisher_id=publisher_id,
        serializer=rpc_serializer.RequestContextSerializer(
            rpc_serializer.JsonPayloadSerializer()),
        driver=None if transport is not None else "noop")
    return notifier
