"""Notifications on RabbitMQ, read raw off the ``nova`` exchange with kombu
(as Ceilometer or any other consumer would): the oslo.messaging 2.0
envelope, the routing keys ``notifications.<priority>`` and
``versioned_notifications.<priority>``, Nova's publisher ids."""
import json
import time
import uuid

import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel import notifications
from keel.notifications import instance as notify
from keel.rpc import transport as rpc_transport
from tests.fixtures import databases
from tests.unit.notifications import conftest as c
from tests.unit.notifications.conftest import dbs  # noqa: F401

pytestmark = pytest.mark.integration

AMQP_URL = databases.RABBIT_URL.replace("rabbit://", "amqp://")


@pytest.fixture
def rabbit(dbs):
    import kombu
    try:
        with kombu.Connection(AMQP_URL, connect_timeout=3) as conn:
            conn.connect()
    except Exception as exc:  # noqa: BLE001 - any connect failure
        databases._unavailable("RabbitMQ", exc)
    CONF.set_override("transport_url", databases.RABBIT_URL)
    CONF.set_override("driver", ["messagingv2"],
                      group="oslo_messaging_notifications")
    CONF.set_override("notification_format", "both", group="notifications")
    rpc_transport.cleanup()
    notifications.reset()
    yield
    rpc_transport.cleanup()
    notifications.reset()
    CONF.clear_override("transport_url")
    CONF.clear_override("driver", group="oslo_messaging_notifications")
    CONF.clear_override("notification_format", group="notifications")


def _queues(conn, keys):
    import kombu
    exchange = kombu.Exchange("nova", type="topic", durable=False)
    out = {}
    for key in keys:
        queue = kombu.Queue("keel-it-ntf-%s-%s" % (key, uuid.uuid4().hex[:6]),
                            exchange=exchange, routing_key=key,
                            channel=conn.channel(), exclusive=True,
                            auto_delete=True)
        queue.declare()
        out[key] = queue
    return out


def _drain(queue, count, timeout=15):
    got, deadline = [], time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        msg = queue.get(no_ack=True)
        if msg is None:
            time.sleep(0.1)
            continue
        body = json.loads(msg.body)
        assert body["oslo.version"] == "2.0"
        got.append(json.loads(body["oslo.message"]))
    return got


def test_legacy_and_versioned_on_the_wire(rabbit):
    import kombu
    ctx = keel_context.RequestContext(user_id="fake", project_id="proj",
                                      request_id="req-it-1")
    inst = c.make_instance(ctx)
    with kombu.Connection(AMQP_URL, connect_timeout=5) as conn:
        queues = _queues(conn, ["notifications.info",
                                "versioned_notifications.info"])
        with notify.notify_about_instance_delete(ctx, inst, host="api-it"):
            pass
        legacy = _drain(queues["notifications.info"], 2)
        versioned = _drain(queues["versioned_notifications.info"], 2)
    assert [m["event_type"] for m in legacy] == [
        "compute.instance.delete.start", "compute.instance.delete.end"]
    assert {m["publisher_id"] for m in legacy} == {"compute.api-it"}
    assert legacy[0]["payload"]["instance_id"] == inst.uuid
    assert legacy[0]["_context_request_id"] == "req-it-1"
    assert [m["event_type"] for m in versioned] == [
        "instance.delete.start", "instance.delete.end"]
    assert {m["publisher_id"] for m in versioned} == {"nova-api:api-it"}
    assert versioned[0]["priority"] == "INFO"
    payload = versioned[0]["payload"]
    assert (payload["nova_object.name"], payload["nova_object.version"]) == (
        "InstanceActionPayload", "1.9")
