"""The power family end to end: openstacksdk -> API -> compute RPC -> fake
virt driver, in the one-process cloud (real Placement, SQLite cells).

Servers are written into cell1 as a finished boot leaves them, with their
guest in the compute's fake driver, so each test starts from a known state
and checks what a user sees: status transitions, 409s with Nova's words,
the instance actions and the guest's state on the hypervisor.
"""
import uuid

import openstack
import sqlalchemy as sa
from oslo_utils import timeutils
import pytest

from keel.api import deploy
from keel.conf import CONF
from keel import context as keel_context
from keel.image import api as image_api
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from keel.virt import power_state
from tests.functional import fixtures_services as fx
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call

PROJECT = "p-power"
USER = "u-power"
IMAGE = "6b2a3f4e-0c1d-4e5f-8a9b-0c1d2e3f4a5b"
RESCUE_IMAGE = "7c3b4a5f-1d2e-4f60-9bac-1d2e3f4a5b6c"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("power")
    CONF.set_override("path", str(tmp / "images"), "image_catalogue")
    image_api.reset()
    cloud, launcher = fx.start_cloud(tmp, count=1)
    ctxt = keel_context.get_admin_context()
    images = image_api.get_api()
    for image_id, name in ((IMAGE, "cirros"), (RESCUE_IMAGE, "rescue")):
        images.create(ctxt, {"id": image_id, "name": name,
                             "disk_format": "qcow2",
                             "container_format": "bare",
                             "visibility": "public"}, data=b"x" * 512)
    yield cloud
    fx.stop_cloud(launcher)
    CONF.clear_override("path", "image_catalogue")
    image_api.reset()


