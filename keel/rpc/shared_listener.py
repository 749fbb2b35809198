"""One AMQP connection and one consuming thread for all the RPC servers of
a process.

oslo.messaging's rabbit driver gives every RPC server a connection of its
own and a thread polling it. ``keel compute --hosts 50`` runs 100 servers
(``compute`` and ``compute-alt`` per host): 100 broker connections, each
with its channel, heartbeats and statistics in RabbitMQ, and 100 threads
waking every 5 s to find nothing (about a sixth of an idle compute's
CPU; the rest is Nova's heartbeats and periodic tasks).

Here the servers of one transport declare on one shared connection the
consumers oslo.messaging's ``listen()`` declares for each (``topic``,
``topic.server``, the server's own fanout queue), and one thread drains it.
Each message is acknowledged and handed to the executor of the server whose
consumer received it, as oslo.messaging's RPC listener does, so queues,
bindings, acknowledgements, replies and reconnection (the connection
re-declares every consumer it holds) are unchanged. The ``topic`` queue is
shared by the servers of a topic anyway: it is consumed once and its
messages go to those servers in turn.

A stopping server's consumers are cancelled (what reaches it meanwhile is
requeued, not taken); the connection closes with the last server.
"""
import itertools
import threading
import time

from oslo_log import log as logging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import base as driver_base
from oslo_messaging._drivers import common as rpc_common
from oslo_messaging._drivers import impl_rabbit

from keel.rpc import amqp_polling

LOG = logging.getLogger(__name__)

# While servers are being added or removed the drain returns this often,
# so that they get the connection (declaring a consumer needs its lock)
# without waiting for an idle poll to time out.
BUSY_POLL_SECONDS = 0.05
BUSY_SECONDS = 2.0
# A stopping server waits this long for its consumers to be cancelled (the
# broker may be away and the draining thread reconnecting); it takes
# nothing more meanwhile either way.
STOP_WAIT_SECONDS = 2 * amqp_polling.POLL_SECONDS

_lock = threading.Lock()
_hubs = {}          # id(driver) -> _Hub


def supported(driver):
    """Whether ``driver`` is oslo.messaging's AMQP (rabbit) driver with the
    connection internals this module relies on."""
    if not isinstance(driver, amqpdriver.AMQPDriverBase):
        return False
    conn_cls = getattr(getattr(driver, "_connection_pool", None),
                       "connection_cls", None)
    return isinstance(conn_cls, type) and issubclass(conn_cls,
                                                     impl_rabbit.Connection)


def use_shared_connection(server):
    """Make ``server`` (an oslo.messaging RPC server, not started) listen
    through its transport's shared connection, if the driver allows."""
    driver = getattr(getattr(server, "transport", None), "_driver", None)
    if driver is None or not supported(driver):
        return server
    target = server._target
    server._create_listener = lambda: _hub_for(driver).member(target)
    return server


def _hub_for(driver):
    with _lock:
        hub = _hubs.get(id(driver))
        if hub is None or hub.closed:
            hub = _hubs[id(driver)] = _Hub(driver)
        return hub


def _forget(hub):
    with _lock:
        if _hubs.get(id(hub.driver)) is hub:
            del _hubs[id(hub.driver)]


class _Delivery(amqpdriver.RpcAMQPListener):
    """The consumer callback of one server: oslo.messaging's RPC listener
    (acknowledge, then an incoming message), handed on at once."""

    def __init__(self, driver, conn, member):
        super().__init__(driver, conn)
        self.member = member

    def __call__(self, message):
        if self.member.stopping:
            # Consumers are being cancelled: whoever consumes the queue
            # next takes it (as when oslo.messaging closes a connection).
            message.requeue()
            return
        super().__call__(message)
        while self.incoming:
            self.member.deliver(self.incoming.pop(0))


class _Router:
    """The callback of a ``topic`` queue several servers share."""

    def __init__(self):
        self.members = []
        self._turn = itertools.count()
        self.consumers = ()

    def __call__(self, message):
        live = [m for m in self.members if not m.stopping]
        if not live:
            message.requeue()
            return
        live[next(self._turn) % len(live)].delivery(message)


class _Member(driver_base.Listener):
    """The listener oslo.messaging's server gets: its consumers live on the
    hub's connection."""

    def __init__(self, hub, target):
        super().__init__(1, None, hub.driver.prefetch_size)
        self.hub = hub
        self.target = target
        self.stopping = False
        self.delivery = _Delivery(hub.driver, hub.conn, self)
        self.consumers = ()

    def deliver(self, incoming):
        callback = self.on_incoming_callback
        if callback is not None:
            callback([incoming])

    def start(self, on_incoming_callback):
        super().start(on_incoming_callback)
        self.hub.add(self)

    def stop(self):
        self.stopping = True
        self.hub.remove(self)
        super().stop()

    def cleanup(self):
        self.hub.release(self)


