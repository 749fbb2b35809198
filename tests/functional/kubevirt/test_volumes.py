"""Cinder volume attach/detach as hotplugged PVCs on static PersistentVolumes."""
import uuid

import pytest

from keel import exception

from .conftest import NS, Ctx, image, make_instance


@pytest.fixture
def guest(sim, drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    return inst


def _conn(vid=None, kind="iscsi", **data):
    vid = vid or str(uuid.uuid4())
    base = {"iscsi": {"target_portal": "192.0.2.10:3260",
                      "target_iqn": "iqn.2010-10.org.openstack:volume-" + vid,
                      "target_lun": 1},
            "rbd": {"name": "volumes/volume-" + vid, "cluster_name": "ceph"},
            "smbfs": {}}[kind]
    base.update(data)
    return {"driver_volume_type": kind, "serial": vid, "data": base}


def _vm_volumes(sim, inst):
    vm = sim.get("VirtualMachine", NS, inst.uuid)
    return {v["name"]: v for v in vm["spec"]["template"]["spec"]["volumes"]}


def test_attach_and_detach_a_running_guest(sim, drv, guest):
    conn = _conn(size_gb=5)
    vid = conn["serial"]
    drv.attach_volume(Ctx(), conn, guest, "/dev/vdb")
    pv = sim.get("PersistentVolume", "", "keel-volume-" + vid)
    assert pv["spec"]["iscsi"] == {"targetPortal": "192.0.2.10:3260",
                                   "iqn": conn["data"]["target_iqn"], "lun": 1}
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert pv["spec"]["capacity"] == {"storage": "5Gi"}
    assert pv["status"]["phase"] == "Bound"
    vol = _vm_volumes(sim, guest)["volume-" + vid]
    assert vol["persistentVolumeClaim"] == {"claimName": "volume-" + vid,
                                            "hotpluggable": True}
    vmi = sim.get("VirtualMachineInstance", NS, guest.uuid)
    entry = [s for s in vmi["status"]["volumeStatus"]
             if s["name"] == "volume-" + vid][0]
    assert entry["phase"] == "Ready"
    disk = [d for d in vmi["spec"]["domain"]["devices"]["disks"]
            if d["name"] == "volume-" + vid][0]
    assert disk["disk"] == {"bus": "scsi"} and disk["serial"] == vid[:20]
    drv.attach_volume(Ctx(), conn, guest, "/dev/vdb")     # a retry: no-op

    drv.detach_volume(Ctx(), conn, guest, "/dev/vdb")
    assert "volume-" + vid not in _vm_volumes(sim, guest)
    assert sim.get("PersistentVolumeClaim", NS, "volume-" + vid) is None
    assert sim.get("PersistentVolume", "", "keel-volume-" + vid) is None
    drv.detach_volume(Ctx(), conn, guest, "/dev/vdb")     # already gone


def test_rbd_volume_becomes_a_ceph_csi_volume(sim, drv, guest):
    conn = _conn(kind="rbd")
    drv.attach_volume(Ctx(), conn, guest, None)
    csi = sim.get("PersistentVolume", "", "keel-volume-" + conn["serial"])[
        "spec"]["csi"]
    assert csi["driver"] == "rbd.csi.ceph.com"
    assert csi["volumeHandle"] == "volumes/volume-" + conn["serial"]
    assert csi["volumeAttributes"]["pool"] == "volumes"


def test_failed_hotplug_is_rolled_back(sim, drv, guest):
    conn = _conn()
    vid = conn["serial"]
    sim.fail_hotplug("volume-" + vid, message="no free SCSI slot")
    with pytest.raises(exception.VolumeAttachFailed) as err:
        drv.attach_volume(Ctx(), conn, guest, None)
    assert "no free SCSI slot" in str(err.value)
    assert "volume-" + vid not in _vm_volumes(sim, guest)
    assert sim.get("PersistentVolumeClaim", NS, "volume-" + vid) is None
    assert sim.get("PersistentVolume", "", "keel-volume-" + vid) is None


def test_unsupported_transport_is_refused_before_anything_exists(sim, drv,
                                                                  guest):
    with pytest.raises(exception.VolumeAttachFailed):
        drv.attach_volume(Ctx(), _conn(kind="smbfs"), guest, None)
    assert sim.list("PersistentVolume") == []


def test_attach_to_a_stopped_guest_waits_for_the_next_start(sim, drv, guest):
    drv.power_off(guest, timeout=0)
    conn = _conn()
    drv.attach_volume(Ctx(), conn, guest, None)
    assert "volume-" + conn["serial"] in _vm_volumes(sim, guest)
    drv.power_on(None, guest, None)
    vmi = sim.get("VirtualMachineInstance", NS, guest.uuid)
    assert "volume-" + conn["serial"] in [
        v["name"] for v in vmi["spec"]["volumes"]]


def test_volume_connector_names_the_node(drv, guest):
    assert drv.get_volume_connector(guest)["host"] == "node-1"


def test_persistent_api_errors_fail_the_attach_and_leave_nothing(sim, drv,
                                                                  guest):
    conn = _conn()
    fault = sim.fail_requests("PUT", "addvolume", status=500, count=None)
    with pytest.raises(exception.VolumeAttachFailed) as err:
        drv.attach_volume(Ctx(), conn, guest, None)
    assert fault.hits == 4              # the adapter's retries, then give up
    assert "500" in str(err.value)
    sim.clear_faults()
    assert sim.get("PersistentVolumeClaim", NS, "volume-" + conn["serial"]) \
        is None
    assert sim.get("PersistentVolume", "", "keel-volume-" + conn["serial"]) \
        is None


def test_api_errors_on_detach_are_volume_detach_failures(sim, drv, guest):
    conn = _conn()
    drv.attach_volume(Ctx(), conn, guest, None)
    sim.fail_requests("PUT", "removevolume", status=503, count=None)
    with pytest.raises(exception.VolumeDetachFailed):
        drv.detach_volume(Ctx(), conn, guest, None)
    sim.clear_faults()
    drv.detach_volume(Ctx(), conn, guest, None)    # the retry succeeds
    assert "volume-" + conn["serial"] not in _vm_volumes(sim, guest)
