"""os-resetState, injectNetworkInfo and changePassword end to end (API ->
compute RPC -> fake driver in the one-process cloud), with the reference
samples' bodies, Nova's words on refusals and Nova's policy defaults."""
import pytest

from keel.api import deploy
from keel.conf import CONF
from keel.virt import power_state
from tests.functional.api.test_server_power import action
from tests.functional.api.test_server_power import actions
from tests.functional.api.test_server_power import cloud  # noqa: F401
from tests.functional.api.test_server_power import driver
from tests.functional.api.test_server_power import PROJECT
from tests.functional.api.test_server_power import read
from tests.functional.api.test_server_power import server
from tests.functional.api.test_server_power import USER
from tests.unit.api.conftest import sample

TOKEN = f"{USER}:{PROJECT}"


def _app(roles):
    CONF.set_override("development_roles", roles, group="api")
    try:
        return deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")


@pytest.fixture(scope="module")
def member(cloud):  # noqa: F811
    return _app(["member", "reader"])


# -- os-resetState ------------------------------------------------------------

def test_reset_state_with_the_sample_body(cloud):  # noqa: F811
    u = server(cloud)
    inst = read(cloud, u)
    inst.task_state = "rebooting"
    inst.save()
    body = sample("os-admin-actions/admin-actions-reset-server-state.json")
    resp = action(cloud.app, u, body, version="2.1")
    assert resp.status_int == 202, resp.text
    assert resp.body == b""
    inst = read(cloud, u)
    assert (inst.vm_state, inst.task_state) == ("active", None)
    assert actions(cloud, u) == [("resetState", [])]
    resp = action(cloud.app, u, {"os-resetState": {"state": "error"}})
    assert resp.status_int == 202
    assert read(cloud, u).vm_state == "error"
    # The power state is untouched.
    assert read(cloud, u).power_state == power_state.RUNNING


def test_reset_state_overrides_a_delete_in_progress(cloud):  # noqa: F811
    u = server(cloud)
    inst = read(cloud, u)
    inst.task_state = "deleting"
    inst.save()
    resp = action(cloud.app, u, {"os-resetState": {"state": "error"}})
    assert resp.status_int == 202, resp.text
    inst = read(cloud, u)
    assert (inst.vm_state, inst.task_state) == ("error", None)


def test_reset_state_refusals(cloud, member):  # noqa: F811
    u = server(cloud)
    for body in ({"os-resetState": {"state": "stopped"}},
                 {"os-resetState": {}}, {"os-resetState": None},
                 {"os-resetState": {"state": "active", "x": 1}}):
        resp = action(cloud.app, u, body)
        assert resp.status_int == 400, body
        assert "badRequest" in resp.json
    missing = "00000000-0000-4000-8000-000000000000"
    resp = action(cloud.app, missing, {"os-resetState": {"state": "active"}})
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == \
        f"Instance {missing} could not be found."
    # Admin only: the owner's member gets 403, another project 404.
    resp = action(member, u, {"os-resetState": {"state": "active"}},
                  token=TOKEN)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-admin-actions:reset_state "
        "to be performed.")
    resp = action(member, u, {"os-resetState": {"state": "active"}},
                  token=f"{USER}:elsewhere")
    assert resp.status_int == 404
    assert actions(cloud, u) == []


# -- injectNetworkInfo --------------------------------------------------------

def test_inject_network_info_with_the_sample_body(cloud):  # noqa: F811
    u = server(cloud)
    seen = []
    drv = driver(cloud)
    drv.inject_network_info = lambda instance, nw_info: seen.append(
        (instance.uuid, nw_info))
    try:
        body = sample(
            "os-admin-actions/admin-actions-inject-network-info.json")
        resp = action(cloud.app, u, body, version="2.1")
        assert resp.status_int == 202, resp.text
        assert resp.body == b""
        from tests.functional.fixtures_services import wait_for
        assert wait_for(lambda: seen, timeout=10)
    finally:
        del drv.inject_network_info
    assert seen[0][0] == u
    inst = read(cloud, u)
    assert (inst.vm_state, inst.task_state) == ("active", None)


