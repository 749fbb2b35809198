"""os-volume_attachments end to end: API -> compute RPC (reserve the
device name, attach, detach) -> fake virt driver, with Cinder's 3.44
attachment flow against the Cinder simulator, in the one-process cloud.

Checks what users see: the views per microversion, the volume's status in
Cinder, the disk on the guest, instance actions, notifications, and
Nova's 400/404/409 answers.
"""
import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from tests.fixtures import cinder_sim
from tests.functional.api import test_server_power as power
from tests.functional.api.test_server_power import cloud  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call

PROJECT = power.PROJECT


@pytest.fixture
def cinder(cloud):  # noqa: F811
    with cinder_sim.configured(CONF) as sim:
        yield sim


def req(cloud, u, method="GET", body=None, version="2.89", vol=None):  # noqa: F811
    path = f"/v2.1/servers/{u}/os-volume_attachments"
    if vol:
        path += "/" + vol
    return call(cloud.app, path, method=method, body=body,
                headers={"OpenStack-API-Version": f"compute {version}"})


def attach(cloud, u, vol, version="2.89", **extra):  # noqa: F811
    return req(cloud, u, "POST", {"volumeAttachment": dict(
        volumeId=vol, **extra)}, version=version)


def bdms(cloud, u):  # noqa: F811
    with keel_context.target_cell(cloud.ctxt, power._cell(cloud)) as c:
        return [b for b in objects.BlockDeviceMappingList.
                get_by_instance_uuid(c, u) if b.volume_id]


def guest_volumes(cloud, u):  # noqa: F811
    return dict(power.driver(cloud)._instances[u].volumes)


def test_attach_list_show_detach(cloud, cinder,  # noqa: F811
                                 notification_capture):  # noqa: F811
    u = power.server(cloud)
    vol = cinder.add_volume(PROJECT)["id"]
    resp = attach(cloud, u, vol, version="2.79", tag="data",
                  delete_on_termination=True)
    assert resp.status_int == 200, resp.text
    assert resp.json == {"volumeAttachment": {
        "id": vol, "volumeId": vol, "serverId": u, "device": "/dev/vdb",
        "tag": "data", "delete_on_termination": True}}
    assert wait_for(lambda: cinder.volumes[vol]["status"] == "in-use")
    assert "/dev/vdb" in guest_volumes(cloud, u)
    notification_capture.wait_for("instance.volume_attach.end")
    start = notification_capture.wait_for("instance.volume_attach.start")
    assert start["payload"]["nova_object.data"]["volume_id"] == vol

    listed = req(cloud, u).json["volumeAttachments"]
    bdm = bdms(cloud, u)[0]
    assert listed == [{"volumeId": vol, "serverId": u, "device": "/dev/vdb",
                       "tag": "data", "delete_on_termination": True,
                       "attachment_id": bdm.attachment_id,
                       "bdm_uuid": bdm.uuid}]
    assert cinder.attachments[bdm.attachment_id]["status"] == "attached"
    old = req(cloud, u, vol=vol, version="2.1").json
    assert old == {"volumeAttachment": {"id": vol, "volumeId": vol,
                                        "serverId": u, "device": "/dev/vdb"}}
    # A second volume gets the next name.
    vol2 = cinder.add_volume(PROJECT)["id"]
    assert attach(cloud, u, vol2, version="2.1").json[
        "volumeAttachment"]["device"] == "/dev/vdc"
    assert wait_for(lambda: cinder.volumes[vol2]["status"] == "in-use")

    resp = req(cloud, u, "DELETE", vol=vol)
    assert resp.status_int == 202, resp.text
    assert wait_for(lambda: cinder.volumes[vol]["status"] == "available")
    assert wait_for(lambda: [b.volume_id for b in bdms(cloud, u)] == [vol2])
    assert "/dev/vdb" not in guest_volumes(cloud, u)
    notification_capture.wait_for("instance.volume_detach.end")
    assert req(cloud, u, vol=vol).status_int == 404
    acts = power.actions(cloud, u)
    assert ("attach_volume", [("compute_attach_volume", "Success")]) in acts
    assert wait_for(lambda: ("detach_volume",
                             [("compute_detach_volume", "Success")])
                    in power.actions(cloud, u))


