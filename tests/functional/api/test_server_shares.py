"""/servers/{server_id}/shares (2.97) end to end: API -> compute RPC
(allow_share / deny_share) -> Manila, against the Manila simulator, in the
one-process cloud.

Checks what users see against Nova's samples (admin and member views), the
mapping's progression (attaching -> inactive; detaching -> gone), the
host's access rule in Manila, instance actions, notifications, and Nova's
400/403/404/409 answers.
"""
import pytest

from keel.api import deploy
from keel.compute_api import server_shares as shares_api
from keel.conf import CONF
from keel import context as keel_context
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from tests.fixtures import manila_sim
from tests.functional.api import test_server_power as power
from tests.functional.api.test_server_power import cloud  # noqa: F401
from tests.functional.api.test_server_power import member_app  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call
from tests.unit.api.conftest import sample

PROJECT, USER = power.PROJECT, power.USER
TOKEN = f"{USER}:{PROJECT}"
# An admin of the server's project (Nova's rules are project-scoped).
ADMIN_TOKEN = f"admin:{PROJECT}"
SHARE = "e8debdc0-447a-4376-a10a-4cd9122d7986"
SAMPLES = "os-server-shares/v2.97/"


@pytest.fixture
def manila(cloud):  # noqa: F811
    with manila_sim.configured(CONF) as sim:
        yield sim


@pytest.fixture
def reader_app(cloud):  # noqa: F811
    CONF.set_override("development_roles", ["reader"], group="api")
    try:
        yield deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")


def req(app, u, method="GET", body=None, share=None, version="2.97",
        token=ADMIN_TOKEN):
    path = f"/v2.1/servers/{u}/shares"
    if share:
        path += "/" + share
    headers = {"OpenStack-API-Version": f"compute {version}"}
    if token:
        headers["X-Auth-Token"] = token
    return call(app, path, method=method, body=body, headers=headers)


def mappings(cloud, u):  # noqa: F811
    with keel_context.target_cell(cloud.ctxt, power._cell(cloud)) as c:
        return list(objects.ShareMappingList.get_by_instance_uuid(c, u))


def status_of(cloud, u):  # noqa: F811
    return [m.status for m in mappings(cloud, u)]


def without_uuid(body):
    share = dict(body["share"])
    share.pop("uuid")
    return share


def test_attach_list_show_detach(cloud, manila, member_app,  # noqa: F811
                                 notification_capture):  # noqa: F811
    u = power.server(cloud, vm_state="stopped")
    manila.add_share(PROJECT, share_id=SHARE)
    resp = req(cloud.app, u, "POST",
               sample(SAMPLES + "server-shares-delete-req.json"))
    assert resp.status_int == 201, resp.text
    expected = sample(SAMPLES + "server-shares-admin-create-resp.json")
    assert without_uuid(resp.json) == without_uuid(expected)
    [mapping] = mappings(cloud, u)
    assert resp.json["share"]["uuid"] == mapping.uuid
    assert wait_for(lambda: status_of(cloud, u) == ["inactive"])
    # The host's access rule, granted and locked as Nova asks for it.
    [rule] = manila.rules_of(SHARE)
    assert (rule["access_type"], rule["access_to"], rule["access_level"],
            rule["state"]) == ("ip", CONF.my_ip, "rw", "active")
    assert rule["lock_deletion"] and rule["lock_visibility"]
    start = notification_capture.wait_for("instance.share_attach.start")
    assert start["payload"]["nova_object.data"]["share_id"] == SHARE
    notification_capture.wait_for("instance.share_attach.end")
    assert wait_for(lambda: power.actions(cloud, u) == [
        ("attach_share", [("compute_allow_share", "Success")])])

    listed = req(cloud.app, u)
    assert listed.status_int == 200
    assert listed.json == sample(SAMPLES + "server-shares-list-resp.json")
    shown = req(cloud.app, u, share=SHARE)
    assert without_uuid(shown.json) == without_uuid(
        sample(SAMPLES + "server-shares-admin-show-resp.json"))
    member = req(member_app, u, share=SHARE, token=TOKEN)
    assert member.json == sample(SAMPLES + "server-shares-show-resp.json")

    resp = req(member_app, u, "DELETE", share=SHARE, token=TOKEN)
    assert resp.status_int == 200, resp.text
    assert resp.body == b""
    assert wait_for(lambda: mappings(cloud, u) == [])
    assert manila.rules_of(SHARE) == []
    notification_capture.wait_for("instance.share_detach.start")
    notification_capture.wait_for("instance.share_detach.end")
    assert wait_for(lambda: [a for a, _ in power.actions(cloud, u)] == [
        "attach_share", "detach_share"])
    assert req(cloud.app, u, share=SHARE).status_int == 404


