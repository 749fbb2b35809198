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
