"""Legacy notifications go out on the notification transport with Nova's
publisher id and the request context."""
import threading

import oslo_messaging as messaging

from keel.conf import CONF
from keel import context as keel_context
from keel.rpc import transport as rpc_transport


class Collector:
    def __init__(self):
        self.got = []
        self.event = threading.Event()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self.got.append((ctxt, publisher_id, event_type, payload))
        self.event.set()


def test_notifier_publishes_to_the_notifications_topic(bus):
    CONF.set_override("driver", ["messaging"],
                      group="oslo_messaging_notifications")
    try:
        transport = rpc_transport.get_notification_transport()
        collector = Collector()
        listener = messaging.get_notification_listener(
            transport, [messaging.Target(topic="notifications")],
            [collector], executor="threading")
        listener.start()
        try:
            notifier = rpc_transport.get_notifier("compute", host="cmp-1")
            ctxt = keel_context.RequestContext(user_id="u1",
                                               project_id="p1")
            notifier.info(ctxt, "compute.instance.create.start",
                          {"instance_id": "abc"})
            assert collector.event.wait(5)
        finally:
            listener.stop()
            listener.wait()
        ctxt_dict, publisher, event_type, payload = collector.got[0]
        assert publisher == "compute.cmp-1"
        assert event_type == "compute.instance.create.start"
        assert payload == {"instance_id": "abc"}
        assert ctxt_dict["user_id"] == "u1"
    finally:
        CONF.clear_override("driver", group="oslo_messaging_notifications")
