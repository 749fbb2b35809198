"""keel.benchcounters: counts SQL statements, RPC sends and Placement
requests only when KEEL_BENCH_COUNTERS is set, and installs nothing
otherwise. Each case runs in a fresh interpreter (the variable is read at
import, and the hooks are process-wide)."""
import json
import os
import subprocess
import sys

SCRIPT = """
import sqlalchemy as sa
from keel import benchcounters
import keel.db.session  # installs the SQL hook when enabled
import keel.rpc.transport  # installs the RPC hook when enabled
from oslo_messaging import transport
engine = sa.create_engine("sqlite://")
with engine.connect() as conn:
    for _ in range(3):
        conn.execute(sa.text("SELECT 1"))
benchcounters.placement_request("GET", "/allocation_candidates?x=1") \\
    if benchcounters.ENABLED else None
benchcounters.dump()
print(benchcounters.ENABLED,
      sa.event.contains(sa.engine.Engine, "before_cursor_execute",
                        getattr(benchcounters, "_sql_hook", None)),
      transport.Transport._send.__module__)
"""


def _run(tmp_path, enabled):
    env = dict(os.environ)
    env.pop("KEEL_BENCH_COUNTERS", None)
    if enabled:
        env["KEEL_BENCH_COUNTERS"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()[-3:]


def test_counts_statements_and_placement_requests_when_enabled(tmp_path):
    enabled, _hooked, send_module = _run(tmp_path, enabled=True)
    assert enabled == "True"
    assert send_module == "keel.benchcounters"
    (dump,) = [p for p in tmp_path.iterdir() if p.suffix == ".json"]
    counts = json.loads(dump.read_text())["counts"]
    assert counts["sql:SELECT"] == 3
    assert counts["placement:GET"] == 1
    assert counts["placement_path:GET /allocation_candidates"] == 1


def test_nothing_installed_when_unset(tmp_path):
    enabled, hooked, send_module = _run(tmp_path, enabled=False)
    assert (enabled, hooked) == ("False", "False")
    assert send_module == "oslo_messaging.transport"
    assert not list(tmp_path.iterdir())
