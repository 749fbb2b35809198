"""Servers boot and are deleted end to end across separate processes:
``keel api``, ``keel conductor``, ``keel scheduler`` and one ``keel compute
--hosts N`` (N simulated hosts) over RabbitMQ and MariaDB (PostgreSQL too),
with the real Placement as a process of its own. The client is
openstacksdk; Placement is read over HTTP to check the claims.

``Deployment`` is reused by test_boot_storm.py (the kill -9 fault test).
"""
import os
import signal
import subprocess
import sys
import time
import uuid

import openstack
import pytest
import requests
import sqlalchemy as sa

from tests.fixtures import databases
from tests.integration.test_services_rabbit import _free_port
from tests.integration.test_services_rabbit import _rabbit_or_skip
from tests.integration.test_services_rabbit import _run_manage
from tests.integration.test_services_rabbit import _write

pytestmark = pytest.mark.integration

KEEL = [sys.executable, "-m", "keel.cmd.main"]
PLACEMENT_HEADERS = {"OpenStack-API-Version": "placement 1.28"}


def wait(predicate, timeout, what, interval=0.3):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")


def _descendants(pid):
    """Every process below ``pid`` (from /proc: children first found by
    their parent pid, then theirs)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces: fields after its ')'.
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


class Deployment:
    """One cloud of separate processes; ``start``/``kill``/``restart`` by
    name (api, conductor, scheduler, compute)."""

    def __init__(self, tmp, backend="mysql", hosts=4, computes=1,
                 extra_control="", service_down_time=6):
        # ``computes`` processes of ``hosts`` simulated hosts each.
        self.tmp, self.backend, self.hosts = tmp, backend, hosts
        self.computes = [f"compute{k}" for k in range(1, computes + 1)]
        self.tag = uuid.uuid4().hex[:8]
        self.urls = {name: databases.create(backend, f"keel_{name}")
                     for name in ("api", "cell", "cell0", "placement")}
        self.procs, self.logs = {}, {}
        self.host_names = [f"cmp{k}-{self.tag}-{i}"
                           for k in range(1, computes + 1)
                           for i in range(1, hosts + 1)]
        self.extra_control = extra_control
        self.service_down_time = service_down_time
        self.vhost, self.rabbit_url = databases.private_vhost(
            f"keel_boot_{self.tag}")

    # -- start-up -----------------------------------------------------------
    def start(self):
        placement = subprocess.Popen(
            [sys.executable, "-m", "keel.embedded.placement", "--db-url",
             self.urls["placement"]],
            # stderr to a file: a pipe nobody reads fills up and blocks
            # Placement's logging (and so Placement) mid-test.
            stdout=subprocess.PIPE,
            stderr=open(self.tmp / "placement.stderr", "w"), text=True)
        self.procs["placement"] = placement
        images = self.tmp / "images"
        images.mkdir()
        from keel.allinone import images as seed_images
        self.image_id = seed_images.seed(str(images))["id"]
        line = placement.stdout.readline()
        assert line.startswith("PLACEMENT_ENDPOINT="), \
            (self.tmp / "placement.stderr").read_text()
        self.placement = line.strip().split("=", 1)[1]
        common = (
            f"[DEFAULT]\ntransport_url = {self.rabbit_url}\n"
            f"control_exchange = keel_boot_{self.tag}\n"
            "report_interval = 1\n"
            f"service_down_time = {self.service_down_time}\n"
            "rpc_response_timeout = 20\ngraceful_shutdown_timeout = 10\n"
            "periodic_fuzzy_delay = 0\n"
            "scheduler_instance_sync_interval = 2\n"
            "[placement]\nauth_type = none\n"
            f"endpoint_override = {self.placement}\n"
            f"[image_catalogue]\npath = {images}\n"
            "[fake_driver]\nvcpus = 64\nmemory_mb = 262144\n"
            "local_gb = 4000\n")
        self.control = _write(
            self.tmp / "control.conf", common +
            f"[api_database]\nconnection = {self.urls['api']}\n"
            f"[database]\nconnection = {self.urls['cell']}\n"
            "[upgrade_levels]\ncompute = auto\n"
            "[quota]\ninstances = -1\ncores = -1\nram = -1\n" +
            self.extra_control)
        self.compute_conf = _write(self.tmp / "compute.conf", common)
        _run_manage(self.control, ("api_db", "sync"),
                    ("cell_v2", "map_cell0", "--database_connection",
                     self.urls["cell0"]),
                    ("cell_v2", "create_cell", "--name", "cell1"),
                    ("db", "sync"))
        port = _free_port()
        self.api_own = _write(
            self.tmp / "api-own.conf",
            "[DEFAULT]\nosapi_compute_listen = 127.0.0.1\n"
            f"osapi_compute_listen_port = {port}\n"
            "osapi_compute_workers = 1\n"
            f"log_file = {self.tmp / 'api.log'}\n"
            "[api]\nauth_strategy = keel-development\n")
        self.api = f"http://127.0.0.1:{port}"
        self.engine = sa.create_engine(self.urls["cell"])
        self.cell0_engine = sa.create_engine(self.urls["cell0"])
        for name in ["api", "conductor", "scheduler"]:
            self.launch(name)
        for k, name in enumerate(self.computes):
            # One compute process after the other (see the report of
            # helper INTEG: concurrent first starts of two processes once
            # lost their compute_nodes rows).
            self.launch(name)
            wait(lambda: self._registered(self.host_names[
                :(k + 1) * self.hosts]), 150, "the services to register")
        _run_manage(self.control, ("cell_v2", "discover_hosts"))
        wait(self._providers_ready, 90, "the resource providers")
        wait(self._api_up, 30, "the compute API")
        return self

    def launch(self, name, host=None):
        log = self.tmp / f"{name}.log"
        self.logs[name] = log
        if name == "api":
            argv = ["api", "--config-file", self.control, "--config-file",
                    self.api_own]
        else:
            host = host or {"conductor": f"cond-{self.tag}",
                            "scheduler": f"sched-{self.tag}"}.get(name) or \
                name.replace("compute", "cmp") + f"-{self.tag}"
            own = _write(self.tmp / f"{name}-own.conf",
                         f"[DEFAULT]\nhost = {host}\nlog_file = {log}\n")
            compute = name.startswith("compute")
            base = self.compute_conf if compute else self.control
            argv = ["compute" if compute else name, "--config-file", base,
                    "--config-file", own]
            if compute:
                argv += ["--hosts", str(self.hosts)]
        self.procs[name] = subprocess.Popen(
            KEEL + argv, stdout=subprocess.DEVNULL,
            stderr=open(self.tmp / f"{name}.stderr", "a"), text=True)

    def relaunch(self, name, timeout=90):
        """Start ``name`` again after a kill -9. keel refuses to start a
        service whose record still heartbeats (younger than
        service_down_time): try again until it is accepted."""
        deadline = time.monotonic() + timeout
        while True:
            self.launch(name)
            proc = self.procs[name]
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                return
            err = (self.tmp / f"{name}.stderr").read_text()
            assert "already running" in err[-600:], err[-3000:]
            assert time.monotonic() < deadline, f"{name} not restarted"
            time.sleep(1)

    def kill(self, name):
        """kill -9 the service and every process it forked (conductor and
        scheduler workers would otherwise stop gracefully when their
        launcher dies: a softer fault than the one meant)."""
        proc = self.procs[name]
        pids = [proc.pid] + _descendants(proc.pid)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(10)

    def stop(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        for engine in (getattr(self, "engine", None),
                       getattr(self, "cell0_engine", None)):
            if engine is not None:
                engine.dispose()
        for url in self.urls.values():
            databases.drop(url)
        databases.drop_vhost(self.vhost)

    # -- readiness ------------------------------------------------------------
    def dead(self):
        return {n: (self.tmp / f"{n}.stderr").read_text()[-3000:]
                for n, p in self.procs.items()
                if p.poll() is not None and n != "placement"}

    def _registered(self, names):
        assert not self.dead(), self.dead()
        with self.engine.connect() as conn:
            hosts = set(conn.execute(sa.text(
                "SELECT host FROM services WHERE deleted = 0 AND "
                "`binary` = 'nova-compute'" if self.backend == "mysql" else
                "SELECT host FROM services WHERE deleted = 0 AND "
                "\"binary\" = 'nova-compute'")).scalars())
        return set(names) <= hosts

    def _providers_ready(self):
        resp = requests.get(f"{self.placement}/resource_providers",
                            headers=PLACEMENT_HEADERS, timeout=10)
        names = {rp["name"] for rp in resp.json()["resource_providers"]}
        return set(self.host_names) <= names

    def _api_up(self):
        try:
            return requests.get(self.api + "/", timeout=5).ok
        except requests.RequestException:
            return False

    # -- what a test checks ---------------------------------------------------
    def sdk(self):
        return openstack.connection.Connection(
            auth_type="none", compute_endpoint_override=self.api + "/v2.1/",
            compute_api_version="2.90")

    def consumers(self):
        """Every consumer holding an allocation in Placement, with the
        provider names it holds."""
        rps = requests.get(f"{self.placement}/resource_providers",
                           headers=PLACEMENT_HEADERS, timeout=10).json()
        held = {}
        for rp in rps["resource_providers"]:
            allocs = requests.get(
                f"{self.placement}/resource_providers/{rp['uuid']}/"
                "allocations", headers=PLACEMENT_HEADERS,
                timeout=10).json()["allocations"]
            for consumer in allocs:
                held.setdefault(consumer, set()).add(rp["name"])
        return held

    def instances(self):
        """{uuid: (vm_state, task_state, host, has_fault)} of the live
        instances of cell1 and cell0."""
        found = {}
        for engine in (self.engine, self.cell0_engine):
            with engine.connect() as conn:
                rows = conn.execute(sa.text(
                    "SELECT i.uuid, i.vm_state, i.task_state, i.host, "
                    "(SELECT COUNT(*) FROM instance_faults f WHERE "
                    "f.instance_uuid = i.uuid) FROM instances i "
                    "WHERE i.deleted = 0")).all()
            found.update({r[0]: (r[1], r[2], r[3], r[4] > 0) for r in rows})
        return found


def create_flavor(conn, name="boot.tiny"):
    return conn.compute.create_flavor(name=name, ram=64, vcpus=1, disk=1)


@pytest.fixture(scope="module", params=["mysql", "postgresql"])
def deployment(request, tmp_path_factory):
    _rabbit_or_skip()
    dep = Deployment(tmp_path_factory.mktemp(f"boot-{request.param}"),
                     backend=request.param, hosts=4)
    try:
        yield dep.start()
    finally:
        dep.stop()


def test_boot_active_with_allocations_then_delete_frees_them(deployment):
    dep = deployment
    conn = dep.sdk()
    flavor = create_flavor(conn)
    servers = [conn.compute.create_server(
        name=f"it-{i}", image_id=dep.image_id, flavor_id=flavor.id,
        networks="none") for i in range(6)]
    servers = [conn.compute.wait_for_server(s, status="ACTIVE", wait=60,
                                            interval=0.3) for s in servers]
    held = dep.consumers()
    for server in servers:
        # One allocation, on the provider of the host the server runs on.
        assert held[server.id] == {server.compute_host}, server.id
        assert server.compute_host in dep.host_names
        allocs = requests.get(
            f"{dep.placement}/allocations/{server.id}",
            headers=PLACEMENT_HEADERS, timeout=10).json()
        (resources,) = [a["resources"] for a in
                        allocs["allocations"].values()]
        assert resources == {"VCPU": 1, "MEMORY_MB": 64, "DISK_GB": 1}
        assert allocs["project_id"] == server.project_id
    assert set(held) == {s.id for s in servers}
    assert {u for u, st in dep.instances().items()
            if st[0] == "active"} == {s.id for s in servers}

    for server in servers:
        conn.compute.delete_server(server)
    for server in servers:
        conn.compute.wait_for_delete(server, wait=60, interval=0.3)
    wait(lambda: not dep.consumers(), 20, "the allocations to go")
    assert dep.instances() == {}
    assert not dep.dead(), dep.dead()
    conn.close()
