"""GET /servers/{server_id}/diagnostics end to end against the fake driver:
the sample's shape before and from 2.48, Nova's refusals and policy."""
import pytest

from keel.api import deploy
from keel.conf import CONF
from keel.virt import power_state
from tests.functional.api.test_server_power import cloud  # noqa: F401
from tests.functional.api.test_server_power import driver
from tests.functional.api.test_server_power import PROJECT
from tests.functional.api.test_server_power import read
from tests.functional.api.test_server_power import server
from tests.functional.api.test_server_power import USER
from tests.unit.api.conftest import call
from tests.unit.api.conftest import sample


def get(app, u, version, token=None, query=""):
    headers = {"OpenStack-API-Version": f"compute {version}"}
    if token:
        headers["X-Auth-Token"] = token
    return call(app, f"/v2.1/servers/{u}/diagnostics{query}",
                headers=headers)


@pytest.mark.parametrize("version,name", [
    ("2.1", "os-server-diagnostics/server-diagnostics-get-resp.json"),
    ("2.47", "os-server-diagnostics/server-diagnostics-get-resp.json"),
    ("2.48", "os-server-diagnostics/v2.48/server-diagnostics-get-resp.json"),
    ("2.102", "os-server-diagnostics/v2.48/server-diagnostics-get-resp.json"),
])
def test_diagnostics_match_the_samples(cloud, version, name):  # noqa: F811
    u = server(cloud)
    resp = get(cloud.app, u, version)
    assert resp.status_int == 200, resp.text
    # The fake driver answers the values of Nova's fake driver, which are
    # the samples' values.
    assert resp.json == sample(name)


def test_diagnostics_refusals(cloud):  # noqa: F811
    u = server(cloud)
    missing = "00000000-0000-4000-8000-000000000000"
    resp = get(cloud.app, missing, "2.48")
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == \
        f"Instance {missing} could not be found."
    assert get(cloud.app, u, "2.102", query="?x=1").status_int == 400
    assert get(cloud.app, u, "2.101", query="?x=1").status_int == 200
    # Only a running guest has diagnostics.
    driver(cloud)._instances[u].state = power_state.PAUSED
    resp = get(cloud.app, u, "2.48")
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'get_diagnostics' instance {u} while it is in power state "
        "paused")
    driver(cloud)._instances[u].state = power_state.RUNNING
    # A driver without diagnostics: 501.
    drv = driver(cloud)
    drv.get_instance_diagnostics = _not_implemented
    drv.get_diagnostics = _not_implemented
    try:
        for version in ("2.1", "2.48"):
            resp = get(cloud.app, u, version)
            assert resp.status_int == 501, resp.text
            assert resp.json["notImplemented"]["message"] == \
                "The requested functionality is not supported."
    finally:
        del drv.get_instance_diagnostics
        del drv.get_diagnostics
    inst = read(cloud, u)
    inst.host = None
    inst.save()
    resp = get(cloud.app, u, "2.48")
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {u} is not ready"


def _not_implemented(instance):
    raise NotImplementedError()


def test_diagnostics_are_for_admins(cloud):  # noqa: F811
    u = server(cloud)
    CONF.set_override("development_roles", ["member", "reader"], group="api")
    try:
        member = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")
    resp = get(member, u, "2.48", token=f"{USER}:{PROJECT}")
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-server-diagnostics to be "
        "performed.")
    assert get(member, u, "2.48",
               token=f"{USER}:elsewhere").status_int == 404
