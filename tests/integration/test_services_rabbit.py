"""api, conductor, scheduler and two computes as separate ``keel`` processes on
RabbitMQ and MariaDB: they register, heartbeat, reach each other by call and
cast, and a SIGKILLed compute is reported down after service_down_time.

The computes are given no database at all: their service records and
heartbeats can only reach MariaDB through the conductor.
"""
import json
import signal
import subprocess
import sys
import time
import uuid

import pytest
import requests
import sqlalchemy as sa

from keel.compute import rpcapi as compute_rpcapi
from keel.conf import CONF
from keel.conf import defaults
from keel import context as keel_context
from keel.rpc import transport as rpc_transport
from keel import servicegroup
from tests.fixtures import databases

pytestmark = pytest.mark.integration

KEEL = [sys.executable, "-m", "keel.cmd.main"]
REPORT_INTERVAL = 1
SERVICE_DOWN_TIME = 6


def _rabbit_or_skip():
    import kombu
    url = databases.RABBIT_URL.replace("rabbit://", "amqp://")
    try:
        with kombu.Connection(url, connect_timeout=3) as conn:
            conn.connect()
    except Exception as exc:  # noqa: BLE001
        databases._unavailable("RabbitMQ", exc)


def _capture_fanout(exchange, tag, rabbit_url, timeout=15):
    """The next raw message on a fanout exchange, read with kombu from a
    queue of our own (as a second scheduler would receive it)."""
    import kombu
    url = rabbit_url.replace("rabbit://", "amqp://")
    with kombu.Connection(url, connect_timeout=5) as conn:
        channel = conn.channel()
        queue = kombu.Queue(
            f"keel-it-probe-{tag}", channel=channel, exclusive=True,
            auto_delete=True,
            exchange=kombu.Exchange(exchange, type="fanout", passive=True))
        queue.declare()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = queue.get(no_ack=True)
            if msg is not None:
                return json.loads(msg.body)
            time.sleep(0.2)
    raise AssertionError(f"no message on {exchange}")


def _free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write(path, text):
    path.write_text(text)
    return str(path)