@pytest.fixture
def sdk(http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    yield conn
    conn.close()


@pytest.fixture
def member_app(cloud):
    """The API for a plain member of PROJECT (token user:project)."""
    CONF.set_override("development_roles", ["member", "reader"], group="api")
    try:
        yield deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")


def _flavor():
    return objects.Flavor(id=1, flavorid="1", name="m1.tiny", memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={}, rxtx_factor=1.0, vcpu_weight=0,
                          disabled=False, is_public=True, description=None)


def _cell(cloud):
    return objects.CellMapping.get_by_uuid(cloud.ctxt, fx.CELL1_UUID)


def compute(cloud):
    return next(s.manager for s in cloud.services
                if s.binary == "nova-compute")


def driver(cloud):
    return compute(cloud).driver


def server(cloud, vm_state="active", locked=False, image_ref=IMAGE):
    """An instance on the compute with its guest in the driver (running,
    or off for a stopped server)."""
    u = str(uuid.uuid4())
    running = vm_state != "stopped"
    host = cloud.hosts[0]
    node = cloud.nodes(host)[0]
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as cctxt:
        inst = objects.Instance(
            cctxt, uuid=u, project_id=PROJECT, user_id=USER,
            display_name=f"vm-{u[:6]}", hostname=f"vm-{u[:6]}",
            flavor=_flavor(), instance_type_id=1, vcpus=1, memory_mb=512,
            root_gb=1, image_ref=image_ref, metadata={},
            system_metadata={"image_base_image_ref": image_ref},
            launch_index=0, availability_zone="nova", vm_state=vm_state,
            task_state=None, host=host,
            power_state=power_state.RUNNING if running
            else power_state.SHUTDOWN,
            node=node.hypervisor_hostname, launched_at=timeutils.utcnow(),
            locked=locked, locked_by="owner" if locked else None,
            info_cache=objects.InstanceInfoCache(network_info=[]))
        inst.create()
        driver(cloud).spawn(cctxt, inst, None, [], None, {},
                            power_on=running)
    objects.InstanceMapping(cloud.ctxt, instance_uuid=u,
                            cell_mapping=_cell(cloud), project_id=PROJECT,
                            user_id=USER).create()
    return u


def read(cloud, u):
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as c:
        return objects.Instance.get_by_uuid(c, u)


def actions(cloud, u):
    """[(action, [(event, result)])], oldest first."""
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as c:
        out = []
        for a in reversed(objects.InstanceActionList.get_by_instance_uuid(
                c, u)):
            evs = objects.InstanceActionEventList.get_by_action(c, a.id)
            out.append((a.action, [(e.event, e.result) for e in evs]))
        return out


def faults(cloud, u):
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as c:
        return objects.InstanceFaultList.get_by_instance_uuids(c, [u])


def guest_state(cloud, u):
    fake = driver(cloud)._instances.get(u)
    return fake.state if fake is not None else None


def settled(cloud, u, status, sdk=None):
    """Wait until the server shows ``status`` with no task in progress."""
    def done():
        inst = read(cloud, u)
        return inst.task_state is None and \
            _status(cloud, u) == status and inst
    return wait_for(done, timeout=10)


def _status(cloud, u):
    resp = call(cloud.app, f"/v2.1/servers/{u}")
    return resp.json["server"]["status"]


def action(app, u, body, version="2.90", token=None):
    headers = {"OpenStack-API-Version": f"compute {version}"}
    if token:
        headers["X-Auth-Token"] = token
    return call(app, f"/v2.1/servers/{u}/action", method="POST", body=body,
                headers=headers)


# -- stop / start -------------------------------------------------------------

def test_stop_and_start_through_the_sdk(cloud, sdk,
                                        notification_capture):  # noqa: F811
    u = server(cloud)
    sdk.compute.stop_server(u)
    inst = settled(cloud, u, "SHUTOFF")
    assert inst, read(cloud, u)
    assert inst.vm_state == "stopped"
    assert inst.power_state == power_state.SHUTDOWN
    assert guest_state(cloud, u) == power_state.SHUTDOWN
    assert sdk.compute.get_server(u).power_state == power_state.SHUTDOWN
    notification_capture.wait_for("instance.power_off.end")
    assert "compute.instance.power_off.start" in \
        notification_capture.event_types(versioned=False)

    sdk.compute.start_server(u)
    inst = settled(cloud, u, "ACTIVE")
    assert inst and inst.power_state == power_state.RUNNING
    assert guest_state(cloud, u) == power_state.RUNNING
    notification_capture.wait_for("instance.power_on.end")
    assert actions(cloud, u) == [
        ("stop", [("compute_stop_instance", "Success")]),
        ("start", [("compute_start_instance", "Success")])]


def test_state_conflicts_use_novas_words(cloud, sdk):
    u = server(cloud, vm_state="stopped")
    resp = action(cloud.app, u, {"os-stop": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'stop' instance {u} while it is in vm_state stopped")
    for body, name in (({"pause": None}, "pause"),
                       ({"suspend": None}, "suspend"),
                       ({"unrescue": None}, "unrescue"),
                       ({"reboot": {"type": "SOFT"}}, "reboot")):
        resp = action(cloud.app, u, body)
        assert resp.status_int == 409, body
        assert f"Cannot '{name}' instance" in resp.text
    running = server(cloud)
    resp = action(cloud.app, running, {"os-start": None})
    assert resp.status_int == 409
    assert "vm_state active" in resp.json["conflictingRequest"]["message"]
    # Nothing was recorded for a refused action.
    assert actions(cloud, u) == [] and actions(cloud, running) == []


def test_busy_server_refuses_a_second_action(cloud):
    u = server(cloud)
    inst = read(cloud, u)
    inst.task_state = "pausing"
    inst.save()
    resp = action(cloud.app, u, {"os-stop": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'stop' instance {u} while it is in task_state pausing")


def test_locked_server_refuses_a_member_but_not_an_admin(cloud, member_app):
    u = server(cloud, locked=True)
    token = f"{USER}:{PROJECT}"
    resp = action(member_app, u, {"os-stop": None}, token=token)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {u} is locked"
    # The owner locked it; an admin may still act on it.
    assert action(cloud.app, u, {"os-stop": None}).status_int == 202
    assert settled(cloud, u, "SHUTOFF")


def test_a_failing_driver_reverts_the_task_and_records_a_fault(cloud):
    u = server(cloud)
    driver(cloud).inject_failure("power_off", times=1, instance_uuid=u)
    assert action(cloud.app, u, {"os-stop": None}).status_int == 202
    inst = settled(cloud, u, "ACTIVE")
    assert inst and inst.vm_state == "active"
    assert [f.message for f in faults(cloud, u)] == [
        "Injected failure in fake driver operation power_off"]
    assert actions(cloud, u) == [
        ("stop", [("compute_stop_instance", "Error")])]
    # The instance accepts the next request.
    assert action(cloud.app, u, {"os-stop": None}).status_int == 202
    assert settled(cloud, u, "SHUTOFF")


# -- reboot -------------------------------------------------------------------

def test_soft_and_hard_reboot(cloud, sdk, notification_capture):  # noqa: F811
    u = server(cloud)
    sdk.compute.reboot_server(u, "SOFT")
    assert settled(cloud, u, "ACTIVE")
    notification_capture.wait_for("instance.reboot.end")
    # A hard reboot also brings a stopped server back.
    stopped = server(cloud, vm_state="stopped")
    sdk.compute.reboot_server(stopped, "HARD")
    inst = settled(cloud, stopped, "ACTIVE")
    assert inst and inst.power_state == power_state.RUNNING
    assert guest_state(cloud, stopped) == power_state.RUNNING
    assert actions(cloud, stopped) == [
        ("reboot", [("compute_reboot_instance", "Success")])]


def test_soft_reboot_falls_back_to_hard_without_driver_support(cloud):
    u = server(cloud)
    drv = driver(cloud)
    seen = []
    real = drv.reboot

    def reboot(context, instance, network_info, reboot_type, **kw):
        seen.append(reboot_type)
        if reboot_type == "SOFT":
            raise NotImplementedError()
        return real(context, instance, network_info, reboot_type, **kw)
    drv.reboot = reboot
    try:
        assert action(cloud.app, u,
                      {"reboot": {"type": "soft"}}).status_int == 202
        assert settled(cloud, u, "ACTIVE")
    finally:
        del drv.reboot
    assert seen == ["SOFT", "HARD"]


def test_reboot_body_is_validated(cloud):
    u = server(cloud)
    resp = action(cloud.app, u, {"reboot": {"type": "WARM"}})
    assert resp.status_int == 400
    assert action(cloud.app, u, {"reboot": {}}).status_int == 400


# -- pause, suspend -----------------------------------------------------------

def test_pause_unpause_suspend_resume(cloud, sdk):
    u = server(cloud)
    sdk.compute.pause_server(u)
    inst = settled(cloud, u, "PAUSED")
    assert inst and inst.power_state == power_state.PAUSED
    assert guest_state(cloud, u) == power_state.PAUSED
    sdk.compute.unpause_server(u)
    assert settled(cloud, u, "ACTIVE")
    sdk.compute.suspend_server(u)
    inst = settled(cloud, u, "SUSPENDED")
    assert inst and guest_state(cloud, u) == power_state.SUSPENDED
    sdk.compute.resume_server(u)
    inst = settled(cloud, u, "ACTIVE")
    assert inst and "old_vm_state" not in inst.system_metadata
    assert guest_state(cloud, u) == power_state.RUNNING
    assert [a for a, _e in actions(cloud, u)] == [
        "pause", "unpause", "suspend", "resume"]


def test_failed_suspend_puts_the_server_in_error(cloud):
    u = server(cloud)
    driver(cloud).inject_failure("suspend", times=1, instance_uuid=u)
    assert action(cloud.app, u, {"suspend": None}).status_int == 202
    inst = settled(cloud, u, "ERROR")
    assert inst and inst.vm_state == "error"
    assert faults(cloud, u)


# -- rescue -------------------------------------------------------------------

def test_rescue_and_unrescue(cloud, sdk, notification_capture):  # noqa: F811
    u = server(cloud)
    resp = action(cloud.app, u, {"rescue": {"adminPass": "s3cret",
                                            "rescue_image_ref": RESCUE_IMAGE}})
    assert resp.status_int == 200
    assert resp.json == {"adminPass": "s3cret"}
    assert settled(cloud, u, "RESCUE")
    assert driver(cloud)._instances[u].rescued is True
    notification_capture.wait_for("instance.rescue.end")
    sdk.compute.unrescue_server(u)
    assert settled(cloud, u, "ACTIVE")
    assert driver(cloud)._instances[u].rescued is False
    # Without a body the server's own image is used, a password generated.
    resp = action(cloud.app, u, {"rescue": None})
    assert resp.status_int == 200 and len(resp.json["adminPass"]) == 12
    assert settled(cloud, u, "RESCUE")


def test_rescue_refusals(cloud):
    u = server(cloud)
    resp = action(cloud.app, u, {"rescue": {
        "rescue_image_ref": str(uuid.uuid4())}})
    assert resp.status_int == 400
    assert "is not supported" in resp.text
    bfv = server(cloud, image_ref="")
    resp = action(cloud.app, bfv, {"rescue": None})
    assert resp.status_int == 400
    assert "Cannot rescue a volume-backed instance" in resp.text
    resp = action(cloud.app, u, {"rescue": {"rescue_image_ref": "nope"}})
    assert resp.status_int == 400


# -- lock ---------------------------------------------------------------------

def test_lock_with_reason_and_unlock(cloud, sdk, member_app):
    u = server(cloud)
    token = f"{USER}:{PROJECT}"
    resp = action(member_app, u, {"lock": {"locked_reason": "maintenance"}},
                  version="2.73", token=token)
    assert resp.status_int == 202
    shown = call(cloud.app, f"/v2.1/servers/{u}",
                 headers={"OpenStack-API-Version": "compute 2.73"})
    assert shown.json["server"]["locked"] is True
    assert shown.json["server"]["locked_reason"] == "maintenance"
    resp = action(member_app, u, {"pause": None}, token=token)
    assert resp.status_int == 409
    # 2.73's reason is 1 to 255 characters.
    resp = action(member_app, u, {"lock": {"locked_reason": ""}},
                  version="2.73", token=token)
    assert resp.status_int == 400
    assert action(member_app, u, {"unlock": None},
                  token=token).status_int == 202
    inst = read(cloud, u)
    assert not inst.locked and inst.locked_by is None
    assert "locked_reason" not in inst.system_metadata
    assert [a for a, _e in actions(cloud, u)] == ["lock", "unlock"]


def test_member_cannot_unlock_an_admin_lock(cloud, member_app):
    u = server(cloud)
    assert action(cloud.app, u, {"lock": None}).status_int == 202
    assert read(cloud, u).locked_by == "admin"
    resp = action(member_app, u, {"unlock": None}, token=f"{USER}:{PROJECT}")
    assert resp.status_int == 403
    assert read(cloud, u).locked


# -- crash dump, console output ----------------------------------------------

def test_trigger_crash_dump_needs_2_17(cloud):
    u = server(cloud)
    resp = action(cloud.app, u, {"trigger_crash_dump": None}, version="2.16")
    assert resp.status_int == 404
    resp = action(cloud.app, u, {"trigger_crash_dump": None}, version="2.17")
    assert resp.status_int == 202
    assert wait_for(lambda: actions(cloud, u) == [
        ("trigger_crash_dump", [("compute_trigger_crash_dump",
                                 "Success")])], timeout=10)
    stopped = server(cloud, vm_state="stopped")
    resp = action(cloud.app, stopped, {"trigger_crash_dump": None},
                  version="2.17")
    assert resp.status_int == 409


def test_console_output(cloud, sdk):
    u = server(cloud)
    out = sdk.compute.get_server_console_output(u)["output"]
    assert f"fake guest {u} booted" in out
    resp = action(cloud.app, u, {"os-getConsoleOutput": {"length": "0"}})
    assert resp.status_int == 200 and resp.json == {"output": ""}
    resp = action(cloud.app, u, {"os-getConsoleOutput": {"length": -2}})
    assert resp.status_int == 400


# -- the hypervisor changing state on its own ---------------------------------

def test_guest_stopped_behind_our_back_becomes_shutoff(cloud, sdk):
    u = server(cloud)
    # The guest powers off without any request: the driver's lifecycle
    # event reaches the compute, which stops the server as Nova does.
    driver(cloud).power_off(read(cloud, u))
    inst = settled(cloud, u, "SHUTOFF")
    assert inst, read(cloud, u)
    assert inst.power_state == power_state.SHUTDOWN
    assert sdk.compute.get_server(u).status == "SHUTOFF"
    assert actions(cloud, u) == [
        ("stop", [("compute_stop_instance", "Success")])]


def test_periodic_sync_catches_a_lost_event(cloud):
    u = server(cloud)
    drv = driver(cloud)
    with drv._lock:  # the guest stops and no event is delivered
        drv._instances[u].state = power_state.SHUTDOWN
    mgr = compute(cloud)
    assert u in mgr._sync_power_states(keel_context.get_admin_context())
    assert settled(cloud, u, "SHUTOFF")


# -- remote consoles ----------------------------------------------------------

def _token(url):
    from urllib import parse
    query = parse.parse_qs(parse.urlparse(url).query)
    if "path" in query:  # noVNC carries it inside its path parameter
        query = parse.parse_qs(parse.urlparse(query["path"][0]).query)
    return query["token"][0]


def _validate(cloud, token):
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as c:
        return objects.ConsoleAuthToken.validate(c, token)


def test_vnc_console_url_carries_a_token_the_proxy_can_validate(cloud, sdk):
    u = server(cloud)
    console = sdk.compute.create_server_remote_console(
        u, protocol="vnc", type="novnc")
    assert console.url.startswith(CONF.vnc.novncproxy_base_url + "?path=")
    auth = _validate(cloud, _token(console.url))
    # Where the fake driver's console listens, for this instance.
    assert (auth.instance_uuid, auth.host, auth.port, auth.console_type) == \
        (u, "127.0.0.1", 6969, "novnc")
    with pytest.raises(Exception):
        _validate(cloud, str(uuid.uuid4()))
    # Before 2.6 the same through the os-getVNCConsole action.
    resp = action(cloud.app, u, {"os-getVNCConsole": {"type": "novnc"}},
                  version="2.5")
    assert resp.status_int == 200
    assert resp.json["console"]["type"] == "novnc"
    assert _validate(cloud, _token(resp.json["console"]["url"]))


def test_console_refusals(cloud):
    u = server(cloud)
    path = f"/v2.1/servers/{u}/remote-consoles"
    headers = {"OpenStack-API-Version": "compute 2.6"}

    def post(protocol, type_):
        return call(cloud.app, path, method="POST", headers=headers,
                    body={"remote_console": {"protocol": protocol,
                                             "type": type_}})
    resp = post("serial", "serial")   # [serial_console] is off by default
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        "Unavailable console type serial."
    assert post("spice", "spice-html5").status_int == 400
    assert post("vnc", "serial").status_int == 400   # wrong type for VNC
    assert post("vnc", "bogus").status_int == 400     # schema
    CONF.set_override("enabled", True, "serial_console")
    try:
        resp = post("serial", "serial")
    finally:
        CONF.clear_override("enabled", "serial_console")
    assert resp.status_int == 200, resp.text
    url = resp.json["remote_console"]["url"]
    assert url.startswith(CONF.serial_console.base_url + "?token=")
    assert _validate(cloud, _token(url)).port == 10000
    # A server no compute has taken yet has no console: 409.
    inst = read(cloud, u)
    inst.host = None
    inst.save()
    assert post("vnc", "novnc").status_int == 409


def test_a_server_still_being_scheduled_takes_no_action(cloud):
    u = str(uuid.uuid4())
    inst = objects.Instance(
        uuid=u, project_id=PROJECT, user_id=USER, display_name="bld",
        hostname="bld", flavor=_flavor(), instance_type_id=1, vcpus=1,
        memory_mb=512, root_gb=1, image_ref=IMAGE, metadata={},
        system_metadata={}, launch_index=0, availability_zone="nova",
        vm_state="building", task_state="scheduling", power_state=0,
        locked=False)
    objects.BuildRequest(cloud.ctxt, instance_uuid=u, project_id=PROJECT,
                         instance=inst,
                         tags=objects.TagList(objects=[])).create()
    objects.InstanceMapping(cloud.ctxt, instance_uuid=u, cell_mapping=None,
                            project_id=PROJECT, user_id=USER).create()
    # stop checks the host before the state, as Nova's decorators do.
    resp = action(cloud.app, u, {"os-stop": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {u} is not ready"
    resp = action(cloud.app, u, {"pause": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'pause' instance {u} while it is in vm_state building")
    assert action(cloud.app, u, {"lock": None}).status_int == 409
    assert action(cloud.app, u, {"os-getConsoleOutput": {}}).status_int == 409


def test_policies_reader_and_other_projects(cloud):
    u = server(cloud)
    CONF.set_override("development_roles", ["reader"], group="api")
    try:
        reader = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")
    token = f"{USER}:{PROJECT}"
    for body in ({"os-stop": None}, {"pause": None}, {"lock": None},
                 {"rescue": None}, {"os-getConsoleOutput": {}}):
        assert action(reader, u, body, token=token).status_int == 403, body
    # Another project's server does not exist for a member.
    CONF.set_override("development_roles", ["member", "reader"], group="api")
    try:
        member = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")
    resp = action(member, u, {"os-stop": None}, token=f"{USER}:elsewhere")
    assert resp.status_int == 404
    assert read(cloud, u).task_state is None


def test_rescue_without_instance_passwords_answers_nothing(cloud):
    u = server(cloud)
    CONF.set_override("enable_instance_password", False, group="api")
    try:
        resp = action(cloud.app, u, {"rescue": {"adminPass": "x"}})
    finally:
        CONF.clear_override("enable_instance_password", group="api")
    assert resp.status_int == 200 and resp.json == {}
    assert settled(cloud, u, "RESCUE")


def test_expired_console_tokens_are_cleaned(cloud, sdk):
    u = server(cloud)
    CONF.set_override("token_ttl", 0, group="consoleauth")
    try:
        url = sdk.compute.create_server_remote_console(
            u, protocol="vnc", type="novnc").url
    finally:
        CONF.clear_override("token_ttl", group="consoleauth")
    with pytest.raises(Exception):
        _validate(cloud, _token(url))   # expired at once
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as c:
        compute(cloud)._cleanup_expired_console_auth_tokens(c)
        from keel.db import session
        with session.cell_reader(c) as s:
            left = s.execute(sa.text(
                "SELECT count(*) FROM console_auth_tokens "
                "WHERE instance_uuid = :u"), {"u": u}).scalar()
    assert left == 0


def test_failed_rescue_is_an_error_with_novas_fault(cloud):
    u = server(cloud)
    driver(cloud).inject_failure("rescue", times=1, instance_uuid=u)
    assert action(cloud.app, u, {"rescue": None}).status_int == 200
    inst = settled(cloud, u, "ERROR")
    assert inst and inst.vm_state == "error"
    assert faults(cloud, u)[0].message == (
        f"Instance {u} cannot be rescued: Driver Error: Injected failure "
        "in fake driver operation rescue")
    assert actions(cloud, u) == [
        ("rescue", [("compute_rescue_instance", "Error")])]


def test_volume_backed_rescue_needs_2_87_a_rescue_device_and_the_trait(
        cloud):
    bfv = server(cloud, image_ref="")
    image_id = str(uuid.uuid4())
    image_api.get_api().create(
        keel_context.get_admin_context(),
        {"id": image_id, "name": "bfv-rescue", "disk_format": "qcow2",
         "container_format": "bare", "visibility": "public",
         "properties": {"hw_rescue_bus": "scsi",
                        "hw_rescue_device": "disk"}}, data=b"r" * 64)
    body = {"rescue": {"rescue_image_ref": image_id}}
    resp = action(cloud.app, bfv, body, version="2.86")
    assert resp.status_int == 400
    assert "Cannot rescue a volume-backed instance" in resp.text
    # 2.87 with a rescue device: the host must offer COMPUTE_RESCUE_BFV,
    # which the fake driver does not.
    resp = action(cloud.app, bfv, body, version="2.87")
    assert resp.status_int == 400
    assert "Host unable to rescue a volume-backed instance" in resp.text
    assert read(cloud, bfv).task_state is None


def test_a_server_booted_through_the_api_stops_and_starts(cloud, sdk):
    objects.Flavor(cloud.ctxt, flavorid="pw1", name="pw1", vcpus=1,
                   memory_mb=256, root_gb=1, ephemeral_gb=0, swap=0,
                   is_public=True, disabled=False).create()
    created = sdk.compute.create_server(name="booted", image_id=IMAGE,
                                        flavor_id="pw1", networks="none")
    booted = sdk.compute.wait_for_server(created, status="ACTIVE", wait=30)
    sdk.compute.stop_server(booted)
    sdk.compute.wait_for_server(booted, status="SHUTOFF", wait=10)
    assert guest_state(cloud, booted.id) == power_state.SHUTDOWN
    sdk.compute.start_server(booted)
    sdk.compute.wait_for_server(booted, status="ACTIVE", wait=10)
    assert guest_state(cloud, booted.id) == power_state.RUNNING
    assert [a for a, _e in actions(cloud, booted.id)] == [
        "create", "stop", "start"]
