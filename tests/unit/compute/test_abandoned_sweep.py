"""The periodic sweep for abandoned builds: one look per host at start,
then only every FULL_CHECK_SECONDS -- or at once after a build of this host
could not write its outcome."""
from keel.compute.ops import build
from keel.compute.ops import recovery


class Mgr(object):
    host = "h1"
    rt = None


def _sweeps(monkeypatch):
    calls = []
    monkeypatch.setattr(recovery, "error_out_abandoned_builds",
                        lambda mgr, ctx: calls.append(mgr.host) or [])
    return calls


def _clock(monkeypatch, start=1000.0):
    now = [start]
    monkeypatch.setattr(recovery.time, "monotonic", lambda: now[0])
    return now


def test_sweep_runs_first_then_only_every_full_check(monkeypatch):
    calls = _sweeps(monkeypatch)
    now = _clock(monkeypatch)
    mgr = Mgr()
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    now[0] += 60
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    assert calls == ["h1"]
    now[0] += recovery.FULL_CHECK_SECONDS
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    assert calls == ["h1", "h1"]


def test_build_that_lost_its_outcome_is_swept_next_period(monkeypatch):
    calls = _sweeps(monkeypatch)
    now = _clock(monkeypatch)
    mgr = Mgr()
    recovery.error_out_abandoned_builds_if_due(mgr, None)

    class Lost(object):
        def __init__(self):
            self.mgr = mgr
            self.context = None
            self.host = mgr.host
            self.instance = type("I", (), {"uuid": "u1"})()

    def unreachable(*args, **kwargs):
        raise RuntimeError("conductor unreachable")
    monkeypatch.setattr(build.objects.Instance, "get_by_uuid", unreachable)
    build._give_up(Lost(), RuntimeError("boom"), None, delays=(0,))
    now[0] += 60
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    assert calls == ["h1", "h1"]
    now[0] += 60
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    assert calls == ["h1", "h1"]


def test_failed_sweep_is_retried_next_period(monkeypatch):
    now = _clock(monkeypatch)
    calls = []

    def failing(mgr, ctx):
        calls.append(1)
        raise RuntimeError("conductor unreachable")
    monkeypatch.setattr(recovery, "error_out_abandoned_builds", failing)
    mgr = Mgr()
    for _ in range(2):
        try:
            recovery.error_out_abandoned_builds_if_due(mgr, None)
        except RuntimeError:
            pass
        now[0] += 60
    assert calls == [1, 1]


def test_start_up_recovery_is_the_first_full_check(monkeypatch):
    """init_host's recovery looked at every instance of the host with no
    build running: the sweep's first look comes a full period later."""
    calls = _sweeps(monkeypatch)
    now = _clock(monkeypatch)
    read = []
    monkeypatch.setattr(recovery.objects.InstanceList, "get_by_host",
                        lambda ctx, host, expected_attrs=None:
                        read.append(host) or [])
    mgr = Mgr()
    recovery.init_instances(mgr, None)
    assert read == ["h1"]
    now[0] += recovery.FULL_CHECK_SECONDS - 1
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    assert calls == []
    now[0] += 1
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    assert calls == ["h1"]
    # A build losing its outcome still asks for the next run at once.
    recovery.note_lost_outcome(mgr)
    now[0] += 60
    recovery.error_out_abandoned_builds_if_due(mgr, None)
    assert calls == ["h1", "h1"]
