"""The in-process driver (``keel-inproc:/``) through oslo.messaging's own
RPCClient, RPCServer, Notifier and notification listener API."""
import threading
import time

import oslo_messaging as messaging
import pytest

from keel.conf import CONF
from keel.conf import defaults
from keel.rpc import inproc

URL = "keel-inproc:/"


class Boom(Exception):
    pass


@pytest.fixture
def transport():
    defaults.set_library_defaults(CONF)
    transports = []

    def make(url=URL):
        t = messaging.get_rpc_transport(CONF, url=url,
                                        allowed_remote_exmods=[__name__])
        transports.append(t)
        return t

    servers = []
    make.servers = servers
    yield make
    for srv in servers:
        srv.stop()
        srv.wait()
    for t in transports:
        t.cleanup()
    assert not inproc._buses   # the last cleanup dropped the queues


class Endpoint:
    def __init__(self, name):
        self.name = name
        self.seen = []
        self.event = threading.Event()

    def echo(self, ctxt, value):
        return {"server": self.name, "value": value, "user": ctxt["user"]}

    def record(self, ctxt, value):
        self.seen.append(value)
        self.event.set()

    def mutate(self, ctxt, value):
        value.append("server")
        return value

    def fail(self, ctxt):
        raise Boom("no luck")

    def fail_builtin(self, ctxt):
        raise KeyError("k")

    def unknown_module(self, ctxt):
        raise messaging.MessagingException("not allowed to travel")

    def slow(self, ctxt, seconds):
        time.sleep(seconds)
        return "late"


def serve(make, topic, server, endpoint, url=URL):
    srv = messaging.get_rpc_server(
        make(url), messaging.Target(topic=topic, server=server), [endpoint],
        executor="threading")
    srv.start()
    make.servers.append(srv)
    return srv


def client(make, topic, server=None, fanout=False, timeout=5):
    return messaging.get_rpc_client(
        make(), messaging.Target(topic=topic, server=server, fanout=fanout),
        timeout=timeout)


def test_driver_is_registered():
    drv = messaging.get_rpc_transport(CONF, url=URL)
    try:
        assert isinstance(drv._driver, inproc.InProcessDriver)
    finally:
        drv.cleanup()


def test_call_to_a_server_returns_its_reply(transport):
    serve(transport, "t", "h1", Endpoint("h1"))
    serve(transport, "t", "h2", Endpoint("h2"))
    reply = client(transport, "t", "h2").call({"user": "u"}, "echo",
                                             value=[1, 2])
    assert reply == {"server": "h2", "value": [1, 2], "user": "u"}


def test_call_copies_arguments_and_replies_like_a_broker(transport):
    serve(transport, "t", "h1", Endpoint("h1"))
    sent = ["client"]
    got = client(transport, "t", "h1").call({}, "mutate", value=sent)
    assert got == ["client", "server"]
    assert sent == ["client"]
    # Tuples arrive as lists, as through JSON.
    assert client(transport, "t", "h1").call(
        {"user": "u"}, "echo", value=(1, 2))["value"] == [1, 2]


def test_unserializable_message_fails_at_send(transport):
    serve(transport, "t", "h1", Endpoint("h1"))
    with pytest.raises((TypeError, ValueError)):
        client(transport, "t", "h1").cast({}, "record", value=object())


def test_remote_exception_in_allowed_module_is_reraised(transport):
    serve(transport, "t", "h1", Endpoint("h1"))
    cl = client(transport, "t", "h1")
    with pytest.raises(Boom) as err:
        cl.call({}, "fail")
    assert "no luck" in str(err.value)
    with pytest.raises(KeyError):
        cl.call({}, "fail_builtin")


def test_remote_exception_from_other_module_is_remote_error(transport):
    serve(transport, "t", "h1", Endpoint("h1"))
    with pytest.raises(messaging.RemoteError) as err:
        client(transport, "t", "h1").call({}, "unknown_module")
    assert err.value.exc_type == "MessagingException"


def test_call_without_server_times_out(transport):
    started = time.monotonic()
    with pytest.raises(messaging.MessagingTimeout):
        client(transport, "nobody", "h1", timeout=0.3).call({}, "echo",
                                                            value=1)
    assert time.monotonic() - started < 3


def test_slow_server_times_out_and_late_reply_is_dropped(transport):
    serve(transport, "t", "h1", Endpoint("h1"))
    with pytest.raises(messaging.MessagingTimeout):
        client(transport, "t", "h1", timeout=0.2).call({}, "slow",
                                                       seconds=0.6)
    # The server is still usable afterwards.
    assert client(transport, "t", "h1").call(
        {"user": "u"}, "echo", value=3)["value"] == 3


