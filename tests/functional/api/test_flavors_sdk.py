"""openstacksdk and the openstack CLI drive flavors (and, in the CLI
test, key pairs and limits) over HTTP against the in-process API on SQLite
API/cell databases."""
import json

from openstack import exceptions as sdk_exc
import pytest

from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_api_url  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import sdk  # noqa: F401
from tests.functional.api.fixtures_cells import serve  # noqa: F401
from tests.unit.api import samples

PUBLIC_KEY = samples.load("os-keypairs/keypairs-import-post-req.json")[
    "keypair"]["public_key"]


def test_sdk_flavor_lifecycle(sdk):
    flavor = sdk.compute.create_flavor(
        name="m1.sdk", ram=1024, vcpus=2, disk=10, id="42",
        is_public=False, description="made by the sdk")
    assert flavor.id == "42" and flavor.description == "made by the sdk"
    found = sdk.compute.get_flavor("42")
    assert (found.ram, found.vcpus, found.disk) == (1024, 2, 10)
    assert found.is_public is False
    listed = [f.id for f in sdk.compute.flavors(is_public=False)]
    assert listed == ["42"]
    sdk.compute.create_flavor_extra_specs(
        "42", {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "1"})
    assert sdk.compute.fetch_flavor_extra_specs(
        sdk.compute.get_flavor("42")).extra_specs == {
            "hw:cpu_policy": "dedicated", "hw:numa_nodes": "1"}
    # the SDK speaks 2.61 here; validation of known keys starts at 2.86
    resp = sdk.compute.post(
        "/flavors/42/os-extra_specs", microversion="2.86",
        json={"extra_specs": {"hw:cpu_policy": "sometimes"}})
    assert resp.status_code == 400
    assert "is not one of" in resp.json()["badRequest"]["message"]
    sdk.compute.flavor_add_tenant_access("42", "proj-x")
    access = sdk.compute.get_flavor_access("42")
    assert [a["tenant_id"] for a in access] == ["proj-x"]
    sdk.compute.flavor_remove_tenant_access("42", "proj-x")
    assert sdk.compute.get_flavor_access("42") == []
    with pytest.raises(sdk_exc.ConflictException):
        sdk.compute.create_flavor(name="m1.sdk", ram=1, vcpus=1, disk=0)
    sdk.compute.delete_flavor("42")
    with pytest.raises(sdk_exc.NotFoundException):
        sdk.compute.get_flavor("42")


def test_sdk_flavor_paging_follows_next_links(sdk):
    for i in range(5):
        sdk.compute.create_flavor(name=f"f{i}", ram=512 * (i + 1),
                                   vcpus=1, disk=1, id=str(i))
    # the SDK follows flavors_links page by page
    got = [f.id for f in sdk.compute.flavors(limit=2)]
    assert got == ["0", "1", "2", "3", "4"]
    big = [f.id for f in sdk.compute.flavors(min_ram=2000)]
    assert big == ["3", "4"]


def _osc(url, *argv, version="2.74"):
    # The real command, in its own process as a user runs it (in-process
    # runs share logging and client state with the rest of the test run).
    import subprocess
    import sys
    args = [sys.executable, "-m", "openstackclient.shell",
            "--os-auth-type", "none", "--os-endpoint", f"{url}/v2.1",
            "--os-compute-api-version", version,
            "--os-identity-api-version", "3", *argv, "-f", "json"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_openstack_cli_flavors_and_keypairs(cells_api_url, tmp_path):
    url = cells_api_url
    created = _osc(url, "flavor", "create", "--ram", "256", "--vcpus", "1",
                   "--disk", "1", "--id", "7", "--property",
                   "hw:numa_nodes=1", "cli.flavor")
    assert created["id"] == "7" and created["name"] == "cli.flavor"
    flavors = _osc(url, "flavor", "list")
    assert [(f["ID"], f["RAM"]) for f in flavors] == [("7", 256)]
    shown = _osc(url, "flavor", "show", "cli.flavor")
    assert shown["properties"] == {"hw:numa_nodes": "1"}
    key_file = tmp_path / "id.pub"
    key_file.write_text(PUBLIC_KEY)
    kp = _osc(url, "keypair", "create", "--public-key", str(key_file),
              "clikey")
    assert kp["name"] == "clikey" and kp["type"] == "ssh"
    assert [k["Name"] for k in _osc(url, "keypair", "list")] == ["clikey"]
    # the SDK adds "reserved=False" to GET /limits, which Nova's schema
    # refuses from 2.75 (as keel's does): hence 2.74 here
    limits = {row["Name"]: row["Value"] for row in
              _osc(url, "limits", "show", "--absolute")}
    assert limits["keypairs"] == 100
    assert limits["instances"] == 10
