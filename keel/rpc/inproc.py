"""An in-process oslo.messaging driver (``keel-inproc:/``) for the all-in-one.

Why not oslo.messaging's own ``fake:/`` driver: it is written for unit tests.
Its listeners poll their queues every 50 ms (``time.sleep(0.05)`` in a
loop), so an all-in-one with 50 simulated compute hosts -- 50+ RPC servers
in one process -- wakes up ~1000 times a second doing nothing, and every
message waits on average 25 ms for its consumer to look. It also differs
from a broker in ways a deployment notices: a server's exception object is
raised as is in the caller (RabbitMQ gives a ``RemoteError`` unless the
exception's module is allowed), the caller and the server share the very
same message dicts, and one transport's cleanup empties every queue of the
process.

Here each listener sleeps on a condition and is woken by the send that gives
it work; messages and replies are copied through JSON like a broker would
(a server cannot alter its caller's objects, and what cannot be sent over
RabbitMQ fails here too); failures travel as oslo.messaging's serialized
remote exceptions. Addressing is that of the AMQP drivers:

* a call or cast to ``topic`` + ``server`` goes to that server's queue;
* one to ``topic`` alone goes to the topic queue that every server of the
  topic consumes (each message to one of them);
* a fanout goes to the queue of every server of the topic;
* a notification goes to the topic's default queue (store and forward: it
  waits there for a listener) and to the queue of every listener pool.

Queues live on a per-virtual-host bus shared by every transport of the
process with that URL, and are dropped when the last such transport is
cleaned up. Calls wait for their reply up to their timeout and then raise
``MessagingTimeout``; nothing can die in between, so call-monitor
heartbeats are not needed.
"""
import collections
import threading
import time

from oslo_serialization import jsonutils
import oslo_messaging as messaging
from oslo_messaging._drivers import base
from oslo_messaging._drivers import common as rpc_common

_buses_lock = threading.Lock()
_buses = {}      # virtual host -> [_Bus, number of drivers using it]


def _copy(value):
    """What the other side would get through a broker."""
    return jsonutils.loads(jsonutils.dumps(value))


class _Queue:
    __slots__ = ("messages", "listeners")

    def __init__(self):
        self.messages = collections.deque()
        self.listeners = []


class _Reply:
    """Where one call's reply lands."""
    __slots__ = ("_event", "result", "failure")

    def __init__(self):
        self._event = threading.Event()
        self.result = self.failure = None

    def put(self, result, failure):
        self.result, self.failure = result, failure
        self._event.set()

    def wait(self, timeout):
        return self._event.wait(timeout)


class _Bus:
    """The queues of one virtual host."""

    def __init__(self):
        self.lock = threading.Lock()
        self._server_queues = {}   # (exchange, topic, server) -> _Queue
        self._topic_queues = {}    # (exchange, topic, pool) -> _Queue

    # Callers hold self.lock.
    def server_queue(self, exchange, topic, server):
        key = (exchange, topic, server)
        q = self._server_queues.get(key)
        if q is None:
            q = self._server_queues[key] = _Queue()
        return q

    def topic_queue(self, exchange, topic, pool=None):
        key = (exchange, topic, pool)
        q = self._topic_queues.get(key)
        if q is None:
            q = self._topic_queues[key] = _Queue()
        return q

    def deliver(self, exchange, topic, entry, server=None, fanout=False,
                notification=False):
        with self.lock:
            if fanout:
                queues = [q for (e, t, _s), q in self._server_queues.items()
                          if e == exchange and t == topic]
            elif server:
                queues = [self.server_queue(exchange, topic, server)]
            elif notification:
                self.topic_queue(exchange, topic)
                queues = [q for (e, t, _p), q in self._topic_queues.items()
                          if e == exchange and t == topic]
            else:
                queues = [self.topic_queue(exchange, topic)]
            for q in queues:
                q.messages.append(entry)
                self._wake_one(q)

    def requeue(self, queue, entry):
        with self.lock:
            queue.messages.append(entry)
            self._wake_one(queue)

    @staticmethod
    def _wake_one(queue):
        # One idle consumer per message; the woken one goes to the back so
        # that a shared topic queue spreads its messages.
        for i, listener in enumerate(queue.listeners):
            if listener.waiting:
                listener.waiting = False
                listener.cond.notify()
                queue.listeners.append(queue.listeners.pop(i))
                return


