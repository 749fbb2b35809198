"""keel.rpc.shared_listener on a real RabbitMQ: the RPC servers of a process
listen through one connection, each still gets its own calls and fanout
casts, a stopped one's calls wait in its queue for its successor, and a
dropped connection is re-established with every server's consumers."""
import threading
import time
import uuid

import oslo_messaging as messaging
import pytest

from keel.conf import CONF
from keel.conf import defaults
from keel import context as keel_context
from keel.rpc import shared_listener
from keel.rpc import transport as rpc_transport
from tests.fixtures import databases

pytestmark = pytest.mark.integration


class _Endpoint:
    def __init__(self, name):
        self.name = name
        self.casts = []

    def whoami(self, ctxt):
        return self.name

    def note(self, ctxt, value):
        self.casts.append(value)


@pytest.fixture
def broker():
    import kombu
    vhost, url = databases.private_vhost(f"keel_sl_{uuid.uuid4().hex[:8]}")
    try:
        with kombu.Connection(url.replace("rabbit://", "amqp://"),
                              connect_timeout=3) as conn:
            conn.connect()
    except Exception as exc:  # noqa: BLE001
        databases.drop_vhost(vhost)
        databases._unavailable("RabbitMQ", exc)
    defaults.set_library_defaults(CONF)
    CONF.set_override("transport_url", url)
    CONF.set_override("rpc_response_timeout", 10)
    rpc_transport.cleanup()
    rpc_transport.init()
    servers = []
    yield servers
    _stop(servers)
    rpc_transport.cleanup()
    CONF.clear_override("transport_url")
    CONF.clear_override("rpc_response_timeout")
    databases.drop_vhost(vhost)


def _stop(servers):
    threads = [threading.Thread(target=lambda s=s: (s.stop(), s.wait()))
               for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    del servers[:]


def _serve(servers, topic, host):
    endpoint = _Endpoint(host)
    server = rpc_transport.get_server(
        messaging.Target(topic=topic, server=host), [endpoint])
    server.start()
    servers.append(server)
    return server, endpoint


def _call(topic, host, timeout=10):
    client = rpc_transport.get_client(messaging.Target(topic=topic))
    return client.prepare(server=host, timeout=timeout).call(
        keel_context.get_admin_context(), "whoami")


def _hub():
    hubs = list(shared_listener._hubs.values())
    assert len(hubs) == 1
    return hubs[0]


def test_servers_share_one_connection_and_get_their_own_calls(broker):
    hosts = [f"h{i}" for i in range(4)]
    endpoints = {}
    for host in hosts:
        for topic in ("t-main", "t-alt"):
            server, endpoints[topic, host] = _serve(broker, topic, host)
            assert isinstance(server.listener, shared_listener._Member)
    hub = _hub()
    assert len({id(s.listener.hub.raw) for s in broker}) == 1
    assert len(hub._members) == 8
    for host in hosts:
        assert _call("t-main", host) == host
        assert _call("t-alt", host) == host
    # The shared topic queue: some server of the topic answers.
    client = rpc_transport.get_client(messaging.Target(topic="t-main"))
    assert client.call(keel_context.get_admin_context(), "whoami") in hosts
    # A fanout cast reaches every server of the topic once.
    client.prepare(fanout=True).cast(keel_context.get_admin_context(),
                                     "note", value=7)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
            endpoints["t-main", h].casts for h in hosts):
        time.sleep(0.05)
    assert [endpoints["t-main", h].casts for h in hosts] == [[7]] * 4
    assert all(not endpoints["t-alt", h].casts for h in hosts)


def test_a_stopped_servers_calls_wait_for_its_successor(broker):
    first, _ = _serve(broker, "t-main", "h1")
    _serve(broker, "t-main", "h2")
    first.stop()
    first.wait()
    broker.remove(first)
    assert _call("t-main", "h2") == "h2"
    result = {}
    caller = threading.Thread(
        target=lambda: result.setdefault("r", _call("t-main", "h1", 20)))
    caller.start()
    time.sleep(1)
    assert "r" not in result
    _serve(broker, "t-main", "h1")
    caller.join(20)
    assert result.get("r") == "h1"


def test_connection_closes_with_the_last_server(broker):
    _serve(broker, "t-main", "h1")
    hub = _hub()
    _stop(broker)
    assert hub.closed and not shared_listener._hubs
    assert not hub._thread.is_alive()
    # A new server after that gets a new connection.
    _serve(broker, "t-main", "h1")
    assert _hub() is not hub
    assert _call("t-main", "h1") == "h1"


def test_servers_survive_a_dropped_connection(broker):
    for host in ("h1", "h2"):
        _serve(broker, "t-main", host)
    hub = _hub()
    assert _call("t-main", "h1") == "h1"
    # Cut the socket under the draining thread: the driver reconnects and
    # declares every server's consumers again.
    hub.raw.connection.connection.transport.sock.shutdown(2)
    deadline = time.monotonic() + 30
    answers = {}
    while time.monotonic() < deadline and len(answers) < 2:
        for host in ("h1", "h2"):
            try:
                answers[host] = _call("t-main", host, timeout=3)
            except messaging.MessagingTimeout:
                pass
    assert answers == {"h1": "h1", "h2": "h2"}
