"""os-aggregates against a running cloud: membership mirrored to the
Placement aggregates of the host's node providers, the schedulers told by
fanout casts, the 2.81 image cache request accepted, and the clients."""
import json
import os
import subprocess
import sys

import openstack

from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call

V = "OpenStack-API-Version"


def _call(cloud, path, method="GET", body=None, version="2.41"):  # noqa
    resp = call(cloud.app, "/v2.1/os-aggregates" + path, method,
                {V: f"compute {version}"}, body)
    assert resp.status_int in (200, 202), resp.text
    return resp.json if resp.body else None


def _placement_aggs(cloud, host):  # noqa: F811
    return [cloud.placement.get_aggregates(cloud.ctxt, n.uuid)[0]
            for n in cloud.nodes(host)]


def test_membership_is_mirrored_to_placement_and_scheduler(cloud):  # noqa
    host = cloud.hosts[0]
    agg = _call(cloud, "", "POST", {"aggregate": {
        "name": "mirror", "availability_zone": "az-m"}})["aggregate"]
    _call(cloud, f"/{agg['id']}/action", "POST",
          {"add_host": {"host": host}})
    assert all(agg["uuid"] in aggs for aggs in _placement_aggs(cloud, host))
    assert all(agg["uuid"] not in aggs
               for aggs in _placement_aggs(cloud, cloud.hosts[1]))
    view = cloud.scheduler.aggregates
    assert wait_for(lambda: agg["id"] in view.host_aggregates.get(host, ()))
    _call(cloud, f"/{agg['id']}/action", "POST",
          {"remove_host": {"host": host}})
    assert all(agg["uuid"] not in aggs
               for aggs in _placement_aggs(cloud, host))
    assert wait_for(lambda: agg["id"] not in
                    view.host_aggregates.get(host, ()))
    _call(cloud, f"/{agg['id']}", "DELETE")
    assert wait_for(lambda: agg["id"] not in view.by_id)


def test_image_cache_request_is_accepted(cloud):  # noqa: F811
    agg = _call(cloud, "", "POST",
                {"aggregate": {"name": "cache"}})["aggregate"]
    resp = call(cloud.app, f"/v2.1/os-aggregates/{agg['id']}/images", "POST",
                {V: "compute 2.81"},
                {"cache": [{"id": "70a599e0-31e7-49b7-b260-868f441e862b"}]})
    assert resp.status_int == 202, resp.text
    assert resp.body == b""


def test_sdk_and_osc(cloud, http_endpoint):  # noqa: F811
    host = cloud.hosts[1]
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    try:
        made = conn.compute.create_aggregate(name="sdk-agg",
                                             availability_zone="az-sdk")
        conn.compute.add_host_to_aggregate(made, host)
        fetched = conn.compute.get_aggregate(made.id)
        assert fetched.hosts == [host]
        assert fetched.availability_zone == "az-sdk"
    finally:
        conn.close()
    env = dict(os.environ, OS_AUTH_TYPE="none", OS_ENDPOINT=http_endpoint,
               OS_COMPUTE_API_VERSION="2.41")
    osc = [sys.executable, "-m", "openstackclient.shell"]

    def run(*args):
        out = subprocess.run(osc + list(args), env=env, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout
    created = json.loads(run("aggregate", "create", "--zone", "az-osc",
                             "osc-agg", "-f", "json"))
    assert created["availability_zone"] == "az-osc"
    run("aggregate", "set", "--property", "ssd=true", "osc-agg")
    # host already in az-sdk: OSC reports Nova's 409
    out = subprocess.run(osc + ["aggregate", "add", "host", "osc-agg", host],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "availability zone" in out.stderr
    shown = json.loads(run("aggregate", "show", "osc-agg", "-f", "json"))
    assert shown["properties"] == {"ssd": "true"} or \
        shown["properties"].get("ssd") == "true"