class _Hub:
    """One listening connection of a driver and the thread draining it.

    Only that thread touches the connection (oslo.messaging's listening
    connections have no lock): servers starting or stopping hand it their
    declarations and cancellations and wait for them.
    """

    def __init__(self, driver):
        self.driver = driver
        self.conn = driver._get_connection(rpc_common.PURPOSE_LISTEN)
        # oslo.messaging's Connection (the context above wraps it).
        self.raw = self.conn.connection
        self.closed = False
        self._members = set()
        self._routers = {}          # (exchange, topic) -> _Router
        self._cond = threading.Condition()
        self._ops = []              # (function, done event, outcome)
        self._busy_until = 0.0
        self._thread = None

    def member(self, target):
        return _Member(self, target)

    # -- consumers (run on the draining thread) ------------------------------
    def add(self, member):
        self._run_on_thread(self._add, member)

    def remove(self, member):
        if not self._run_on_thread(self._remove, member,
                                   timeout=STOP_WAIT_SECONDS):
            LOG.warning("RPC server %s: its consumers were not cancelled "
                        "within %d s (broker unreachable?); stopping "
                        "without waiting.", member.target, STOP_WAIT_SECONDS)

    def _add(self, member):
        target = member.target
        exchange = self.driver._get_exchange(target)
        key = (exchange, target.topic)
        router = self._routers.get(key)
        if router is None:
            router = self._routers[key] = _Router()
            router.consumers = self._declare(
                lambda: self.raw.declare_topic_consumer(
                    exchange_name=exchange, topic=target.topic,
                    callback=router))
        router.members.append(member)
        member.consumers = self._declare(
            lambda: self.raw.declare_topic_consumer(
                exchange_name=exchange,
                topic=f"{target.topic}.{target.server}",
                callback=member.delivery),
            lambda: self.raw.declare_fanout_consumer(
                target.topic, member.delivery))
        self._members.add(member)

    def _remove(self, member):
        if member not in self._members:
            return
        self._members.discard(member)
        self._cancel(member.consumers)
        for key, router in list(self._routers.items()):
            if member in router.members:
                router.members.remove(member)
            if not router.members:
                self._cancel(router.consumers)
                del self._routers[key]

    def _declare(self, *declarations):
        """Run ``declarations``; the consumer objects they added."""
        before = set(self.raw._consumers)
        for declare in declarations:
            declare()
        return tuple(c for c in self.raw._consumers if c not in before)

    def _cancel(self, consumers):
        raw = self.raw
        for consumer in consumers:
            tag = raw._consumers.pop(consumer, None)
            if tag is None:
                continue
            raw._active_tags.pop(consumer.queue_name, None)
            if tag in raw._new_tags:
                raw._new_tags.discard(tag)   # never consumed on the broker
                continue
            try:
                consumer.cancel(tag=tag)
            except Exception:  # noqa: BLE001 - a reconnect drops it anyway
                LOG.debug("cancelling consumer %s failed", tag,
                          exc_info=True)

    def release(self, member):
        """After ``member``'s server finished its work: the connection
        closes with the last one."""
        with self._cond:
            if self._members or self.closed:
                return
            self.closed = True
            self._cond.notify_all()
        _forget(self)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - the broker may be gone
            LOG.debug("closing the shared listener connection failed",
                      exc_info=True)

    # -- the draining thread ---------------------------------------------------
    def _run_on_thread(self, function, *args, timeout=None):
        """Run ``function(*args)`` on the draining thread, between two
        drains (short ones for a while, so the next server does not wait
        for an idle poll to time out). False if ``timeout`` passed first
        (it still runs later)."""
        done = threading.Event()
        outcome = {}
        with self._cond:
            if self.closed:
                raise RuntimeError("shared listener connection closed")
            self._ops.append((lambda: function(*args), done, outcome))
            self._busy_until = time.monotonic() + BUSY_SECONDS
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, daemon=True,
                    name="rpc-shared-listener")
                self._thread.start()
        if not done.wait(timeout):
            return False
        if "error" in outcome:
            raise outcome["error"]
        return True

    def _run_ops(self):
        with self._cond:
            ops, self._ops = self._ops, []
        for function, done, outcome in ops:
            try:
                function()
            except Exception as exc:  # noqa: BLE001 - the caller raises it
                outcome["error"] = exc
            done.set()

    def _run(self):
        while True:
            self._run_ops()
            with self._cond:
                if self.closed and not self._ops:
                    return
                busy = self._ops or time.monotonic() < self._busy_until
            timeout = BUSY_POLL_SECONDS if busy else amqp_polling.POLL_SECONDS
            try:
                self.raw.consume(timeout=timeout)
            except rpc_common.Timeout:
                pass
            except Exception:  # noqa: BLE001 - as oslo.messaging's runner
                LOG.exception("Failed to consume messages, retrying")
                time.sleep(1)
