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


# -- the launcher itself (keel.workers.Supervisor), in a process of its own:
# the conductor's and scheduler's workers and the API's pre-forked ones.
_LAUNCHER = r"""
import os, signal, sys, time
from keel import workers

out, mode, stop_timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])

def child(index):
    if mode == "startup":
        return workers.EXIT_STARTUP
    def stop(signum, frame):
        with open(out, "a") as fh:
            fh.write(f"stopped {index} {os.getpid()}\n")
        os._exit(0)
    signal.signal(signal.SIGTERM, stop if mode == "graceful" else
                  signal.SIG_IGN)
    with open(out, "a") as fh:
        fh.write(f"started {index} {os.getpid()}\n")
    while True:
        time.sleep(1)

sys.exit(workers.Supervisor("test", 2, child, stop_timeout).run())
"""


def _launcher(tmp_path, mode, stop_timeout=10):
    import subprocess
    import sys
    out = tmp_path / "events"
    out.touch()
    proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(out),
                             mode, str(stop_timeout)])
    return proc, out


def _events(out, kind):
    """{index: [pid, ...]} of the ``kind`` lines, in order."""
    found = {}
    for line in out.read_text().splitlines():
        what, index, pid = line.split()
        if what == kind:
            found.setdefault(int(index), []).append(int(pid))
    return found


def _until(predicate, timeout=30):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def _gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_launcher_respawns_a_dead_worker_and_stops_all_gracefully(tmp_path):
    import signal
    proc, out = _launcher(tmp_path, "graceful")
    try:
        _until(lambda: len(_events(out, "started")) == 2)
        victim = _events(out, "started")[1][0]
        os.kill(victim, signal.SIGKILL)
        # Forked again under the same index, not before MIN_LIFETIME.
        _until(lambda: len(_events(out, "started")[1]) == 2)
        assert len(_events(out, "started")[0]) == 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        live = [pids[-1] for pids in _events(out, "started").values()]
        assert sorted(sum(_events(out, "stopped").values(), [])) == \
            sorted(live)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_launcher_kills_a_worker_that_does_not_stop_in_time(tmp_path):
    import signal
    proc, out = _launcher(tmp_path, "stubborn", stop_timeout=1)
    try:
        _until(lambda: len(_events(out, "started")) == 2)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        assert time.monotonic() - started < 10
        assert all(_gone(pids[0])
                   for pids in _events(out, "started").values())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_launcher_gives_up_when_a_first_start_fails(tmp_path):
    proc, _out = _launcher(tmp_path, "startup")
    assert proc.wait(30) == 1


def test_workers_do_not_outlive_a_killed_launcher(tmp_path):
    proc, out = _launcher(tmp_path, "graceful")
    _until(lambda: len(_events(out, "started")) == 2)
    proc.kill()
    proc.wait()
    # Each worker is told (SIGTERM) and stops as it would on a stop.
    _until(lambda: len(_events(out, "stopped")) == 2)
    _until(lambda: all(_gone(pids[0])
                       for pids in _events(out, "started").values()))
