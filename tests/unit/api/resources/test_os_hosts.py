"""os-hosts (deprecated, 2.1 - 2.42) through the API stack on SQLite cells:
samples' shapes, per-project usage, PUT/power answers for drivers with and
without the feature (501), unknown hosts, policy and 404 from 2.43."""
import pytest

from keel.compute import rpcapi as compute_rpcapi
from keel.compute.ops import host_actions
from keel import objects
from keel.policies import os_hosts as names
from keel import policies
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.resources.test_hypervisors import CPU
from tests.unit.api.resources.test_services import seed_services

V = "OpenStack-API-Version"


def _call(app, path, version="2.1", method="GET", body=None):
    return call(app, "/v2.1/os-hosts" + path, method=method, body=body,
                headers={V: f"compute {version}"})


@pytest.fixture
def env(api_env, cells_db):  # noqa: F811
    services = seed_services(cells_db)
    ctx = services["cmp1"]._context
    objects.ComputeNode(
        ctx, host="host1", hypervisor_hostname="host1.example",
        service_id=services["cmp1"].id, vcpus=4, memory_mb=8192,
        local_gb=100, vcpus_used=3, memory_mb_used=1536, local_gb_used=30,
        hypervisor_type="kubevirt", hypervisor_version=1000,
        free_ram_mb=6656, free_disk_gb=70, current_workload=0,
        running_vms=2, cpu_info=CPU, disk_available_least=60,
        host_ip="192.168.1.1", supported_hv_specs=[]).create()
    for project, vcpus, mem, root, eph in (("pa", 1, 512, 10, 0),
                                           ("pb", 2, 1024, 10, 10),
                                           ("pa", 1, 512, 10, 0)):
        objects.Instance(ctx, host="host1", node="host1.example",
                         project_id=project, user_id="u", vcpus=vcpus,
                         memory_mb=mem, root_gb=root,
                         ephemeral_gb=eph).create()
    return api_env


def test_list_matches_sample(env):
    resp = _call(env, "")
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(
        resp.json, samples.load("os-hosts/hosts-list-resp.json")) == []
    assert sorted((h["host_name"], h["service"], h["zone"])
                  for h in resp.json["hosts"]) == [
        ("host1", "compute", "nova"), ("host1", "scheduler", "internal"),
        ("host2", "compute", "nova")]
    zoned = _call(env, "?zone=internal").json["hosts"]
    assert [h["service"] for h in zoned] == ["scheduler"]


def test_list_leaves_out_disabled_services(env, cells_db):  # noqa: F811
    from keel import context as keel_context
    from tests.functional.api.fixtures_cells import CELL1_UUID
    ctx = keel_context.get_admin_context()
    with keel_context.target_cell(ctx, cells_db.mapping(CELL1_UUID)) as c:
        svc = objects.Service.get_by_compute_host(c, "host2")
        svc.disabled = True
        svc.save()
    hosts = {(h["host_name"], h["service"])
             for h in _call(env, "").json["hosts"]}
    assert ("host2", "compute") not in hosts
    assert ("host1", "compute") in hosts


def test_show_usage_per_project(env):
    resp = _call(env, "/host1")
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(
        resp.json, samples.load("os-hosts/host-get-resp.json")) == []
    by_project = {r["resource"]["project"]: r["resource"]
                  for r in resp.json["host"]}
    assert [r["resource"]["project"] for r in resp.json["host"]][:3] == [
        "(total)", "(used_now)", "(used_max)"]
    assert by_project["(total)"] == {"host": "host1", "project": "(total)",
                                     "cpu": 4, "memory_mb": 8192,
                                     "disk_gb": 100}
    assert by_project["(used_now)"]["cpu"] == 3
    assert by_project["(used_max)"] == {
        "host": "host1", "project": "(used_max)", "cpu": 4,
        "memory_mb": 2048, "disk_gb": 40}
    assert by_project["pa"]["cpu"] == 2 and by_project["pa"]["disk_gb"] == 20
    assert by_project["pb"]["memory_mb"] == 1024


def test_show_unknown_hosts(env):
    resp = _call(env, "/nowhere")
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == \
        "Host 'nowhere' is not mapped to any cell"
    # mapped, but no compute node
    resp = _call(env, "/host2")
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == \
        "Compute host host2 could not be found."


class FakeCompute:
    """What a compute with Nova's fake driver answers (or, with
    supported=False, a driver without the features)."""

    def __init__(self, supported=True):
        self.supported = supported
        self.calls = []

    def set_host_enabled(self, ctxt, host, enabled):
        self.calls.append(("set_host_enabled", host, enabled))
        return "enabled" if enabled else "disabled"

    def host_maintenance_mode(self, ctxt, host, host_param, mode):
        self.calls.append(("host_maintenance_mode", host, mode))
        if not self.supported:
            raise NotImplementedError()
        return "on_maintenance" if mode else "off_maintenance"

    def host_power_action(self, ctxt, host, action):
        self.calls.append(("host_power_action", host, action))
        if not self.supported:
            raise NotImplementedError()
        return action


