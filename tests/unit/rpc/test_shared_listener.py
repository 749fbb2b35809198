"""keel.rpc.shared_listener without a broker: which servers it takes over,
and where a message goes (RabbitMQ behaviour: tests/integration/
test_shared_listener_rabbit.py)."""
import oslo_messaging as messaging

from keel.rpc import shared_listener
from keel.rpc import transport as rpc_transport


class _Message:
    def __init__(self):
        self.requeued = False

    def requeue(self):
        self.requeued = True


class _Member:
    def __init__(self, stopping=False):
        self.stopping = stopping
        self.got = []
        self.delivery = self.got.append


def test_other_drivers_keep_oslo_messagings_listener(bus):
    server = rpc_transport.get_server(
        messaging.Target(topic="t", server="h"), [])
    assert not shared_listener.supported(server.transport._driver)
    assert "_create_listener" not in vars(server)


def test_topic_queue_messages_go_to_live_servers_in_turn():
    router = shared_listener._Router()
    a, b, gone = _Member(), _Member(), _Member(stopping=True)
    router.members = [a, gone, b]
    messages = [_Message() for _ in range(4)]
    for message in messages:
        router(message)
    assert a.got == [messages[0], messages[2]]
    assert b.got == [messages[1], messages[3]]
    assert not gone.got and not any(m.requeued for m in messages)


def test_topic_queue_message_requeued_when_every_server_stops():
    router = shared_listener._Router()
    router.members = [_Member(stopping=True)]
    message = _Message()
    router(message)
    assert message.requeued


def test_a_stopping_servers_message_is_requeued_not_taken():
    delivery = shared_listener._Delivery.__new__(shared_listener._Delivery)
    delivery.member = _Member(stopping=True)
    message = _Message()
    delivery(message)
    assert message.requeued
