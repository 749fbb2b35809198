"""``keel conductor`` with ``[conductor]/workers = 2`` as real processes on
RabbitMQ and MariaDB: one record for the launcher and its workers, both
workers serve calls, a killed worker is replaced (the primary keeps the
record beating), a foreign second conductor for the same host is still
refused, SIGTERM stops them all and leaves the record stopped, and workers
do not outlive a killed launcher.
"""
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import sqlalchemy as sa

from tests.fixtures import databases
from tests.integration.test_services_rabbit import _rabbit_or_skip
from tests.integration.test_services_rabbit import _run_manage
from tests.integration.test_services_rabbit import _wait
from tests.integration.test_services_rabbit import _write

pytestmark = pytest.mark.integration

KEEL = [sys.executable, "-m", "keel.cmd.main"]


def _children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return sorted(out)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _record(engine, host):
    with engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT id, report_count, last_seen_up FROM services "
            "WHERE host = :h AND `binary` = 'nova-conductor' "
            "AND deleted = 0"), {"h": host}).all()
    return rows


def _sql_counts(counters, pids):
    """SQL statements each pid reported (keel.benchcounters files)."""
    out = {}
    for pid in pids:
        try:
            with open(os.path.join(counters, f"{pid}.json")) as fh:
                counts = json.load(fh)["counts"]
        except (OSError, ValueError, KeyError):
            counts = {}
        out[pid] = sum(v for k, v in counts.items()
                       if k.startswith("sql:") and k[4:].isupper())
    return out


@pytest.fixture
def deployment(tmp_path):
    _rabbit_or_skip()
    tag = uuid.uuid4().hex[:8]
    api_url = databases.create("mysql", "keel_wapi")
    cell_url = databases.create("mysql", "keel_wcell")
    cell0_url = databases.create("mysql", "keel_wcell0")
    vhost, rabbit_url = databases.private_vhost(f"keel_wk_{tag}")
    counters = tmp_path / "counters"
    conf = _write(tmp_path / "conductor.conf",
                  f"[DEFAULT]\ntransport_url = {rabbit_url}\n"
                  f"host = cond-{tag}\n"
                  "report_interval = 1\nservice_down_time = 6\n"
                  "graceful_shutdown_timeout = 10\n"
                  "periodic_fuzzy_delay = 0\n"
                  f"log_file = {tmp_path / 'conductor.log'}\n"
                  f"[api_database]\nconnection = {api_url}\n"
                  f"[database]\nconnection = {cell_url}\n"
                  "[conductor]\nworkers = 2\n")
    _run_manage(conf, ("api_db", "sync"),
                ("cell_v2", "map_cell0", "--database_connection", cell0_url),
                ("cell_v2", "create_cell", "--name", "cell1"),
                ("db", "sync"))
    env = dict(os.environ, KEEL_BENCH_COUNTERS=str(counters))
    procs = []

    def start():
        proc = subprocess.Popen(KEEL + ["conductor", "--config-file", conf],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                env=env)
        procs.append(proc)
        return proc

    engine = sa.create_engine(cell_url)
    yield {"start": start, "engine": engine, "host": f"cond-{tag}",
           "rabbit_url": rabbit_url, "counters": str(counters),
           "log": tmp_path / "conductor.log"}
    for proc in procs:
        pids = _children(proc.pid)
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    engine.dispose()
    for url in (api_url, cell_url, cell0_url):
        databases.drop(url)
    databases.drop_vhost(vhost)


def _client(rabbit_url):
    import oslo_messaging as messaging

    from keel.conf import CONF

    transport = messaging.get_rpc_transport(CONF, url=rabbit_url)
    return transport, messaging.get_rpc_client(
        transport, messaging.Target(exchange="nova", topic="conductor",
                                    version="3.0"), timeout=20)


def _lookup(client, host):
    """A conductor call that reads the database (Service lookup)."""
    return client.call({}, "object_class_action_versions",
                       objname="Service", objmethod="get_by_host_and_binary",
                       object_versions={"Service": "1.22"},
                       args=[host, "nova-conductor"], kwargs={})


def test_two_workers_one_record_restart_refusal_and_stop(deployment):
    engine, host = deployment["engine"], deployment["host"]
    parent = deployment["start"]()
    _wait(lambda: len(_children(parent.pid)) == 2 and _record(engine, host)
          and _record(engine, host)[0].report_count >= 3, 90,
          "two workers and a beating record")
    workers = _children(parent.pid)
    assert len(_record(engine, host)) == 1

    # Both workers serve the topic: each one's database use grows while
    # the calls go on.
    transport, client = _client(deployment["rabbit_url"])
    try:
        time.sleep(1.5)         # counters are written once a second
        before = _sql_counts(deployment["counters"], workers)
        for _ in range(30):
            answer = _lookup(client, host)
            assert answer["nova_object.data"]["host"] == host
        time.sleep(2)
        after = _sql_counts(deployment["counters"], workers)
        served = [pid for pid in workers if after[pid] > before[pid]]
        # Heartbeats and periodic tasks are the primary's only: the other
        # worker's statements are the calls it served.
        assert sorted(served) == workers, (before, after)

        # A killed worker is replaced, whichever it was; the record goes
        # on beating (the primary comes back as primary).
        for victim in list(workers):
            os.kill(victim, signal.SIGKILL)
            _wait(lambda: len(_children(parent.pid)) == 2 and
                  victim not in _children(parent.pid), 30,
                  "the killed worker to be replaced")
        beats = _record(engine, host)[0].report_count
        _wait(lambda: _record(engine, host)[0].report_count >= beats + 2,
              20, "heartbeats after the restarts")
        assert _lookup(client, host)["nova_object.data"]["host"] == host
    finally:
        transport.cleanup()

    # A second conductor for the same host is refused while we run.
    twin = deployment["start"]()
    out, _ = twin.communicate(timeout=90)
    assert twin.returncode == 1, out
    assert "cannot start" in out and "already running" in out.lower(), out
    assert parent.poll() is None
    assert len(_record(engine, host)) == 1

    # SIGTERM: every worker stops, the record is marked stopped, and a
    # restart right away is accepted (not taken for a duplicate).
    workers = _children(parent.pid)
    parent.send_signal(signal.SIGTERM)
    assert parent.wait(60) == 0
    assert not any(_alive(pid) for pid in workers)
    assert _record(engine, host)[0].last_seen_up.year == 1970
    again = deployment["start"]()
    _wait(lambda: len(_children(again.pid)) == 2 and
          _record(engine, host)[0].last_seen_up.year > 1970, 60,
          "the restarted conductor to beat")

    # Workers do not outlive a killed launcher.
    workers = _children(again.pid)
    again.kill()
    again.wait(10)
    _wait(lambda: not any(_alive(pid) for pid in workers), 30,
          "the orphaned workers to stop")