class _IncomingMessage(base.RpcIncomingMessage):
    def __init__(self, bus, queue, entry):
        ctxt, message, reply = entry
        # Kept as JSON on the queue: a requeued message comes back intact.
        super().__init__(jsonutils.loads(ctxt), jsonutils.loads(message))
        self._bus, self._queue, self._entry = bus, queue, entry
        self._reply = reply

    def reply(self, reply=None, failure=None):
        if self._reply is None:
            return
        if failure:
            self._reply.put(None, rpc_common.serialize_remote_exception(
                failure))
        else:
            self._reply.put(_copy(reply), None)

    def heartbeat(self):
        """Not needed: the server cannot vanish while the caller waits."""

    def requeue(self):
        self._bus.requeue(self._queue, self._entry)


class _Listener(base.PollStyleListener):
    """Consumes from its queues; sleeps until a message or stop() comes."""

    def __init__(self, bus, queue_getters):
        super().__init__()
        self._bus = bus
        self.cond = threading.Condition(bus.lock)
        self.waiting = False
        self._stopped = False
        with bus.lock:
            self._queues = [get() for get in queue_getters]
            for q in self._queues:
                q.listeners.append(self)

    @base.batch_poll_helper
    def poll(self, timeout=None):
        taken = self._take(timeout)
        # Decoded outside the bus lock.
        return None if taken is None else _IncomingMessage(self._bus, *taken)

    def _take(self, timeout):
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.cond:
            while not self._stopped:
                for queue in self._queues:
                    if queue.messages:
                        entry = queue.messages.popleft()
                        if queue.messages:   # for another idle consumer
                            self._bus._wake_one(queue)
                        return queue, entry
                left = None if deadline is None \
                    else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self.waiting = True
                self.cond.wait(left)
                self.waiting = False
        return None

    def stop(self):
        with self.cond:
            self._stopped = True
            self.waiting = False
            for q in self._queues:
                if self in q.listeners:
                    q.listeners.remove(self)
            self.cond.notify_all()


class InProcessDriver(base.BaseDriver):
    """oslo.messaging driver for ``keel-inproc:/`` URLs (see module doc)."""

    def __init__(self, conf, url, default_exchange=None,
                 allowed_remote_exmods=None):
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._vhost = getattr(url, "virtual_host", None) or ""
        with _buses_lock:
            slot = _buses.setdefault(self._vhost, [_Bus(), 0])
            slot[1] += 1
            self._bus = slot[0]
        self._cleaned = False

    def require_features(self, requeue=True):
        pass   # requeue is supported

    def _exchange(self, target):
        return target.exchange or self._default_exchange

    def send(self, target, ctxt, message, wait_for_reply=None, timeout=None,
             call_monitor_timeout=None, retry=None, transport_options=None):
        reply = _Reply() if wait_for_reply else None
        entry = (jsonutils.dumps(ctxt), jsonutils.dumps(message), reply)
        self._bus.deliver(self._exchange(target), target.topic, entry,
                          server=target.server, fanout=target.fanout)
        if reply is None:
            return None
        if not reply.wait(timeout):
            raise messaging.MessagingTimeout(
                "No reply on topic %s within %s s" % (target.topic, timeout))
        if reply.failure is not None:
            raise rpc_common.deserialize_remote_exception(
                reply.failure, self._allowed_remote_exmods)
        return reply.result

    def send_notification(self, target, ctxt, message, version, retry=None):
        entry = (jsonutils.dumps(ctxt), jsonutils.dumps(message), None)
        self._bus.deliver(self._exchange(target), target.topic, entry,
                          notification=True)

    def listen(self, target, batch_size, batch_timeout):
        bus, exchange, topic = self._bus, self._exchange(target), target.topic
        getters = [lambda: bus.topic_queue(exchange, topic)]
        if target.server:
            getters.insert(0, lambda: bus.server_queue(exchange, topic,
                                                       target.server))
        return base.PollStyleListenerAdapter(
            _Listener(bus, getters), batch_size, batch_timeout)

    def listen_for_notifications(self, targets_and_priorities, pool,
                                 batch_size, batch_timeout):
        bus = self._bus
        getters = [
            (lambda e=self._exchange(t), tp=f"{t.topic}.{p}":
             bus.topic_queue(e, tp, pool))
            for t, p in targets_and_priorities]
        return base.PollStyleListenerAdapter(
            _Listener(bus, getters), batch_size, batch_timeout)

    def cleanup(self):
        """The last transport of a virtual host takes its queues along."""
        if self._cleaned:
            return
        self._cleaned = True
        with _buses_lock:
            slot = _buses.get(self._vhost)
            if slot is not None and slot[0] is self._bus:
                slot[1] -= 1
                if slot[1] <= 0:
                    del _buses[self._vhost]