def test_inject_network_info_refusals(cloud, member):  # noqa: F811
    u = server(cloud, locked=True)
    resp = action(member, u, {"injectNetworkInfo": None}, token=TOKEN)
    assert resp.status_int == 403
    assert action(cloud.app, u, {"injectNetworkInfo": None,
                                 "x": 1}).status_int == 400
    # Locked servers still take it from an admin (Nova's lock check).
    assert action(cloud.app, u, {"injectNetworkInfo": None}).status_int \
        == 202
    inst = read(cloud, u)
    inst.host = None
    inst.save()
    resp = action(cloud.app, u, {"injectNetworkInfo": None})
    assert resp.status_int == 409


# -- changePassword -----------------------------------------------------------

def test_change_password_with_the_sample_body(cloud, member):  # noqa: F811
    u = server(cloud)
    seen = []
    drv = driver(cloud)
    real = drv.set_admin_password

    def set_admin_password(instance, new_pass):
        seen.append((instance.uuid, instance.task_state, new_pass))
        return real(instance, new_pass)
    drv.set_admin_password = set_admin_password
    try:
        body = sample("os-admin-password/admin-password-change-password.json")
        resp = action(member, u, body, version="2.1", token=TOKEN)
    finally:
        del drv.set_admin_password
    assert resp.status_int == 202, resp.text
    assert resp.body == b""
    assert seen == [(u, "updating_password", "foo")]
    inst = read(cloud, u)
    assert (inst.vm_state, inst.task_state) == ("active", None)
    assert actions(cloud, u) == [
        ("changePassword", [("compute_set_admin_password", "Success")])]


def test_change_password_driver_answers(cloud):  # noqa: F811
    from keel import exception
    u = server(cloud)
    drv = driver(cloud)
    body = {"changePassword": {"adminPass": "secret"}}
    try:
        drv.set_admin_password = _raiser(NotImplementedError())
        resp = action(cloud.app, u, body)
        assert resp.status_int == 501, resp.text
        assert resp.json["notImplemented"]["message"] == \
            "Unable to set password on instance"
        assert read(cloud, u).task_state is None
        drv.set_admin_password = _raiser(
            exception.SetAdminPasswdNotSupported())
        resp = action(cloud.app, u, body)
        assert resp.status_int == 409
        assert resp.json["conflictingRequest"]["message"] == \
            "Set admin password is not supported"
        drv.set_admin_password = _raiser(RuntimeError("boom secret"))
        resp = action(cloud.app, u, body)
        assert resp.status_int == 409
        assert resp.json["conflictingRequest"]["message"] == (
            f"Failed to set admin password on {u} because error setting "
            "admin password")
    finally:
        del drv.set_admin_password
    inst = read(cloud, u)
    assert (inst.vm_state, inst.task_state) == ("active", None)
    # The guest must be running (changed behind the compute's back, with
    # no lifecycle event for the power sync to act on).
    drv._instances[u].state = power_state.PAUSED
    resp = action(cloud.app, u, body)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Failed to set admin password on {u} because instance {u} is not "
        "running")
    assert read(cloud, u).task_state is None


def _raiser(exc):
    def fail(instance, new_pass):
        raise exc
    return fail


def test_change_password_refusals(cloud, member):  # noqa: F811
    stopped = server(cloud, vm_state="stopped")
    body = {"changePassword": {"adminPass": "x"}}
    resp = action(cloud.app, stopped, body)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'changePassword' instance {stopped} while it is in "
        "vm_state stopped")
    u = server(cloud)
    inst = read(cloud, u)
    inst.task_state = "pausing"
    inst.save()
    resp = action(cloud.app, u, body)
    assert resp.status_int == 409
    assert "task_state pausing" in resp.json["conflictingRequest"]["message"]
    for bad in ({"changePassword": {}}, {"changePassword": {"adminPass": 1}},
                {"changePassword": {"adminPass": "x", "y": 1}}):
        assert action(cloud.app, u, bad).status_int == 400, bad
    locked = server(cloud, locked=True)
    resp = action(member, locked, body, token=TOKEN)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {locked} is locked"
    reader = _app(["reader"])
    assert action(reader, locked, body, token=TOKEN).status_int == 403
    assert action(member, locked, body,
                  token=f"{USER}:elsewhere").status_int == 404
