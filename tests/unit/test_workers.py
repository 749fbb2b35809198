"""Workers of one service (keel.workers + Service.adopt): they share the
launcher's record, only the primary heartbeats and runs the periodic
tasks, and the record is the launcher's to mark stopped. Heartbeats of
services started together are spread over the period, and a heartbeat
save reads no minimum version. (Real processes: tests/integration/
test_workers.py.)"""
import os
import time

import sqlalchemy as sa

from keel.db import session
from keel.objects import service as service_obj
from keel import servicegroup
from keel import workers
from tests.unit.test_service import _record
from tests.unit.test_service import _service
from tests.unit.test_service import env  # noqa: F401 - fixture


def _worker(env, launcher_svc, primary):
    svc = _service(env, start=False)
    svc.adopt(launcher_svc.service_ref, primary=primary)
    svc.start()
    env.append(svc)
    return svc


def test_workers_share_the_record_and_only_the_primary_beats(env):  # noqa: F811
    launcher = _service(env, report_interval=0)   # registers, never beats
    primary = _worker(env, launcher, primary=True)
    other = _worker(env, launcher, primary=False)
    assert primary.service_ref.id == other.service_ref.id == \
        launcher.service_ref.id
    count = _record().report_count
    time.sleep(2.5)
    assert _record().report_count >= count + 2     # the primary's beats
    assert primary.manager.periodic_runs >= 2
    assert other.manager.periodic_runs == 0
    assert other._heartbeat is None
    # A worker stopping leaves the record alone (others still serve);
    # the launcher marks it stopped at the end.
    other.stop(graceful_timeout=5)
    primary.stop(graceful_timeout=5)
    assert servicegroup.API().is_up(_record())
    launcher.stop(graceful_timeout=5)
    assert not servicegroup.API().is_up(_record())


def test_a_restarted_worker_continues_the_report_count(env):  # noqa: F811
    launcher = _service(env, report_interval=0)
    first = _worker(env, launcher, primary=True)
    time.sleep(2.2)
    first.stop(graceful_timeout=5)
    reached = _record().report_count
    assert launcher.service_ref.report_count < reached
    again = _worker(env, launcher, primary=True)
    # It goes on from the record, not from its launcher's stale copy.
    assert again.service_ref.report_count >= reached
    time.sleep(1.5)
    assert _record().report_count > reached


def test_heartbeats_of_services_started_together_are_spread():
    beats = []

    class _Svc:
        binary, host = "nova-compute", "h"

    hbs = [servicegroup.api.Heartbeat(_Svc(), 2) for _ in range(20)]
    for hb in hbs:
        hb.report_state = lambda: beats.append(time.monotonic())
    started = time.monotonic()
    for hb in hbs:
        hb.start()
    time.sleep(2.3)
    for hb in hbs:
        hb.stop(1)
    first = sorted(beats)[:20]
    assert len(first) == 20
    assert all(t - started <= 2.1 for t in first)    # within one period
    assert first[-1] - first[0] > 0.5                # not in step


def test_a_heartbeat_save_reads_no_minimum_version(env):  # noqa: F811
    svc = _service(env, report_interval=0)
    ref = svc.service_ref
    statements = []

    def hook(conn, cursor, statement, *args):
        statements.append(statement)

    engine = session.cell_engine()
    sa.event.listen(engine, "before_cursor_execute", hook)
    try:
        for _ in range(3):
            ref.report_count += 1
            ref.save()
    finally:
        sa.event.remove(engine, "before_cursor_execute", hook)
    assert not [s for s in statements if "min(" in s.lower()], statements
    assert _record().report_count == ref.report_count
    service_obj.clear_min_version_cache()


def test_worker_count_defaults_to_the_cpus():
    assert workers.worker_count(3) == 3
    assert workers.worker_count(None) == (os.cpu_count() or 1)
    assert workers.worker_count(0) == (os.cpu_count() or 1)