def test_attach_refusals_use_novas_answers(cloud, cinder):  # noqa: F811
    u = power.server(cloud)
    vol = cinder.add_volume(PROJECT)["id"]
    # tag before 2.49 and delete_on_termination before 2.79: schema 400s.
    assert attach(cloud, u, vol, version="2.48", tag="x").status_int == 400
    assert attach(cloud, u, vol, version="2.78",
                  delete_on_termination=True).status_int == 400
    assert attach(cloud, u, vol, device="sdb").status_int == 400
    missing = attach(cloud, u, "5d6a2c1e-0000-4000-8000-000000000001")
    assert missing.status_int == 404
    assert attach(cloud, u, vol).status_int == 200
    wait_for(lambda: cinder.volumes[vol]["status"] == "in-use")
    again = attach(cloud, u, vol)
    assert again.status_int == 400
    assert "already attached" in again.json["badRequest"]["message"]
    vol2 = cinder.add_volume(PROJECT)["id"]
    taken = attach(cloud, u, vol2, device="/dev/vdb")
    assert taken.status_int == 409
    assert cinder.volumes[vol2]["status"] == "available"
    not_there = req(cloud, u, vol=vol2)
    assert not_there.status_int == 404
    assert not_there.json["itemNotFound"]["message"] == (
        f"Instance {u} is not attached to volume {vol2}")

    errored = power.server(cloud, vm_state="error")
    bad = attach(cloud, errored, vol2)
    assert bad.status_int == 409
    assert bad.json["conflictingRequest"]["message"] == (
        f"Cannot 'attach_volume' instance {errored} while it is in "
        f"vm_state error")
    assert cinder.volumes[vol2]["status"] == "available"


def test_driver_failure_leaves_the_volume_available(cloud,  # noqa: F811
                                                    cinder,
                                                    notification_capture):  # noqa: F811
    u = power.server(cloud)
    vol = cinder.add_volume(PROJECT)["id"]
    power.driver(cloud).inject_failure("attach_volume", instance_uuid=u)
    try:
        assert attach(cloud, u, vol).status_int == 200
        notification_capture.wait_for("instance.volume_attach.error")
        assert wait_for(lambda: bdms(cloud, u) == [])
        assert wait_for(lambda: cinder.volumes[vol]["status"] ==
                        "available")
    finally:
        power.driver(cloud).clear_failures("attach_volume")
    assert cinder.attachments == {} or all(
        a["volume_id"] != vol for a in cinder.attachments.values())
    assert wait_for(lambda: power.faults(cloud, u))
    assert req(cloud, u).json == {"volumeAttachments": []}


