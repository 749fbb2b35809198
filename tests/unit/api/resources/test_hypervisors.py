"""os-hypervisors through the API stack on SQLite cells: every sample's
shape per microversion, ids, paging, pattern search, servers, statistics
and Nova's errors. (uptime against a live compute: functional tests.)"""
import json

import pytest

from keel import objects
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.resources.test_services import seed_services

V = "OpenStack-API-Version"
CPU = json.dumps({"arch": "x86_64", "model": "Nehalem", "vendor": "Intel",
                  "features": ["pge"], "topology": {"cores": 1, "threads": 1,
                                                    "sockets": 4}})


def _h(version):
    return {V: f"compute {version}"}


@pytest.fixture
def env(api_env, cells_db):  # noqa: F811
    services = seed_services(cells_db)
    nodes = {}
    for name, host in (("n1", "host1"), ("n2", "host2")):
        svc = services["cmp1" if host == "host1" else "cmp2"]
        node = objects.ComputeNode(
            svc._context, host=host, hypervisor_hostname=f"{host}.example",
            service_id=svc.id, vcpus=4, memory_mb=8192, local_gb=100,
            vcpus_used=1, memory_mb_used=512, local_gb_used=1,
            hypervisor_type="kubevirt", hypervisor_version=1000,
            free_ram_mb=7680, free_disk_gb=99, current_workload=0,
            running_vms=1, cpu_info=CPU, disk_available_least=90,
            host_ip="192.168.1.1", supported_hv_specs=[])
        node.create()
        nodes[name] = node
    inst = objects.Instance(services["cmp1"]._context, host="host1",
                            node="host1.example", display_name="vm1",
                            project_id="p", user_id="u")
    inst.create()
    return {"app": api_env, "services": services, "nodes": nodes,
            "inst": inst}


def _get(env, path, version="2.1"):
    return call(env["app"], "/v2.1/os-hypervisors" + path,
                headers=_h(version))


def _samples_of(method_path):
    from tests.unit.api.conftest import routes_json
    for r in routes_json():
        if (r["method"], r["path"]) == method_path:
            return r["samples"]["response"]
    raise KeyError(method_path)


# (routes.json path, our path with {n}=node id/uuid and {p}=pattern)
_CASES = [
    ("/os-hypervisors", "", None),
    ("/os-hypervisors/detail", "/detail", None),
    ("/os-hypervisors/statistics", "/statistics", None),
    ("/os-hypervisors/{id}", "/{n}", None),
    ("/os-hypervisors/{id}/uptime", "/{n}/uptime", None),
    ("/os-hypervisors/{id}/search", "/{p}/search", None),
    ("/os-hypervisors/{id}/servers", "/{p}/servers", None),
]


def _sample_cases():
    for route, path, _ in _CASES:
        for version, files in _samples_of(("GET", route)).items():
            for sample in files:
                yield pytest.param(route, path, version, sample,
                                   id=f"{sample}@{version}")


@pytest.mark.parametrize("route,path,version,sample", list(_sample_cases()))
def test_matches_samples(env, route, path, version, sample):
    node = env["nodes"]["n1"]
    query = ""
    if "with-servers" in sample and not route.endswith("/servers"):
        # only host1 has a server (host2's entry would omit the key)
        query = "?with_servers=true" if route.endswith("{id}") else \
            "?with_servers=true&hypervisor_hostname_pattern=host1"
    if version >= "2.53" and route.endswith(("/search", "/servers")):
        # gone at 2.53: the samples now come from the query parameters
        resp = _get(env, path.format(n=node.uuid, p="host1"), version)
        assert resp.status_int == 404
        return
    if route.endswith("/uptime"):
        # a compute that is down has no uptime to give: 400 (live computes
        # are in the functional tests)
        resp = _get(env, path.format(n=node.uuid if version >= "2.53"
                                     else node.id), version)
        assert resp.status_int == 400, resp.text
        return
    node_pat = "host1"
    if "without-servers" in sample:
        path, query, node_pat = "/{p}/servers", "", "host2"
    elif "with-servers" in sample and version < "2.53":
        path, query = "/{p}/servers", ""
    ident = node.uuid if version >= "2.53" else node.id
    resp = _get(env, path.format(n=ident, p=node_pat) + query, version)
    if "limit=1" in json.dumps(samples.load(sample)):
        resp = _get(env, path.format(n=ident, p=node_pat) + "?limit=1" +
                    query.replace("?", "&"), version)
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(resp.json, samples.load(sample)) == []