def _run_manage(conf, *commands):
    """Run ``keel manage`` commands in one interpreter (start-up is the
    slow part), stopping at the first failure."""
    script = ("import sys\nfrom keel.cmd import manage\n"
              "for args in %r:\n"
              "    rc = manage.main(['--config-file', %r] + list(args))\n"
              "    if rc:\n"
              "        sys.exit('keel manage %%s: exit %%s' %% (args, rc))\n"
              % (commands, conf))
    proc = subprocess.run([sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)


def _wait(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module", params=["mysql", "postgresql"])
def deployment(request, tmp_path_factory):
    # The same deployment on each production database: MariaDB (PyMySQL)
    # and PostgreSQL (psycopg 3).
    _rabbit_or_skip()
    backend = request.param
    tmp = tmp_path_factory.mktemp(f"services-{backend}")
    tag = uuid.uuid4().hex[:8]
    api_url = databases.create(backend, "keel_api")
    cell_url = databases.create(backend, "keel_cell")
    cell0_url = databases.create(backend, "keel_cell0")
    placement_url = databases.create(backend, "keel_placement")
    # A private exchange keeps this run apart from anything else on the
    # shared broker; everything else is the production configuration.
    vhost, rabbit_url = databases.private_vhost(f"keel_it_{tag}")
    common = (f"[DEFAULT]\ntransport_url = {rabbit_url}\n"
              f"control_exchange = keel_it_{tag}\n"
              f"report_interval = {REPORT_INTERVAL}\n"
              f"service_down_time = {SERVICE_DOWN_TIME}\n"
              f"rpc_response_timeout = 10\n"
              f"graceful_shutdown_timeout = 20\n"
              f"periodic_fuzzy_delay = 0\n"
              # A cast sent before the scheduler declared its fanout queue
              # is lost (as in Nova); the periodic sync repeats it.
              f"scheduler_instance_sync_interval = 2\n")
    control = _write(tmp / "control.conf", common +
                     f"[api_database]\nconnection = {api_url}\n"
                     f"[database]\nconnection = {cell_url}\n"
                     "[upgrade_levels]\ncompute = auto\n")
    # The real Placement (embedded server, own database), started
    # while the migrations run: the computes report their resources to it.
    placement = subprocess.Popen(
        [sys.executable, "-m", "keel.embedded.placement", "--db-url",
         placement_url],
        # stderr to a file: a pipe nobody reads fills up and stalls it.
        stdout=subprocess.PIPE, stderr=open(tmp / "placement.log", "w"),
        text=True)
    _run_manage(control, ("api_db", "sync"),
                ("cell_v2", "map_cell0", "--database_connection", cell0_url),
                ("cell_v2", "create_cell", "--name", "cell1"),
                ("db", "sync"))

    procs, logs = {"placement": placement}, {}
    line = placement.stdout.readline()
    assert line.startswith("PLACEMENT_ENDPOINT="), \
        (tmp / "placement.log").read_text()
    endpoint = line.strip().split("=", 1)[1]
    compute_conf = _write(tmp / "compute.conf", common +
                          "[placement]\nauth_type = none\n"
                          f"endpoint_override = {endpoint}\n")
    api_port = _free_port()
    api_conf = _write(tmp / "api-own.conf",
                      "[DEFAULT]\nosapi_compute_listen = 127.0.0.1\n"
                      f"osapi_compute_listen_port = {api_port}\n"
                      "osapi_compute_workers = 1\n"
                      f"log_file = {tmp / 'api.log'}\n"
                      "[api]\nauth_strategy = keel-development\n")
    procs["api"] = subprocess.Popen(
        KEEL + ["api", "--config-file", control, "--config-file", api_conf],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    hosts = {"conductor": f"cond-{tag}", "scheduler": f"sched-{tag}",
             "compute1": f"cmp1-{tag}", "compute2": f"cmp2-{tag}"}
    for name, host in hosts.items():
        log = tmp / f"{name}.log"
        # Computes get no database at all, only the broker and Placement.
        cfg = compute_conf if name.startswith("compute") else control
        own = _write(tmp / f"{name}.conf",
                     f"[DEFAULT]\nhost = {host}\nlog_file = {log}\n")
        service = "compute" if name.startswith("compute") else name
        procs[name] = subprocess.Popen(
            KEEL + [service, "--config-file", cfg, "--config-file", own],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        logs[name] = log
    engine = sa.create_engine(cell_url)
    yield {"procs": procs, "logs": logs, "hosts": hosts, "engine": engine,
           "tag": tag, "control": control, "placement": endpoint,
           "rabbit_url": rabbit_url,
           "api": f"http://127.0.0.1:{api_port}"}
    for proc in procs.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    engine.dispose()
    for url in (api_url, cell_url, cell0_url, placement_url):
        databases.drop(url)
    databases.drop_vhost(vhost)


def _services(engine):
    from keel.db.cell import models
    cols = [getattr(models.Service, name) for name in (
        "host", "binary", "topic", "report_count", "updated_at",
        "last_seen_up", "created_at", "forced_down", "version")]
    with engine.connect() as conn:
        rows = conn.execute(sa.select(*cols).where(
            models.Service.deleted == 0)).mappings().all()
    return {row["host"]: dict(row) for row in rows}


def _alive_report(deployment):
    dead = {n: p.stdout.read() for n, p in deployment["procs"].items()
            if p.poll() is not None and n != "placement"}
    return dead


def test_services_register_heartbeat_call_cast_and_go_down(deployment):
    engine, hosts = deployment["engine"], deployment["hosts"]

    # 1. All four register (the computes through the conductor).
    def registered():
        assert not _alive_report(deployment), _alive_report(deployment)
        rows = _services(engine)
        return rows if set(hosts.values()) <= set(rows) else None
    rows = _wait(registered, 45, "four services in the services table")
    binaries = {rows[h]["binary"] for h in hosts.values()}
    assert binaries == {"nova-conductor", "nova-scheduler", "nova-compute"}
    assert rows[hosts["compute1"]]["topic"] == "compute"
    assert {rows[h]["version"] for h in hosts.values()} == {74}

    # 2. Heartbeats advance report_count and the timestamps.
    before = {h: rows[h]["report_count"] for h in hosts.values()}
    later = _wait(lambda: (lambda r: r if all(
        r[h]["report_count"] >= before[h] + 2 for h in hosts.values())
        else None)(_services(engine)), 15, "heartbeats")
    for h in hosts.values():
        assert later[h]["updated_at"] is not None
        assert later[h]["last_seen_up"] > rows[h]["created_at"]
        assert servicegroup.API(SERVICE_DOWN_TIME).is_up(later[h])

    # 3. A call to each compute by host name over RabbitMQ.
    defaults.set_library_defaults(CONF)
    CONF.set_override("transport_url", deployment["rabbit_url"])
    CONF.set_override("control_exchange", f"keel_it_{deployment['tag']}")
    CONF.set_override("compute", None, group="upgrade_levels")
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    try:
        api = compute_rpcapi.ComputeAPI()
        ctxt = keel_context.get_admin_context()
        for name in ("compute1", "compute2"):
            uptime = api.get_host_uptime(ctxt, hosts[name])
            assert " up " in uptime and "load average" in uptime
    finally:
        rpc_transport.cleanup()
        compute_rpcapi.reset_globals()
        for opt in ("transport_url", "control_exchange"):
            CONF.clear_override(opt)
        CONF.clear_override("compute", group="upgrade_levels")

    # 4. The computes' fanout casts reached the scheduler.
    def scheduler_heard_both():
        text = deployment["logs"]["scheduler"].read_text()
        return all(f"host '{hosts[c]}'" in text
                   for c in ("compute1", "compute2"))
    _wait(scheduler_heard_both, 15, "instance info casts at the scheduler")

    # 4b. On the wire it is Nova's frame: an oslo.messaging 2.0 envelope
    #     with the method, its version and the context as _context_* keys.
    frame = _capture_fanout("scheduler_fanout", deployment["tag"],
                            deployment["rabbit_url"])
    assert frame["oslo.version"] == "2.0"
    message = json.loads(frame["oslo.message"])
    assert message["method"] == "sync_instance_info"
    assert message["version"] == "4.2"
    assert message["args"]["host_name"] in (hosts["compute1"],
                                            hosts["compute2"])
    for key in ("_context_request_id", "_context_is_admin",
                "_context_roles", "_context_read_deleted",
                "_context_timestamp", "_context_service_catalog"):
        assert key in message, key

    # 5. The API process answers next to them (versions document).
    def api_versions():
        try:
            return requests.get(deployment["api"] + "/", timeout=5).json()
        except requests.RequestException:
            return None
    doc = _wait(api_versions, 30, "the compute API")
    assert "v2.1" in {v["id"] for v in doc["versions"]}

    # 5b. Each compute is a resource provider in Placement (named after its
    #    node, which the fake driver names after the host).
    def providers():
        resp = requests.get(f"{deployment['placement']}/resource_providers",
                            headers={"OpenStack-API-Version":
                                     "placement 1.14"}, timeout=10)
        names = {rp["name"] for rp in resp.json()["resource_providers"]}
        return names if {hosts["compute1"], hosts["compute2"]} <= names \
            else None
    _wait(providers, 20, "the computes' resource providers")

    # 6. A second compute with compute1's (live) name is refused.
    tmp = deployment["logs"]["compute1"].parent
    compute1_args = KEEL + ["compute", "--config-file",
                            str(tmp / "compute.conf"), "--config-file",
                            str(tmp / "compute1.conf")]
    dup = subprocess.run(compute1_args, capture_output=True, text=True,
                         timeout=60)
    assert dup.returncode == 1, dup.stderr
    assert "already running" in dup.stderr and hosts["compute1"] in \
        dup.stderr
    assert "Traceback" not in dup.stderr

    # 7. SIGKILL compute2: it is reported down after service_down_time,
    #    while compute1 stays up.
    victim = deployment["procs"]["compute2"]
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    killed_at = time.monotonic()
    api_down = servicegroup.API(SERVICE_DOWN_TIME)
    _wait(lambda: not api_down.is_up(_services(engine)[hosts["compute2"]]),
          SERVICE_DOWN_TIME + 10, "the killed compute to be reported down")
    assert time.monotonic() - killed_at >= SERVICE_DOWN_TIME - 2
    assert api_down.is_up(_services(engine)[hosts["compute1"]])

    # 8. SIGTERM compute1: graceful stop, exit 0, record down at once; an
    #    immediate restart under the same name is accepted and heartbeats.
    first = deployment["procs"]["compute1"]
    first.send_signal(signal.SIGTERM)
    assert first.wait(30) == 0
    assert "graceful shutdown finished" in \
        deployment["logs"]["compute1"].read_text()
    assert not api_down.is_up(_services(engine)[hosts["compute1"]])
    again = subprocess.Popen(compute1_args, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    deployment["procs"]["compute1-again"] = again
    _wait(lambda: api_down.is_up(_services(engine)[hosts["compute1"]]),
          45, "the restarted compute to be up")

    # 9. SIGTERM the rest: each finishes its shutdown and exits 0.
    for name in ("compute1-again", "scheduler", "conductor", "api"):
        proc = deployment["procs"][name]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, name
    for name in ("scheduler", "conductor"):
        assert "graceful shutdown finished" in \
            deployment["logs"][name].read_text(), name
