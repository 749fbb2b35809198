"""os-services against a running cloud: state from real heartbeats, the
COMPUTE_STATUS_DISABLED trait on the compute's Placement providers,
forced_down, delete cleaning Placement and the host mapping, and the
openstack client driving it."""
import json
import os
import subprocess
import sys

import openstack
import os_traits
import pytest

from keel import exception
from keel import objects
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api import samples
from tests.unit.api.conftest import call

V = "OpenStack-API-Version"


def _h(version):
    return {V: f"compute {version}"}


def _list(cloud, version="2.53", query=""):  # noqa: F811
    resp = call(cloud.app, "/v2.1/os-services" + query, headers=_h(version))
    assert resp.status_int == 200, resp.text
    return resp.json["services"]


def _traits(cloud, host):  # noqa: F811
    return [cloud.placement.get_traits(cloud.ctxt, n.uuid)[0]
            for n in cloud.nodes(host)]


def test_list_shows_live_services(cloud):  # noqa: F811
    got = _list(cloud)
    assert samples.shape_differences(
        {"services": got},
        samples.load("os-services/v2.53/services-list-get-resp.json")) == []
    computes = {s["host"]: s for s in got if s["binary"] == "nova-compute"}
    assert set(computes) == set(cloud.hosts)
    assert all(s["state"] == "up" and s["zone"] == "nova"
               for s in computes.values())
    others = [s for s in got if s["binary"] != "nova-compute"]
    assert {s["binary"] for s in others} == {"nova-conductor",
                                             "nova-scheduler"}
    assert {s["zone"] for s in others} == {"internal"}


def test_disable_sets_and_enable_clears_the_placement_trait(cloud):  # noqa
    host = cloud.hosts[0]
    svc = cloud.service(host)
    assert all(os_traits.COMPUTE_STATUS_DISABLED not in t
               for t in _traits(cloud, host))
    resp = call(cloud.app, f"/v2.1/os-services/{svc.uuid}", "PUT",
                _h("2.53"), {"status": "disabled",
                             "disabled_reason": "maintenance"})
    assert resp.status_int == 200, resp.text
    assert resp.json["service"]["status"] == "disabled"
    assert wait_for(lambda: all(os_traits.COMPUTE_STATUS_DISABLED in t
                                for t in _traits(cloud, host)), timeout=10)
    # the other compute is untouched
    assert all(os_traits.COMPUTE_STATUS_DISABLED not in t
               for t in _traits(cloud, cloud.hosts[1]))
    # the legacy path re-enables by host and binary
    resp = call(cloud.app, "/v2.1/os-services/enable", "PUT", _h("2.1"),
                {"host": host, "binary": "nova-compute"})
    assert resp.json == {"service": {"host": host, "binary": "nova-compute",
                                     "status": "enabled"}}
    assert wait_for(lambda: all(os_traits.COMPUTE_STATUS_DISABLED not in t
                                for t in _traits(cloud, host)), timeout=10)


def test_forced_down_reads_down_until_lifted(cloud):  # noqa: F811
    host = cloud.hosts[1]
    svc = cloud.service(host)
    url = f"/v2.1/os-services/{svc.uuid}"
    resp = call(cloud.app, url, "PUT", _h("2.53"), {"forced_down": True})
    assert resp.json["service"]["forced_down"] is True
    assert resp.json["service"]["state"] == "down"
    got = {s["host"]: s for s in _list(cloud, query=f"?host={host}")}
    assert got[host]["state"] == "down"
    call(cloud.app, url, "PUT", _h("2.53"), {"forced_down": "false"})
    assert _list(cloud, query=f"?host={host}")[0]["state"] == "up"


def test_sdk_and_osc_list_and_disable(cloud, http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    try:
        found = {(s.host, s.binary) for s in conn.compute.services()}
        assert {(h, "nova-compute") for h in cloud.hosts} <= found
    finally:
        conn.close()
    env = dict(os.environ, OS_AUTH_TYPE="none", OS_ENDPOINT=http_endpoint,
               OS_COMPUTE_API_VERSION="2.53")
    osc = [sys.executable, "-m", "openstackclient.shell"]
    host = cloud.hosts[1]
    out = subprocess.run(osc + ["compute", "service", "set", "--disable",
                                "--disable-reason", "osc", host,
                                "nova-compute"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    out = subprocess.run(osc + ["compute", "service", "list", "-f", "json",
                                "--host", host],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["Host"], r["Status"]) for r in rows] == [(host, "disabled")]
    assert cloud.service(host).disabled_reason == "osc"


def test_delete_compute_removes_providers_and_mapping(cloud):  # noqa: F811
    host = cloud.hosts[1]
    svc = cloud.service(host)
    node_uuids = [n.uuid for n in cloud.nodes(host)]
    assert all(cloud.placement.get_provider(cloud.ctxt, u)
               for u in node_uuids)
    agg = call(cloud.app, "/v2.1/os-aggregates", "POST",
               body={"aggregate": {"name": "del-agg"}}).json["aggregate"]
    assert call(cloud.app, f"/v2.1/os-aggregates/{agg['id']}/action",
                "POST", body={"add_host": {"host": host}}).status_int == 200
    resp = call(cloud.app, f"/v2.1/os-services/{svc.uuid}", "DELETE",
                _h("2.53"))
    assert resp.status_int == 204, resp.text
    assert all(cloud.placement.get_provider(cloud.ctxt, u) is None
               for u in node_uuids)
    with pytest.raises(exception.HostMappingNotFound):
        objects.HostMapping.get_by_host(cloud.ctxt, host)
    assert call(cloud.app, f"/v2.1/os-aggregates/{agg['id']}"
                ).json["aggregate"]["hosts"] == []
    hyps = call(cloud.app, "/v2.1/os-hypervisors", headers=_h("2.53")
                ).json["hypervisors"]
    assert host not in {h["hypervisor_hostname"] for h in hyps}