def test_ids_paging_and_links(env):
    n1, n2 = env["nodes"]["n1"], env["nodes"]["n2"]
    got = _get(env, "?limit=1", "2.53").json
    assert [h["id"] for h in got["hypervisors"]] == [n1.uuid]
    assert f"marker={n1.uuid}" in got["hypervisors_links"][0]["href"]
    got = _get(env, f"?marker={n1.uuid}", "2.53").json
    assert [h["id"] for h in got["hypervisors"]] == [n2.uuid]
    assert "hypervisors_links" not in got
    assert _get(env, "?marker=nope", "2.53").status_int == 400
    got = _get(env, "?limit=1", "2.33").json
    assert [h["id"] for h in got["hypervisors"]] == [n1.id]
    assert _get(env, "?limit=-1", "2.33").status_int == 400
    assert _get(env, "?foo=1", "2.53").status_int == 400


def test_pattern_and_servers(env):
    got = _get(env, "/detail?hypervisor_hostname_pattern=host1&"
               "with_servers=1", "2.53").json["hypervisors"]
    assert [h["hypervisor_hostname"] for h in got] == ["host1.example"]
    assert got[0]["servers"] == [{"name": "vm1",
                                  "uuid": env["inst"].uuid}]
    got = _get(env, "?hypervisor_hostname_pattern=host2&with_servers=1",
               "2.75").json["hypervisors"]
    assert got[0]["servers"] == []
    got = _get(env, "?hypervisor_hostname_pattern=host2&with_servers=1",
               "2.74").json["hypervisors"]
    assert "servers" not in got[0]
    assert _get(env, "?hypervisor_hostname_pattern=zzz",
                "2.53").status_int == 404
    assert _get(env, "?hypervisor_hostname_pattern=host1&limit=1",
                "2.53").status_int == 400
    assert _get(env, "/zzz/search").json["itemNotFound"]["message"] == \
        "No hypervisor matching 'zzz' could be found."


def test_show_versions_and_errors(env):
    n1 = env["nodes"]["n1"]
    old = _get(env, f"/{n1.id}", "2.27").json["hypervisor"]
    assert isinstance(old["cpu_info"], str) and old["vcpus"] == 4
    assert _get(env, f"/{n1.id}", "2.28").json["hypervisor"][
        "cpu_info"]["arch"] == "x86_64"
    new = _get(env, f"/{n1.uuid}", "2.88").json["hypervisor"]
    assert "vcpus" not in new and new["uptime"] is None
    assert new["service"]["id"] == env["services"]["cmp1"].uuid
    assert new["state"] == "down"
    assert _get(env, "/abc", "2.1").json["itemNotFound"]["message"] == \
        "Hypervisor with ID 'abc' could not be found."
    assert _get(env, "/12", "2.53").json["badRequest"]["message"] == \
        "Invalid uuid 12"
    assert _get(env, "/999", "2.1").status_int == 404
    assert _get(env, "/statistics", "2.88").status_int == 404
    assert _get(env, f"/{n1.uuid}/uptime", "2.88").status_int == 404


def test_statistics_sums_enabled_nodes(env):
    stats = _get(env, "/statistics").json["hypervisor_statistics"]
    assert (stats["count"], stats["vcpus"], stats["running_vms"]) == (2, 8, 2)
    svc = env["services"]["cmp2"]
    svc.disabled = True
    svc.save()
    stats = _get(env, "/statistics").json["hypervisor_statistics"]
    assert (stats["count"], stats["vcpus"]) == (1, 4)


def test_member_is_forbidden(member_env, cells_db):  # noqa: F811
    assert call(member_env, "/v2.1/os-hypervisors").status_int == 403
    assert call(member_env, "/v2.1/os-hypervisors/statistics"
                ).status_int == 403


def test_down_cell_is_skipped_not_500(env, tmp_path):
    from keel import context as keel_context
    objects.CellMapping(
        keel_context.get_admin_context(),
        uuid="0e3c4c1a-5a5e-4a43-9d0e-3b9a1f6d7c88", name="broken",
        transport_url="none:///",
        # a database without the schema: every query in it fails
        database_connection=f"sqlite:///{tmp_path}/empty.sqlite").create()
    for version in ("2.1", "2.33", "2.53", "2.88"):
        got = _get(env, "/detail", version)
        assert got.status_int == 200, got.text
        assert len(got.json["hypervisors"]) == 2
    assert _get(env, "/statistics").json["hypervisor_statistics"][
        "count"] == 2
    n1 = env["nodes"]["n1"]
    assert _get(env, f"/{n1.uuid}", "2.53").status_int == 200
    assert _get(env, "?hypervisor_hostname_pattern=host", "2.53"
                ).status_int == 200
