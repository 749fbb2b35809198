"""The real Placement under an operator's WSGI server (uwsgi, gunicorn):
``python -m keel.embedded.placement --server uwsgi|gunicorn`` syncs a
MariaDB database, serves keel's Placement client from separate worker
processes, counts their SQL for the bench, and leaves nothing running after
SIGTERM. (The servers come with the ``bench`` extra; skipped without it.)
"""
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from bench import _deploy
from keel.clients import placement as pl
from tests.fixtures import databases

pytestmark = pytest.mark.integration

MODULE = [sys.executable, "-m", "keel.embedded.placement"]


def _alive(pids):
    return [p for p in pids if os.path.exists(f"/proc/{p}")
            and open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0]
            != "Z"]


@pytest.mark.parametrize("server,module", [("uwsgi", "pyuwsgi"),
                                           ("gunicorn", "gunicorn")])
def test_operator_server_serves_placement(tmp_path, server, module):
    pytest.importorskip(module)
    url = databases.create("mysql", "kt_plsrv")
    counters = tmp_path / "counters"
    env = dict(os.environ, KEEL_BENCH_COUNTERS=str(counters))
    proc = subprocess.Popen(MODULE + ["--db-url", url, "--server", server],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("PLACEMENT_ENDPOINT="), line
        client = pl.PlacementClient(
            pl.adapter_for_endpoint(line.strip().split("=", 1)[1]))
        rp = str(uuid.uuid4())
        client.create_provider(None, rp, "node-" + rp[:8])
        client.put_inventories(None, rp, {"VCPU": {"total": 8}}, 0)
        for _ in range(6):
            assert client.get_provider(None, rp)["uuid"] == rp
        inv, _gen = client.get_inventories(None, rp)
        assert inv["VCPU"]["total"] == 8
        tree = _deploy._children([proc.pid])
        # Our launcher, the server's master and its 2 worker processes.
        assert len(tree) == 4, tree
        time.sleep(1.5)   # the workers write their counters every second
        total, per = _deploy.read_counters(str(counters))
        # Each worker's statements, under the bench's "placement" label.
        assert set(per) == {"placement"}, per
        assert sum(v for k, v in total.items()
                   if k.startswith("sql:") and k[4:].isupper()) > 10
    finally:
        tree = _deploy._children([proc.pid])
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(60)
        deadline = time.monotonic() + 30
        while _alive(tree - {proc.pid}) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = _alive(tree - {proc.pid})
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        databases.drop(url)
    assert rc == 0
    assert not left, "server processes outlived SIGTERM: %s" % left


def test_worker_servers_refuse_sqlite_and_tuning(tmp_path):
    sqlite = f"sqlite:///{tmp_path}/placement.db"
    proc = subprocess.run(MODULE + ["--db-url", sqlite, "--server", "uwsgi"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "server database" in proc.stderr
    proc = subprocess.run(MODULE + ["--db-url", sqlite, "--server",
                                    "gunicorn", "--tuned"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--tuned" in proc.stderr