def test_member_create_with_tag_and_duplicates(cloud, manila,  # noqa: F811
                                               member_app):  # noqa: F811
    u = power.server(cloud, vm_state="stopped")
    manila.add_share(PROJECT, share_id=SHARE)
    body = sample(SAMPLES + "server-shares-create-tag-req.json")
    resp = req(member_app, u, "POST", body, token=TOKEN)
    assert resp.status_int == 201, resp.text
    assert resp.json == {"share": {"share_id": SHARE, "status": "attaching",
                                   "tag": "my-tag"}}
    assert wait_for(lambda: status_of(cloud, u) == ["inactive"])
    again = req(member_app, u, "POST", body, token=TOKEN)
    assert again.status_int == 409
    assert again.json["conflictingRequest"]["message"] == (
        f"Share '{SHARE}' or tag 'my-tag' already associated to this "
        "server.")
    other = manila.add_share(PROJECT)["id"]
    same_tag = req(member_app, u, "POST", {"share": {
        "share_id": other, "tag": "my-tag"}}, token=TOKEN)
    assert same_tag.status_int == 409
    assert status_of(cloud, u) == ["inactive"]


def _post(cloud, u, share_id, **extra):  # noqa: F811
    return req(cloud.app, u, "POST", {"share": dict(share_id=share_id,
                                                    **extra)})


def test_refusals(cloud, manila):  # noqa: F811
    stopped = power.server(cloud, vm_state="stopped")
    active = power.server(cloud)
    manila.add_share(PROJECT, share_id=SHARE)
    resp = _post(cloud, active, SHARE)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'create share' instance {active} while it is in vm_state "
        "active")
    missing = "9b2d0ad4-6c83-4b55-8a47-3d7a5f1a0b11"
    resp = _post(cloud, stopped, missing)
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == (
        f"Share {missing} could not be found.")
    creating = manila.add_share(PROJECT, status="creating")["id"]
    resp = _post(cloud, stopped, creating)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Share {creating} is in 'creating' instead of 'available' status.")
    cifs = manila.add_share(PROJECT, share_proto="CIFS")["id"]
    resp = _post(cloud, stopped, cifs)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        "Share protocol CIFS is not supported.")
    no_path = manila.add_share(PROJECT, export_paths=())["id"]
    resp = _post(cloud, stopped, no_path)
    assert resp.status_int == 409
    assert "export location is missing" in resp.text
    assert mappings(cloud, stopped) == []
    # Bad input: 400 from the schema.
    for body in ({"share": {"share_id": SHARE, "tag": "no spaces"}},
                 {"share": {"share_id": "not-a-uuid"}},
                 {"share": {}}, {"share_id": SHARE},
                 {"share": {"share_id": SHARE, "extra": 1}}):
        assert req(cloud.app, stopped, "POST", body).status_int == 400, body
    assert req(cloud.app, stopped, "GET",
               share=SHARE).status_int == 404
    resp = req(cloud.app, stopped, "DELETE", share=SHARE)
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == (
        f"Share {SHARE} could not be found.")
    # Unknown server; before 2.97 the routes do not exist.
    unknown = "0c3a1d2e-4b5f-4a6b-8c7d-9e0f1a2b3c4d"
    resp = req(cloud.app, unknown)
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == (
        f"Instance {unknown} has no mapping to a cell.")
    assert req(cloud.app, stopped, version="2.96").status_int == 404
    assert req(cloud.app, stopped, "POST", {"share": {"share_id": SHARE}},
               version="2.96").status_int == 404


def test_host_without_virtiofs_is_a_conflict(cloud, manila,  # noqa: F811
                                             monkeypatch):
    u = power.server(cloud, vm_state="stopped")
    manila.add_share(PROJECT, share_id=SHARE)
    monkeypatch.setattr(shares_api, "_node_traits", lambda inst: {
        "COMPUTE_STORAGE_VIRTIO_FS"})
    resp = _post(cloud, u, SHARE)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        "Feature not supported because either compute or instance are not "
        "configured correctly.")
    assert mappings(cloud, u) == []


def test_fake_host_reports_the_virtiofs_traits(cloud):  # noqa: F811
    u = power.server(cloud, vm_state="stopped")
    traits = shares_api._node_traits(power.read(cloud, u))
    assert {"COMPUTE_STORAGE_VIRTIO_FS",
            "COMPUTE_MEM_BACKING_FILE"} <= set(traits)


