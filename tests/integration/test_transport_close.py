"""A stopping service never hangs on an unreachable broker.

oslo.messaging's close joins each connection's heartbeat thread, and a
heartbeat thread that found the broker gone retries the connection for ever
(rabbit_max_retries unset, the default): before keel.service.close_transports
a worker whose broker vanished while it stopped stayed behind as an orphan
(seen after the restart-storm tests). Real RabbitMQ behind a TCP proxy that
goes away."""
import threading
import time

import oslo_messaging as messaging
import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel.rpc import transport as rpc_transport
from keel import service
from tests.fixtures.tcp_proxy import TcpProxy
from tests.integration.test_services_rabbit import _rabbit_or_skip
from tests.unit.api.conftest import ensure_parsed

pytestmark = pytest.mark.integration


class _Endpoint:
    def ping(self, ctxt):
        return "pong"


def test_close_gives_up_on_a_broker_that_went_away():
    _rabbit_or_skip()
    ensure_parsed()
    rpc_transport.cleanup()
    proxy = TcpProxy("127.0.0.1", 5672).start()
    CONF.set_override("transport_url",
                      f"rabbit://guest:guest@127.0.0.1:{proxy.port}/")
    server = None
    try:
        rpc_transport.init()    # registers the driver's options
        # Heartbeats every second (read when connections open), so the
        # loss is noticed at once.
        CONF.set_override("heartbeat_timeout_threshold", 4,
                          group="oslo_messaging_rabbit")
        server = rpc_transport.get_server(
            messaging.Target(topic="keel-close-test", server="h1"),
            [_Endpoint()])
        server.start()
        client = rpc_transport.get_client(
            messaging.Target(topic="keel-close-test"))
        assert client.call(keel_context.get_admin_context(),
                           "ping") == "pong"
        proxy.go_down()                 # the broker is gone for good
        stopper = threading.Thread(
            target=lambda: (server.stop(), server.wait()), daemon=True)
        stopper.start()
        stopper.join(20)
        time.sleep(3)                   # the heartbeats start retrying
        started = time.monotonic()
        assert service.close_transports(timeout=3) is False
        assert time.monotonic() - started < 6
    finally:
        CONF.clear_override("transport_url")
        try:
            CONF.clear_override("heartbeat_timeout_threshold",
                                group="oslo_messaging_rabbit")
        except Exception:  # noqa: BLE001 - never registered
            pass
        # Let the abandoned close finish: with the broker reachable again
        # its heartbeat threads reconnect and stop, instead of retrying
        # (and logging) for the rest of the test run.
        proxy.come_up()
        for thread in threading.enumerate():
            if thread.name == "transport-cleanup":
                thread.join(60)
        proxy.stop()
        # Start the next test with fresh transports.
        rpc_transport._by_url.clear()
        rpc_transport._default = rpc_transport._notification = None
