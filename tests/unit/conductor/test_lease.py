"""A delivery renews the take of its BuildRequests while it works, so the
safety net never takes a slow delivery for a lost one (tasks/lease.py)."""
import datetime
import time

from oslo_utils import timeutils

from keel.conductor.tasks import build
from keel.conductor.tasks import lease
from keel.conductor.tasks import lookups
from keel.conductor.tasks import safety
from keel import objects
from tests.functional.boot import helpers
from tests.unit.conductor.conftest import selection


def _now():
    return timeutils.utcnow().replace(tzinfo=None, microsecond=0)


def _stale(ctxt, uuid, now):
    return uuid in {row.instance_uuid
                    for row in safety._stale_build_requests(ctxt, now)}


def test_a_slow_delivery_is_not_taken_for_lost(ctxt, cells, deps,
                                               monkeypatch):
    monkeypatch.setattr(safety, "redrive_after", lambda conf=None: 2)
    scheduler, compute, report = deps
    boots, kwargs = helpers.boot_request(ctxt)
    uuid = boots[0].uuid
    seen = []

    def slow_answer(uuids):
        # The scheduler call outlives the re-drive window (a broker
        # restart, then the reply timeout): the net looks meanwhile.
        time.sleep(3.5)
        seen.append(_stale(ctxt, uuid, _now()))
        return [[selection("host-a")] for _ in uuids]

    scheduler.answer = slow_answer
    build.ScheduleAndBuild("cond-1", *deps).execute(ctxt, **kwargs)
    assert seen == [False], "the net would re-drive (and unclaim) it"
    assert [c["instance"].uuid for c in compute.casts] == [uuid]


def test_renewal_moves_the_stamp_only_while_the_take_is_ours(ctxt, cells):
    boots, _ = helpers.boot_request(ctxt, count=3)
    uuids = [b.uuid for b in boots]
    brs = [objects.BuildRequest.get_by_instance_uuid(ctxt, u)
           for u in uuids]
    taken_at = _now() - datetime.timedelta(seconds=600)
    assert lookups.take_build_requests(ctxt, brs, taken_at) == set(uuids)
    now = _now()
    assert _stale(ctxt, uuids[0], now)

    held = lease.BuildLease(ctxt, uuids, taken_at, 30)
    # One re-driven by the net meanwhile, one committed (gone).
    re_driven = taken_at + datetime.timedelta(seconds=1)
    objects.BuildRequest.get_by_instance_uuid(ctxt, uuids[1])
    assert lookups.renew_build_requests(ctxt, [uuids[1]], taken_at,
                                        re_driven) == {uuids[1]}
    objects.BuildRequest.get_by_instance_uuid(ctxt, uuids[2]).destroy()

    assert held.renew(now=now) == [uuids[0]]
    assert not _stale(ctxt, uuids[0], now)
    # The re-driven one keeps the net's stamp: its copy owns it now.
    assert objects.BuildRequest.get_by_instance_uuid(
        ctxt, uuids[1]).updated_at.replace(tzinfo=None) == re_driven


class _CountingCondition:
    """A Condition that counts the wake-ups asked of it."""

    def __init__(self):
        import threading
        self._cond = threading.Condition()
        self.notified = 0

    def __enter__(self):
        return self._cond.__enter__()

    def __exit__(self, *exc):
        return self._cond.__exit__(*exc)

    def wait(self, timeout=None):
        return self._cond.wait(timeout)

    def notify(self, n=1):
        self.notified += 1
        self._cond.notify(n)


def _settled(renewer):
    """Wait until the renewer's thread sleeps until its next lease."""
    deadline = time.monotonic() + 5
    while renewer._wake == 0.0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert renewer._wake, "the renewer thread never went to sleep"


def test_a_lease_due_after_the_others_does_not_wake_the_renewer():
    renewer = lease._Renewer()
    renewer._cond = cond = _CountingCondition()
    first = lease.BuildLease(None, ["a"], _now(), 30)
    renewer.add(first)
    _settled(renewer)
    later = [lease.BuildLease(None, ["b%d" % i], _now(), 30)
             for i in range(5)]
    for held in later:
        renewer.add(held)
    assert cond.notified == 0
    # One due before the thread would wake still wakes it.
    sooner = lease.BuildLease(None, ["c"], _now(), 0.5)
    renewer.add(sooner)
    assert cond.notified == 1
    for held in [first, sooner] + later:
        renewer.discard(held)


def test_a_lease_added_to_an_idle_renewer_is_renewed(monkeypatch):
    renewed = []
    monkeypatch.setattr(lease.BuildLease, "renew",
                        lambda self, now=None: renewed.append(self.uuids))
    renewer = lease._Renewer()
    try:
        renewer.add(lease.BuildLease(None, ["x"], _now(), 0.5))
        deadline = time.monotonic() + 5
        while not renewed and time.monotonic() < deadline:
            time.sleep(0.02)
        assert renewed and renewed[0] == ["x"]
        # Idle again (nothing held), then a new lease: renewed in time too.
        _discard_all(renewer)
        _settled(renewer)
        renewed.clear()
        renewer.add(lease.BuildLease(None, ["y"], _now(), 0.5))
        deadline = time.monotonic() + 5
        while not renewed and time.monotonic() < deadline:
            time.sleep(0.02)
        assert renewed and renewed[0] == ["y"]
    finally:
        # A lease left held outlives the patch: the thread would go on
        # renewing it for real every 0.5 s for the rest of the worker.
        _discard_all(renewer)


def _discard_all(renewer):
    for held in list(renewer._leases):
        renewer.discard(held)