def test_policy(cloud, manila, reader_app, member_app):  # noqa: F811
    u = power.server(cloud, vm_state="stopped")
    manila.add_share(PROJECT, share_id=SHARE)
    # A reader lists and shows, but may not attach or detach.
    assert req(reader_app, u, token=TOKEN).json == {"shares": []}
    resp = req(reader_app, u, "POST", {"share": {"share_id": SHARE}},
               token=TOKEN)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-server-shares:create to be "
        "performed.")
    assert req(reader_app, u, "DELETE", share=SHARE,
               token=TOKEN).status_int == 403
    # Another project's member is refused (403, as Nova's context.can).
    other = f"{USER}:other-project"
    assert req(member_app, u, token=other).status_int == 403
    assert req(member_app, u, share=SHARE, token=other).status_int == 403
    assert req(member_app, u, "POST", {"share": {"share_id": SHARE}},
               token=other).status_int == 403
    assert mappings(cloud, u) == []


def test_access_rule_never_applied_puts_the_mapping_in_error(
        cloud, manila, notification_capture):  # noqa: F811
    u = power.server(cloud, vm_state="stopped")
    share = manila.add_share(PROJECT)["id"]
    manila.apply_rules = False
    resp = _post(cloud, u, share)
    assert resp.status_int == 201, resp.text
    assert wait_for(lambda: status_of(cloud, u) == ["error"])
    error = notification_capture.wait_for("instance.share_attach.error")
    fault = error["payload"]["nova_object.data"]["fault"]["nova_object.data"]
    assert fault["exception"] == "ShareAccessGrantError"
    # A mapping in error is detached (its rule removed) all the same.
    manila.apply_rules = True
    resp = req(cloud.app, u, "DELETE", share=share)
    assert resp.status_int == 200, resp.text
    assert wait_for(lambda: mappings(cloud, u) == [])
    assert manila.rules_of(share) == []


def test_rule_kept_while_another_server_of_the_host_uses_it(
        cloud, manila):  # noqa: F811
    first = power.server(cloud, vm_state="stopped")
    second = power.server(cloud, vm_state="stopped")
    share = manila.add_share(PROJECT)["id"]
    for u in (first, second):
        assert _post(cloud, u, share).status_int == 201
        assert wait_for(lambda: status_of(cloud, u) == ["inactive"])
    assert len(manila.rules_of(share)) == 1  # one rule per host
    assert req(cloud.app, first, "DELETE", share=share).status_int == 200
    assert wait_for(lambda: mappings(cloud, first) == [])
    assert len(manila.rules_of(share)) == 1
    assert req(cloud.app, second, "DELETE", share=share).status_int == 200
    assert wait_for(lambda: mappings(cloud, second) == [])
    assert manila.rules_of(share) == []


def test_start_mounts_and_stop_unmounts_the_shares(
        cloud, manila, notification_capture):  # noqa: F811
    u = power.server(cloud, vm_state="stopped")
    share = manila.add_share(PROJECT)["id"]
    assert _post(cloud, u, share, tag="data").status_int == 201
    assert wait_for(lambda: status_of(cloud, u) == ["inactive"])
    resp = power.action(cloud.app, u, {"os-start": None})
    assert resp.status_int == 202, resp.text
    power.settled(cloud, u, "ACTIVE")
    assert status_of(cloud, u) == ["active"]
    assert power.driver(cloud)._instances[u].shares == {
        "data": "10.0.0.50:/mnt/foo"}
    notification_capture.wait_for("instance.power_on.end")
    # Running: the share cannot be detached (nor another attached).
    resp = req(cloud.app, u, "DELETE", share=share)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'delete share' instance {u} while it is in vm_state active")
    resp = power.action(cloud.app, u, {"os-stop": None})
    assert resp.status_int == 202, resp.text
    power.settled(cloud, u, "SHUTOFF")
    assert status_of(cloud, u) == ["inactive"]
    assert power.driver(cloud)._instances[u].shares == {}


def test_a_share_that_cannot_be_mounted_fails_the_start(cloud,  # noqa: F811
                                                        manila):
    u = power.server(cloud, vm_state="stopped")
    share = manila.add_share(PROJECT)["id"]
    assert _post(cloud, u, share).status_int == 201
    assert wait_for(lambda: status_of(cloud, u) == ["inactive"])
    drv = power.driver(cloud)
    drv.inject_failure("mount_share", times=1, instance_uuid=u)
    resp = power.action(cloud.app, u, {"os-start": None})
    assert resp.status_int == 202, resp.text
    assert wait_for(lambda: status_of(cloud, u) == ["error"])
    assert wait_for(lambda: power.read(cloud, u).task_state is None)
    assert power.read(cloud, u).vm_state == "stopped"
    assert power.guest_state(cloud, u) != 1  # never powered on