def test_root_volume_detach_update_flag_and_no_cinder(cloud,  # noqa: F811
                                                      cinder):
    u = power.server(cloud)
    root = cinder.add_volume(PROJECT)["id"]
    with keel_context.target_cell(cloud.ctxt, power._cell(cloud)) as c:
        objects.BlockDeviceMapping(
            c, instance_uuid=u, source_type="volume",
            destination_type="volume", boot_index=0, device_name="/dev/vda",
            volume_id=root, delete_on_termination=False).create()
    resp = req(cloud, u, "DELETE", vol=root)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        "Cannot detach a root device volume"
    # 2.85: delete_on_termination can be changed in place.
    body = {"volumeAttachment": {"volumeId": root,
                                 "delete_on_termination": True}}
    # Before 2.85 a PUT is Cinder's swap of a migrating volume only.
    swap = req(cloud, u, "PUT", body={"volumeAttachment": {
        "volumeId": root}}, version="2.84", vol=root)
    assert swap.status_int == 409
    assert swap.json["conflictingRequest"]["message"] == (
        f"volume {root} is not migrating; this API should only be called "
        f"by Cinder")
    immutable = req(cloud, u, "PUT", {"volumeAttachment": {
        "volumeId": root, "device": "/dev/vdz"}}, version="2.85", vol=root)
    assert immutable.json["badRequest"]["message"] == \
        "The device property is not mutable"
    assert req(cloud, u, "PUT", body, version="2.85",
               vol=root).status_int == 202
    assert req(cloud, u, vol=root).json["volumeAttachment"][
        "delete_on_termination"] is True
    # 2.101: attach answers 202 without a body.
    vol = cinder.add_volume(PROJECT)["id"]
    resp = attach(cloud, u, vol, version="2.101")
    assert resp.status_int == 202 and not resp.body
    assert wait_for(lambda: cinder.volumes[vol]["status"] == "in-use")


def test_without_cinder_attach_is_400(cloud):  # noqa: F811
    u = power.server(cloud)
    resp = attach(cloud, u, "5d6a2c1e-0000-4000-8000-000000000002")
    assert resp.status_int == 400
    assert "Cinder" in resp.json["badRequest"]["message"]
    assert req(cloud, u).json == {"volumeAttachments": []}


def test_tag_needs_driver_support(cloud, cinder):  # noqa: F811
    u = power.server(cloud)
    vol = cinder.add_volume(PROJECT)["id"]
    driver = power.driver(cloud)
    driver.capabilities = dict(type(driver).capabilities,
                               supports_tagged_attach_volume=False)
    try:
        resp = attach(cloud, u, vol, version="2.49", tag="db")
    finally:
        del driver.capabilities
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == (
        "Tagged volume attachment is not supported by this compute "
        "service.")
    assert cinder.volumes[vol]["status"] == "available"
    assert bdms(cloud, u) == []


def test_shelved_offloaded_attach_and_detach_without_compute(
        cloud, cinder):  # noqa: F811
    u = power.server(cloud)
    inst = power.read(cloud, u)
    inst.vm_state, inst.host, inst.node = "shelved_offloaded", None, None
    inst.save()
    vol = cinder.add_volume(PROJECT)["id"]
    early = attach(cloud, u, vol, version="2.19")
    assert early.status_int == 409
    assert early.json["conflictingRequest"]["message"] == (
        f"Cannot 'attach_volume' instance {u} while it is in vm_state "
        f"shelved_offloaded")
    resp = attach(cloud, u, vol, version="2.79")
    assert resp.status_int == 200, resp.text
    # No host, no device name yet: the unshelve picks it.
    assert "device" not in resp.json["volumeAttachment"]
    [bdm] = bdms(cloud, u)
    assert cinder.attachments[bdm.attachment_id]["status"] == "reserved"
    assert req(cloud, u, "DELETE", vol=vol).status_int == 202
    assert bdms(cloud, u) == []
    assert cinder.volumes[vol]["status"] == "available"


def test_disk_device_limit_is_403(cloud, cinder):  # noqa: F811
    u = power.server(cloud)
    first, second = (cinder.add_volume(PROJECT)["id"] for _ in range(2))
    CONF.set_override("max_disk_devices_to_attach", 2, group="compute")
    try:
        assert attach(cloud, u, first).status_int == 200
        assert wait_for(lambda: cinder.volumes[first]["status"] == "in-use")
        refused = attach(cloud, u, second)
    finally:
        CONF.clear_override("max_disk_devices_to_attach", group="compute")
    assert refused.status_int == 403
    assert refused.json["forbidden"]["message"] == (
        "The maximum allowed number of disk devices (2) to attach to a "
        "single instance has been exceeded.")
    assert cinder.volumes[second]["status"] == "available"
    assert [b.volume_id for b in bdms(cloud, u)] == [first]
