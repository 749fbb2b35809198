"""os-hypervisors against a running cloud: nodes the computes created,
uptime asked of the compute over RPC, and the clients."""
import json
import os
import subprocess
import sys

import openstack

from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call

V = "OpenStack-API-Version"


def _get(cloud, path, version):  # noqa: F811
    resp = call(cloud.app, "/v2.1/os-hypervisors" + path,
                headers={V: f"compute {version}"})
    assert resp.status_int == 200, resp.text
    return resp.json


def test_detail_lists_every_compute_node(cloud):  # noqa: F811
    got = _get(cloud, "/detail", "2.53")["hypervisors"]
    assert {h["service"]["host"] for h in got} == set(cloud.hosts)
    assert all(h["state"] == "up" and h["status"] == "enabled" for h in got)
    assert samples.shape_differences(
        {"hypervisors": got},
        samples.load("os-hypervisors/v2.53/hypervisors-detail-resp.json"),
        # cpu_info's content is the driver's (the fake one reports {})
        ignore=("hypervisors_links", "arch", "model", "vendor", "features",
                "topology")) == []
    assert {h["id"] for h in got} == {n.uuid for host in cloud.hosts
                                      for n in cloud.nodes(host)}


def test_uptime_comes_from_the_compute(cloud):  # noqa: F811
    node = cloud.nodes(cloud.hosts[0])[0]
    old = _get(cloud, f"/{node.id}/uptime", "2.1")["hypervisor"]
    assert samples.shape_differences(
        {"hypervisor": old},
        samples.load("os-hypervisors/hypervisors-uptime-resp.json")) == []
    assert "load average" in old["uptime"]
    new = _get(cloud, f"/{node.uuid}", "2.88")["hypervisor"]
    assert "load average" in new["uptime"]
    assert samples.shape_differences(
        {"hypervisor": new},
        samples.load("os-hypervisors/v2.88/hypervisors-show-resp.json")) == []
    listed = _get(cloud, "/detail", "2.88")["hypervisors"]
    assert all("load average" in h["uptime"] for h in listed)


def test_statistics_add_up_the_nodes(cloud):  # noqa: F811
    stats = _get(cloud, "/statistics", "2.1")["hypervisor_statistics"]
    nodes = [n for host in cloud.hosts for n in cloud.nodes(host)]
    assert stats["count"] == len(nodes)
    assert stats["vcpus"] == sum(n.vcpus for n in nodes)
    assert stats["memory_mb"] == sum(n.memory_mb for n in nodes)


def test_sdk_and_osc(cloud, http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    try:
        names = {h.name for h in conn.compute.hypervisors()}
    finally:
        conn.close()
    expected = {n.hypervisor_hostname for host in cloud.hosts
                for n in cloud.nodes(host)}
    assert names == expected
    env = dict(os.environ, OS_AUTH_TYPE="none", OS_ENDPOINT=http_endpoint,
               OS_COMPUTE_API_VERSION="2.88")
    osc = [sys.executable, "-m", "openstackclient.shell"]
    out = subprocess.run(osc + ["hypervisor", "list", "-f", "json"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert {r["Hypervisor Hostname"] for r in rows} == expected
    name = sorted(expected)[0]
    out = subprocess.run(osc + ["hypervisor", "show", name, "-f", "json"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    assert shown["hypervisor_hostname"] == name
    assert shown["state"] == "up"
