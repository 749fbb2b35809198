"""A transport whose close never returns does not block later ones."""
import threading

from keel.rpc import transport as rpc_transport


class _StuckTransport(object):
    """Closes like an oslo.messaging rabbit transport whose broker went
    away: its heartbeat thread is joined for ever (here: until released)."""

    def __init__(self):
        self.entered = threading.Event()
        self.release = threading.Event()

    def cleanup(self):
        self.entered.set()
        self.release.wait(30)


class _Transport(object):
    closed = False

    def cleanup(self):
        self.closed = True


def test_a_stuck_close_leaves_the_registry_usable(monkeypatch):
    stuck = _StuckTransport()
    monkeypatch.setitem(rpc_transport._by_url, ("stuck",), stuck)
    first = threading.Thread(target=rpc_transport.cleanup, daemon=True)
    first.start()
    try:
        assert stuck.entered.wait(10)
        # The first close is still stuck: a new transport can be
        # registered and closed meanwhile.
        later = _Transport()
        monkeypatch.setitem(rpc_transport._by_url, ("later",), later)
        done = threading.Thread(target=rpc_transport.cleanup, daemon=True)
        done.start()
        done.join(10)
        assert not done.is_alive()
        assert later.closed
        assert first.is_alive()
    finally:
        stuck.release.set()
        first.join(10)
    assert not rpc_transport._by_url
