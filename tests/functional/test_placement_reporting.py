"""Simulated compute hosts reporting to the real Placement service.

The Placement process here is ``python -m keel.embedded.placement`` -- the
same way a test or operator runs it as a separate process -- on a SQLite file
that survives its restart.
"""
import signal
import subprocess
import sys
import uuid

import pytest
import requests

from keel.clients import report
from keel.compute.resources import tracker
from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel.embedded import placement as embedded
from keel import objects
from keel.virt import driver as virt_driver
from tests.fixtures.placement import shared_placement

objects.register_all()


def _start_process(db_url):
    proc = subprocess.Popen(
        [sys.executable, "-m", "keel.embedded.placement", "--db-url", db_url,
         "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("PLACEMENT_ENDPOINT="):
        proc.kill()
        pytest.fail("placement did not start: %s %s" % (
            line, proc.stderr.read()))
    return proc, line.strip().split("=", 1)[1]


def _stop_process(proc):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=15) == 0


@pytest.fixture
def ctx(tmp_path):
    CONF.set_override("connection", f"sqlite:///{tmp_path}/api.sqlite",
                      group="api_database")
    CONF.set_override("connection", f"sqlite:///{tmp_path}/cell.sqlite",
                      group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine())
    yield keel_context.get_admin_context()
    session.reset()
    for group in ("api_database", "database"):
        CONF.clear_override("connection", group=group)
    for name in ("auth_type", "endpoint_override"):
        CONF.clear_override(name, group="placement")
    for name in ("cpu_allocation_ratio", "reserved_host_memory_mb"):
        CONF.clear_override(name)
    CONF.clear_override("memory_mb", group="fake_driver")


def test_embedded_placement_answers_versions_document():
    resp = requests.get(shared_placement().endpoint + "/", timeout=10)
    assert resp.status_code == 200
    version = resp.json()["versions"][0]
    assert version["id"] == "v1.0" and version["status"] == "CURRENT"
    assert version["min_version"] == "1.0"
    assert tuple(map(int, version["max_version"].split("."))) >= (1, 39)


def test_second_database_in_one_process_is_refused(tmp_path):
    shared_placement()
    with pytest.raises(RuntimeError, match="process-wide"):
        embedded.start_placement("sqlite:///%s/other.db" % tmp_path)


def test_hosts_report_to_placement_process_and_state_survives(ctx, tmp_path):
    db_url = "sqlite:///%s/placement/placement.db" % tmp_path
    proc, endpoint = _start_process(db_url)
    try:
        # A nova.conf-style configuration: [placement] and [DEFAULT] only.
        CONF.set_override("auth_type", "none", group="placement")
        CONF.set_override("endpoint_override", endpoint, group="placement")
        CONF.set_override("cpu_allocation_ratio", 2.0)
        CONF.set_override("reserved_host_memory_mb", 256)
        CONF.set_override("memory_mb", 4096, group="fake_driver")
        client = report.ReportClient(conf=CONF)   # one client, N hosts
        hosts = ["sim-%d-%s" % (i, uuid.uuid4().hex[:6]) for i in range(3)]
        for host in hosts:
            drv = virt_driver.load_compute_driver("fake.FakeDriver",
                                                  host=host)
            tracker.ResourceTracker(host, drv, client) \
                .update_available_resource(ctx, startup=True)

        rps = client.placement.list_providers(ctx)
        assert sorted(rp["name"] for rp in rps) == sorted(hosts)
        for rp in rps:
            cn = objects.ComputeNode.get_by_nodename(ctx, rp["name"])
            assert cn.uuid == rp["uuid"]
            inv, _gen = client.placement.get_inventories(ctx, rp["uuid"])
            assert inv["VCPU"]["allocation_ratio"] == 2.0
            assert inv["MEMORY_MB"]["total"] == 4096
            assert inv["MEMORY_MB"]["reserved"] == 256
    finally:
        _stop_process(proc)

    # Restarted on the same database, Placement still has every host.
    proc, endpoint = _start_process(db_url)
    try:
        resp = requests.get(endpoint + "/resource_providers", timeout=10,
                            headers={"OpenStack-API-Version":
                                     "placement 1.14"})
        assert sorted(rp["name"] for rp in
                      resp.json()["resource_providers"]) == sorted(hosts)
    finally:
        _stop_process(proc)


def test_placement_process_refuses_bad_database_url(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "keel.embedded.placement", "--db-url",
         "sqlite://"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "in-memory" in proc.stderr


def test_hosts_starting_together_all_get_their_provider():
    """Many simulated hosts register at once against the SQLite-backed
    embedded Placement; none may fail on SQLite's file lock."""
    import threading
    endpoint = shared_placement().endpoint
    inventory = {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 2048},
                 "DISK_GB": {"total": 20}}
    errors, made = [], []

    def start_host(i):
        try:
            client = report.ReportClient.for_endpoint(endpoint, conf=CONF)
            rp = str(uuid.uuid4())
            tree = client.get_provider_tree_and_ensure_root(
                None, rp, name="burst-%d-%s" % (i, rp[:6]))
            tree.update_inventory(rp, inventory)
            tree.update_traits(rp, {"COMPUTE_NET_ATTACH_INTERFACE"})
            client.update_from_provider_tree(None, tree)
            made.append(rp)
        except Exception as exc:  # noqa: BLE001 - collected and asserted
            errors.append(exc)

    threads = [threading.Thread(target=start_host, args=(i,))
               for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    checker = report.ReportClient.for_endpoint(endpoint, conf=CONF)
    for rp in made:
        inv, _gen = checker.placement.get_inventories(None, rp)
        assert inv["VCPU"]["total"] == 8