def test_cast_to_topic_reaches_one_server_of_the_topic(transport):
    eps = [Endpoint(f"h{i}") for i in range(3)]
    for ep in eps:
        serve(transport, "t", ep.name, ep)
    cl = client(transport, "t")
    for i in range(30):
        cl.cast({}, "record", value=i)
    deadline = time.monotonic() + 5
    while sum(len(ep.seen) for ep in eps) < 30 and \
            time.monotonic() < deadline:
        time.sleep(0.01)
    seen = sorted(v for ep in eps for v in ep.seen)
    assert seen == list(range(30))   # each exactly once
    assert sum(1 for ep in eps if ep.seen) >= 2   # spread over servers


def test_cast_before_the_server_starts_waits_in_its_queue(transport):
    client(transport, "t", "late").cast({}, "record", value="early")
    ep = Endpoint("late")
    serve(transport, "t", "late", ep)
    assert ep.event.wait(5)
    assert ep.seen == ["early"]


def test_fanout_reaches_every_server_of_the_topic(transport):
    eps = [Endpoint(f"h{i}") for i in range(3)]
    for ep in eps:
        serve(transport, "t", ep.name, ep)
    other = Endpoint("other")
    serve(transport, "other-topic", "h0", other)
    client(transport, "t", fanout=True).cast({}, "record", value="all")
    for ep in eps:
        assert ep.event.wait(5)
        assert ep.seen == ["all"]
    time.sleep(0.1)
    assert other.seen == []


def test_transports_of_one_url_share_queues_other_vhosts_do_not(transport):
    ep = Endpoint("h1")
    serve(transport, "t", "h1", ep)
    assert client(transport, "t", "h1").call(
        {"user": "u"}, "echo", value=1)["server"] == "h1"
    other = messaging.get_rpc_client(
        transport("keel-inproc:///cell2"),
        messaging.Target(topic="t", server="h1"), timeout=0.2)
    with pytest.raises(messaging.MessagingTimeout):
        other.call({"user": "u"}, "echo", value=1)


def test_stopped_server_leaves_messages_for_the_next_one(transport):
    first = Endpoint("h1")
    srv = serve(transport, "t", "h1", first)
    started = time.monotonic()
    srv.stop()
    srv.wait()
    assert time.monotonic() - started < 1   # no poll interval to wait out
    client(transport, "t", "h1").cast({}, "record", value="queued")
    time.sleep(0.1)
    assert first.seen == []
    second = Endpoint("h1")
    serve(transport, "t", "h1", second)
    assert second.event.wait(5)
    assert second.seen == ["queued"]


def test_idle_listeners_do_not_wake_up(transport):
    for i in range(20):
        serve(transport, "t", f"h{i}", Endpoint(f"h{i}"))
    time.sleep(0.2)
    cpu = time.thread_time(), time.process_time()
    time.sleep(1.0)
    # 20 listeners polling every 50 ms would cost measurable CPU here.
    assert time.process_time() - cpu[1] < 0.05


class Collector:
    def __init__(self):
        self.got = []
        self.event = threading.Event()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self.got.append((publisher_id, event_type, payload))
        self.event.set()

    error = info


def _listener(transport, endpoint, pool=None, topic="notifications"):
    listener = messaging.get_notification_listener(
        transport, [messaging.Target(topic=topic)], [endpoint],
        executor="threading", pool=pool)
    listener.start()
    return listener


def test_notifications_are_stored_until_a_listener_comes(transport):
    t = messaging.get_notification_transport(CONF, url=URL)
    try:
        notifier = messaging.Notifier(t, publisher_id="compute.h1",
                                      driver="messagingv2",
                                      topics=["notifications"])
        notifier.info({}, "compute.instance.create.start", {"n": 1})
        got = Collector()
        listener = _listener(t, got)
        try:
            assert got.event.wait(5)
        finally:
            listener.stop()
            listener.wait()
        assert got.got == [("compute.h1", "compute.instance.create.start",
                            {"n": 1})]
    finally:
        t.cleanup()


def test_notification_pools_each_get_a_copy_listeners_of_one_share(
        transport):
    t = messaging.get_notification_transport(CONF, url=URL)
    pool_a = [Collector(), Collector()]
    pool_b = Collector()
    listeners = [_listener(t, c, pool="a") for c in pool_a]
    listeners.append(_listener(t, pool_b, pool="b"))
    try:
        notifier = messaging.Notifier(t, publisher_id="compute.h1",
                                      driver="messagingv2",
                                      topics=["notifications"])
        for i in range(10):
            notifier.error({}, "compute.instance.exists", {"n": i})
        deadline = time.monotonic() + 5
        while (sum(len(c.got) for c in pool_a) < 10
               or len(pool_b.got) < 10) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sorted(p["n"] for c in pool_a for _, _, p in c.got) == \
            list(range(10))
        assert sorted(p["n"] for _, _, p in pool_b.got) == list(range(10))
    finally:
        for listener in listeners:
            listener.stop()
            listener.wait()
        t.cleanup()
