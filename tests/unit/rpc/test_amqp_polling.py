"""keel.rpc.amqp_polling: RPC listeners and reply waiters of oslo.messaging's
AMQP driver block for the ramp's ceiling; notification listeners keep it."""
import threading

from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import common as rpc_common

from keel.rpc import amqp_polling
from keel.rpc import transport  # noqa: F401 - installs the patch


def test_installed_by_the_transport_module():
    assert amqpdriver.ReplyWaiter.poll is amqp_polling._reply_poll
    assert isinstance(amqpdriver.RpcAMQPListener.__dict__["_current_timeout"],
                      property)


def test_rpc_listener_timeout_stays_at_the_ceiling():
    listener = amqpdriver.RpcAMQPListener.__new__(amqpdriver.RpcAMQPListener)
    listener._current_timeout = amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN
    assert listener._current_timeout == amqp_polling.POLL_SECONDS == \
        amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX


def test_notification_listener_keeps_the_ramp():
    listener = amqpdriver.NotificationAMQPListener.__new__(
        amqpdriver.NotificationAMQPListener)
    listener._current_timeout = amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN
    assert listener._current_timeout == \
        amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN


class _Conn:
    """Times out twice, fails once, then delivers and stops the waiter."""

    def __init__(self, exit_event):
        self.timeouts = []
        self.exit_event = exit_event

    def consume(self, timeout=None):
        self.timeouts.append(timeout)
        n = len(self.timeouts)
        if n <= 2:
            raise rpc_common.Timeout()
        if n == 3:
            raise RuntimeError("broker hiccup")
        self.exit_event.set()


def test_reply_waiter_polls_with_a_constant_timeout():
    waiter = amqpdriver.ReplyWaiter.__new__(amqpdriver.ReplyWaiter)
    waiter._thread_exit_event = threading.Event()
    waiter.conn = _Conn(waiter._thread_exit_event)
    waiter.poll()
    assert waiter.conn.timeouts == [amqp_polling.POLL_SECONDS] * 4


def test_uninstall_restores_and_install_is_idempotent():
    amqp_polling.uninstall()
    try:
        assert amqpdriver.ReplyWaiter.poll is not amqp_polling._reply_poll
        assert "_current_timeout" not in amqpdriver.RpcAMQPListener.__dict__
    finally:
        amqp_polling.install()
        amqp_polling.install()
    assert amqpdriver.ReplyWaiter.poll is amqp_polling._reply_poll
    amqp_polling.uninstall()
    assert amqpdriver.ReplyWaiter.poll is not amqp_polling._reply_poll
    amqp_polling.install()


def test_left_alone_when_oslo_messaging_code_differs(monkeypatch):
    amqp_polling.uninstall()
    try:
        assert amqp_polling._compatible()

        def other_poll(self):
            return self.something_else()
        monkeypatch.setattr(amqpdriver.ReplyWaiter, "poll", other_poll)
        assert not amqp_polling._compatible()
        amqp_polling.install()
        assert amqpdriver.ReplyWaiter.poll is other_poll
        assert "_current_timeout" not in \
            amqpdriver.RpcAMQPListener.__dict__
    finally:
        monkeypatch.undo()
        amqp_polling.install()
    assert amqpdriver.ReplyWaiter.poll is amqp_polling._reply_poll