@pytest.fixture
def compute(monkeypatch):
    fake = FakeCompute()
    for name in ("set_host_enabled", "host_maintenance_mode",
                 "host_power_action"):
        monkeypatch.setattr(compute_rpcapi.ComputeAPI, name,
                            lambda self, *a, _n=name: getattr(fake, _n)(*a))
    return fake


def test_update_matches_sample(env, compute):
    body = samples.load("os-hosts/host-put-maintenance-req.json")
    resp = _call(env, "/host1", method="PUT", body=body)
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(
        resp.json, samples.load("os-hosts/host-put-maintenance-resp.json")) \
        == []
    assert resp.json == {"host": "host1", "status": "enabled",
                         "maintenance_mode": "off_maintenance"}
    assert compute.calls == [("set_host_enabled", "host1", True),
                             ("host_maintenance_mode", "host1", False)]
    resp = _call(env, "/host1", method="PUT", body={"status": "DISABLE"})
    assert resp.json == {"host": "host1", "status": "disabled"}


def test_update_without_driver_support(env, compute):
    compute.supported = False
    resp = _call(env, "/host1", method="PUT",
                 body={"status": "disable"})
    assert resp.json == {"host": "host1", "status": "disabled"}
    resp = _call(env, "/host1", method="PUT",
                 body={"maintenance_mode": "enable"})
    assert resp.status_int == 501
    assert resp.json == {"notImplemented": {
        "code": 501,
        "message": "The requested functionality is not supported."}}


@pytest.mark.parametrize("body", [{}, {"status": "on"}, {"bogus": "x"},
                                  {"status": "enable", "x": 1}])
def test_update_bad_body(env, compute, body):
    resp = _call(env, "/host1", method="PUT", body=body)
    assert resp.status_int == 400
    assert compute.calls == []


def test_update_unknown_host(env, compute):
    resp = _call(env, "/nowhere", method="PUT", body={"status": "enable"})
    assert resp.status_int == 404
    assert compute.calls == []


@pytest.mark.parametrize("action,sample", [
    ("reboot", "os-hosts/host-get-reboot.json"),
    ("shutdown", "os-hosts/host-get-shutdown.json"),
    ("startup", "os-hosts/host-get-startup.json"),
])
def test_power_actions(env, compute, action, sample):
    resp = _call(env, f"/host1/{action}")
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(resp.json, samples.load(sample)) == []
    assert resp.json == {"host": "host1", "power_action": action}
    compute.supported = False
    resp = _call(env, f"/host1/{action}")
    assert resp.status_int == 501
    # a host without a compute service
    resp = _call(env, f"/nowhere/{action}")
    assert resp.status_int == 404


@pytest.mark.parametrize("method,path,body", [
    ("GET", "", None), ("GET", "/host1", None),
    ("PUT", "/host1", {"status": "enable"}), ("GET", "/host1/reboot", None),
    ("GET", "/host1/shutdown", None), ("GET", "/host1/startup", None)])
def test_gone_from_2_43(env, compute, method, path, body):
    resp = _call(env, path, "2.43", method, body)
    assert resp.status_int == 404
    assert resp.json == {"itemNotFound": {
        "code": 404, "message": "The resource could not be found."}}
    assert _call(env, path, "2.42", method, body).status_int == 200


@pytest.mark.parametrize("method,path,rule", [
    ("GET", "", "list"), ("GET", "/host1", "show"),
    ("PUT", "/host1", "update"), ("GET", "/host1/reboot", "reboot"),
    ("GET", "/host1/shutdown", "shutdown"),
    ("GET", "/host1/startup", "start")])
def test_admin_only(member_env, cells_db, compute, method,  # noqa: F811
                    path, rule):
    resp = _call(member_env, path, "2.1", method,
                 {"status": "enable"} if method == "PUT" else None)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        f"Policy doesn't allow {names.HOSTS % rule} to be performed.")
    assert compute.calls == []


def test_policy_defaults():
    rules = {r.name: r for r in policies.list_rules()}
    for rule in ("list", "show", "update", "reboot", "shutdown", "start"):
        assert rules[names.HOSTS % rule].check_str == "rule:context_is_admin"


class _Tracker:
    def __init__(self):
        self.disabled = []

    def update_compute_provider_status(self, context, disabled):
        self.disabled.append(disabled)


class _Manager:
    host = "host1"

    def __init__(self, driver):
        self.driver = driver
        self.rt = _Tracker()


def test_compute_side_without_driver_support():
    from keel.virt import driver as virt_driver

    class Bare(virt_driver.ComputeDriver):
        pass
    mgr = _Manager(Bare.__new__(Bare))
    assert host_actions.set_host_enabled(mgr, None, False) == "disabled"
    assert host_actions.set_host_enabled(mgr, None, True) == "enabled"
    assert mgr.rt.disabled == [True, False]
    with pytest.raises(NotImplementedError):
        host_actions.host_power_action(mgr, None, "reboot")
    with pytest.raises(NotImplementedError):
        host_actions.host_maintenance_mode(mgr, None, "host1", True)
