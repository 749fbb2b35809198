"""`keel all-in-one` as a user runs it: one process, answers, restarts, stops.

The "done when" of the foundation: GET / answers Nova's versions document,
the real Placement lists one resource provider per simulated host with the
configured inventories, Ctrl-C stops it within seconds and a restart keeps
its state.
"""
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests

SAMPLES = pathlib.Path(__file__).resolve().parents[3] / "shared" / \
    "reference" / "compute-api" / "samples"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class AllInOne:
    def __init__(self, state_dir, hosts, config, extra=()):
        self.api_port = _free_port()
        self.placement_port = _free_port()
        self.log = open(state_dir.parent / f"aio-{self.api_port}.log", "w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "keel.cmd.main", "all-in-one",
             "--state-dir", str(state_dir), "--hosts", str(hosts),
             "--api-port", str(self.api_port),
             "--placement-port", str(self.placement_port),
             "--host-name", "sim", "--config-file", str(config), *extra],
            stdout=self.log, stderr=subprocess.STDOUT, text=True)
        self.api = f"http://127.0.0.1:{self.api_port}"
        self.placement = f"http://127.0.0.1:{self.placement_port}"

    def wait_ready(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("all-in-one exited early:\n" +
                                     self.output())
            if "Press Ctrl-C to stop." in self.output():
                return
            time.sleep(0.3)
        raise AssertionError("all-in-one not ready:\n" + self.output())

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def interrupt(self):
        start = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=30)
        return code, time.monotonic() - start

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def _providers(aio):
    resp = requests.get(f"{aio.placement}/resource_providers",
                        headers={"OpenStack-API-Version": "placement 1.30"},
                        timeout=10)
    resp.raise_for_status()
    return resp.json()["resource_providers"]


def _inventories(aio, rp_uuid):
    resp = requests.get(
        f"{aio.placement}/resource_providers/{rp_uuid}/inventories",
        headers={"OpenStack-API-Version": "placement 1.30"}, timeout=10)
    resp.raise_for_status()
    return resp.json()["inventories"]


def _wait_for(fn, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.3)


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "nova.conf"
    path.write_text(
        "[DEFAULT]\n"
        "cpu_allocation_ratio = 8.0\n"
        "reserved_host_memory_mb = 1024\n"
        "[fake_driver]\n"
        "vcpus = 16\n"
        "memory_mb = 32768\n"
        "local_gb = 500\n")
    return path


def test_all_in_one_serves_restarts_and_stops(tmp_path, config):
    state = tmp_path / "state"
    aio = AllInOne(state, hosts=2, config=config)
    try:
        aio.wait_ready()
        out = aio.output()
        assert f"OS_ENDPOINT={aio.api}/v2.1" in out

        versions = requests.get(aio.api + "/", timeout=10)
        assert versions.status_code == 200
        sample = json.loads((SAMPLES / "versions" /
                             "versions-get-resp.json").read_text())
        got = versions.json()
        assert [v["id"] for v in got["versions"]] == \
            [v["id"] for v in sample["versions"]]
        assert got["versions"][1]["version"] == "2.104"
        assert got["versions"][1]["min_version"] == "2.1"

        providers = _wait_for(lambda: len(_providers(aio)) == 2 and
                              _providers(aio))
        assert sorted(p["name"] for p in providers) == ["sim-1", "sim-2"]
        for rp in providers:
            inv = _inventories(aio, rp["uuid"])
            assert inv["VCPU"]["total"] == 16
            assert inv["VCPU"]["allocation_ratio"] == 8.0
            assert inv["MEMORY_MB"]["total"] == 32768
            assert inv["MEMORY_MB"]["reserved"] == 1024
            assert inv["DISK_GB"]["total"] == 500
        first_uuids = sorted(p["uuid"] for p in providers)

        code, took = aio.interrupt()
        assert code == 0, aio.output()
        assert took < 15, f"Ctrl-C took {took:.1f}s"
    finally:
        aio.kill()

    # A restart on the same state directory keeps cells, hosts and
    # providers: nothing is created twice.
    again = AllInOne(state, hosts=2, config=config)
    try:
        again.wait_ready()
        providers = _wait_for(lambda: len(_providers(again)) == 2 and
                              _providers(again))
        assert sorted(p["uuid"] for p in providers) == first_uuids
        code, _ = again.interrupt()
        assert code == 0
    finally:
        again.kill()
    cells = subprocess.run(
        [sys.executable, "-m", "keel.cmd.main", "manage",
         "--config-file", str(_aio_conf(tmp_path, state)),
         "cell_v2", "list_cells"],
        capture_output=True, text=True, timeout=60)
    assert cells.returncode == 0, cells.stderr
    names = [line.split("|")[1].strip() for line in cells.stdout.splitlines()
             if line.startswith("|")][1:]
    assert sorted(names) == ["cell0", "cell1"]


def _aio_conf(tmp_path, state):
    path = tmp_path / "aio-manage.conf"
    path.write_text(
        "[api_database]\n"
        f"connection = sqlite:///{state}/nova_api.sqlite\n"
        "[database]\n"
        f"connection = sqlite:///{state}/nova_cell1.sqlite\n")
    return path


def test_all_in_one_on_kubevirt_has_a_provider_per_kubernetes_node(
        tmp_path, config):
    # --kubesim: the same all-in-one with its compute on the KubeVirt
    # driver, against the bundled Kubernetes/KubeVirt API simulator.
    aio = AllInOne(tmp_path / "state", hosts=1, config=config,
                   extra=("--kubesim", "2"))
    try:
        aio.wait_ready()
        providers = _wait_for(lambda: len(_providers(aio)) == 2 and
                              _providers(aio))
        assert sorted(p["name"] for p in providers) == ["node-1", "node-2"]
        for rp in providers:
            inv = _inventories(aio, rp["uuid"])
            assert inv["VCPU"]["total"] > 0
            assert inv["MEMORY_MB"]["total"] > 0
        hyps = requests.get(
            aio.api + "/v2.1/os-hypervisors/detail",
            headers={"OpenStack-API-Version": "compute 2.88"}, timeout=10)
        assert hyps.status_code == 200, hyps.text
        assert {h["hypervisor_type"] for h in
                hyps.json()["hypervisors"]} == {"kubevirt"}
        code, _ = aio.interrupt()
        assert code == 0, aio.output()
    finally:
        aio.kill()
