"""The all-in-one as a user drives it: started as ``keel all-in-one``, then
the ``openstack`` CLI (python-openstackclient, each command its own
process, configured only by the ``export`` lines the banner prints) and
openstacksdk boot, list, show and delete servers on the seeded image."""
import json
import os
import re
import subprocess
import sys
import time

import openstack
import pytest
import requests

from keel.allinone import images
from tests.functional.test_all_in_one import AllInOne


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("aio-cli")
    conf = tmp / "nova.conf"
    conf.write_text("[fake_driver]\nvcpus = 16\nmemory_mb = 32768\n"
                    "local_gb = 500\n[image_catalogue]\nport = 0\n")
    aio = AllInOne(tmp / "state", hosts=2, config=conf)
    try:
        aio.wait_ready()
        yield aio
    finally:
        aio.kill()


@pytest.fixture(scope="module")
def cli_env(aio):
    """The environment the banner tells the user to export."""
    exports = dict(re.findall(r"export (OS_[A-Z_]+)=(\S+)", aio.output()))
    assert exports["OS_AUTH_TYPE"] == "none"
    assert "OS_IMAGE_ENDPOINT_OVERRIDE" in exports
    assert "OS_IDENTITY_ENDPOINT_OVERRIDE" in exports
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(exports)
    return env


def openstack_cli(env, *argv, timeout=90):
    out = subprocess.run(
        [sys.executable, "-m", "openstackclient.shell", *argv],
        env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, (argv, out.stdout, out.stderr)
    return out.stdout


def _allocations(aio, consumer):
    return requests.get(
        f"{aio.placement}/allocations/{consumer}", timeout=10,
        headers={"OpenStack-API-Version": "placement 1.28"}).json()[
            "allocations"]


@pytest.fixture(scope="module")
def sdk(aio, cli_env):
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=cli_env["OS_ENDPOINT"],
        image_endpoint_override=cli_env["OS_IMAGE_ENDPOINT_OVERRIDE"],
        compute_api_version="2.90")
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def flavor(sdk):
    return sdk.compute.create_flavor(name="cli.tiny", ram=128, vcpus=1,
                                     disk=1)


def test_openstack_cli_create_list_show_delete(aio, cli_env, flavor):
    made = json.loads(openstack_cli(
        cli_env, "server", "create", "--wait", "-f", "json",
        "--image", images.SEED_NAME, "--flavor", "cli.tiny",
        "--nic", "none", "cli-1"))
    assert made["status"] == "ACTIVE"
    assert made["name"] == "cli-1"
    server_id = made["id"]

    listed = json.loads(openstack_cli(cli_env, "server", "list", "-f",
                                      "json"))
    row = next(r for r in listed if r["ID"] == server_id)
    assert row["Name"] == "cli-1" and row["Status"] == "ACTIVE"
    assert row["Image"] == images.SEED_NAME, row
    assert row["Flavor"] == "cli.tiny"

    shown = json.loads(openstack_cli(cli_env, "server", "show", "-f",
                                     "json", server_id))
    assert shown["status"] == "ACTIVE"
    assert shown["OS-EXT-SRV-ATTR:host"] in ("sim-1", "sim-2")
    assert "cli.tiny" in str(shown["flavor"])
    # Its claim is in Placement, on the node it runs on.
    assert len(_allocations(aio, server_id)) == 1

    openstack_cli(cli_env, "server", "delete", "--wait", server_id)
    gone = subprocess.run(
        [sys.executable, "-m", "openstackclient.shell", "server", "show",
         server_id], env=cli_env, capture_output=True, text=True,
        timeout=60)
    assert gone.returncode == 1
    assert "No Server found for %s" % server_id in gone.stderr
    assert _allocations_gone(aio, server_id)


def _allocations_gone(aio, consumer, timeout=15):
    # As in Nova, the compute removes the claim just after the record is
    # deleted: a client can see the server gone a moment before.
    deadline = time.monotonic() + timeout
    while _allocations(aio, consumer):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_openstacksdk_create_wait_delete(aio, sdk, flavor):
    image = sdk.image.find_image(images.SEED_NAME)
    servers = [sdk.compute.create_server(
        name=f"sdk-{i}", image_id=image.id, flavor_id=flavor.id,
        networks="none") for i in range(3)]
    servers = [sdk.compute.wait_for_server(s, status="ACTIVE", wait=60,
                                           interval=0.3) for s in servers]
    for server in servers:
        assert server.image.id == image.id
        assert server.compute_host in ("sim-1", "sim-2")
        assert len(_allocations(aio, server.id)) == 1
    for server in servers:
        sdk.compute.delete_server(server)
    for server in servers:
        sdk.compute.wait_for_delete(server, wait=60, interval=0.3)
        assert _allocations_gone(aio, server.id)
    # openstacksdk counts status DELETED as gone; as in Nova the compute
    # saves vm_state DELETED a moment before the record is destroyed, so
    # the list may show the server that long.
    deadline = time.monotonic() + 15
    while [s for s in sdk.compute.servers() if s.name.startswith("sdk-")]:
        assert time.monotonic() < deadline, "deleted servers still listed"
        time.sleep(0.2)
