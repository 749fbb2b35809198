"""The collector pause around scheduling decisions."""
import gc
import threading
from unittest import mock

from keel.scheduler import gcpause


def test_paused_while_a_decision_runs_and_restored_after():
    assert gc.isenabled()
    with gcpause.paused():
        assert not gc.isenabled()
        with gcpause.paused():          # an overlapping decision
            assert not gc.isenabled()
        assert not gc.isenabled()       # the first is still running
    assert gc.isenabled()


def test_restored_when_the_decision_fails():
    try:
        with gcpause.paused():
            raise ValueError("no host")
    except ValueError:
        pass
    assert gc.isenabled()


def test_collector_turned_off_by_someone_else_stays_off():
    gc.disable()
    try:
        with gcpause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_back_to_back_decisions_still_collect(monkeypatch):
    monkeypatch.setattr(gcpause, "MAX_PAUSE_SECONDS", 0.0)
    started, finish = threading.Event(), threading.Event()

    def long_decision():
        with gcpause.paused():
            started.set()
            finish.wait(10)
    other = threading.Thread(target=long_decision)
    other.start()
    started.wait(10)
    try:
        with mock.patch.object(gc, "collect") as collect:
            with gcpause.paused():
                pass
        # The pause is still held by the other decision, yet one
        # collection ran.
        assert not gc.isenabled()
        collect.assert_called_once_with(1)   # young and middle only
    finally:
        finish.set()
        other.join(10)
    assert gc.isenabled()
