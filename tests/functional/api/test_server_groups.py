"""os-server-groups driven by openstacksdk and OSC against a running
cloud (computes new enough for max_server_per_host)."""
import json
import os
import subprocess
import sys

import openstack

from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401


def test_sdk_and_osc_create_list_delete(cloud, http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    try:
        made = conn.compute.create_server_group(
            name="sdk-sg", policy="anti-affinity",
            rules={"max_server_per_host": 2}, microversion="2.64")
        assert made.policy == "anti-affinity"
        assert made.rules == {"max_server_per_host": 2}
        names = {g.name for g in conn.compute.server_groups()}
        assert "sdk-sg" in names
    finally:
        conn.close()
    env = dict(os.environ, OS_AUTH_TYPE="none", OS_ENDPOINT=http_endpoint,
               OS_COMPUTE_API_VERSION="2.64")
    osc = [sys.executable, "-m", "openstackclient.shell"]

    def run(*args):
        out = subprocess.run(osc + list(args), env=env, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout
    created = json.loads(run("server", "group", "create", "--policy",
                             "soft-affinity", "osc-sg", "-f", "json"))
    assert created["policy"] == "soft-affinity"
    listed = json.loads(run("server", "group", "list", "-f", "json"))
    assert {"sdk-sg", "osc-sg"} <= {g["Name"] for g in listed}
    run("server", "group", "delete", "osc-sg")
    listed = json.loads(run("server", "group", "list", "-f", "json"))
    assert "osc-sg" not in {g["Name"] for g in listed}
