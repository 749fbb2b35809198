"""Listen on the notification topics of a real oslo.messaging transport
(fake:// in unit tests, RabbitMQ in integration) and send with the keel
helpers: what arrives is what a consumer of the bus sees."""
import threading
import time

import oslo_messaging as messaging

from keel.conf import CONF
from keel import notifications
from keel.rpc import transport as rpc_transport


class Collector:
    def __init__(self):
        self.got = []
        self.cond = threading.Condition()

    def _record(self, priority, ctxt, publisher_id, event_type, payload):
        with self.cond:
            self.got.append({"priority": priority, "context": ctxt,
                             "publisher_id": publisher_id,
                             "event_type": event_type, "payload": payload})
            self.cond.notify_all()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self._record("INFO", ctxt, publisher_id, event_type, payload)

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        self._record("ERROR", ctxt, publisher_id, event_type, payload)

    def wait_for(self, event_type, timeout=10):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for n in self.got:
                    if n["event_type"] == event_type:
                        return n
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("%s not received; got %s" % (
                        event_type, [n["event_type"] for n in self.got]))
                self.cond.wait(left)


class Bus:
    """Listeners on the legacy and the versioned topics."""

    def __init__(self, fmt, pool=None):
        self.fmt = fmt
        self.pool = pool
        self.legacy = Collector()
        self.versioned = Collector()
        self._listeners = []

    def __enter__(self):
        CONF.set_override("driver", ["messagingv2"],
                          group="oslo_messaging_notifications")
        CONF.set_override("notification_format", self.fmt,
                          group="notifications")
        notifications.reset()
        transport = rpc_transport.get_notification_transport()
        topics = [(CONF.oslo_messaging_notifications.topics, self.legacy),
                  (CONF.notifications.versioned_notifications_topics,
                   self.versioned)]
        for names, collector in topics:
            listener = messaging.get_notification_listener(
                transport, [messaging.Target(topic=t) for t in names],
                [collector], executor="threading", pool=self.pool)
            listener.start()
            self._listeners.append(listener)
        return self

    def __exit__(self, *exc):
        # Each stop waits out a poll: stop both at once.
        threads = [threading.Thread(target=lambda x=x: (x.stop(), x.wait()))
                   for x in self._listeners]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        notifications.reset()
        CONF.clear_override("driver", group="oslo_messaging_notifications")
        CONF.clear_override("notification_format", group="notifications")
