"""virt-api subresources: the state changes and the refusals KubeVirt answers with."""
import json

import pytest
import websocket
from kubernetes import client

from .kv import NS, create_vm, printable, subresource, vmi, vmi_phase

VM, VMI = "virtualmachines", "virtualmachineinstances"


def _running(sim, custom, api_client, name="vm1", **kw):
    create_vm(custom, name, **kw)
    subresource(api_client, VM, name, "start")
    sim.run_until(lambda: vmi_phase(sim, name) == "Running")
    sim.step()


def _conflict(call):
    with pytest.raises(client.ApiException) as err:
        call()
    assert err.value.status == 409, err.value.body
    return json.loads(err.value.body)["message"]


def test_start_records_a_request_then_the_controller_creates_the_vmi(sim, custom, api_client):
    create_vm(custom, "vm1")
    sim.settle()
    assert printable(sim, "vm1") == "Stopped"
    resp = subresource(api_client, VM, "vm1", "start")
    assert resp.status == 202
    vm = sim.get("VirtualMachine", NS, "vm1")
    assert vm["status"]["stateChangeRequests"] == [{"action": "Start"}]
    assert vm["spec"]["runStrategy"] == "Manual"      # Manual stays Manual
    sim.step()
    assert vmi(sim, "vm1") is not None
    assert "stateChangeRequests" not in sim.get("VirtualMachine", NS, "vm1")["status"]


def test_start_when_running_and_stop_when_stopped_are_409(sim, custom, api_client):
    _running(sim, custom, api_client)
    msg = _conflict(lambda: subresource(api_client, VM, "vm1", "start"))
    assert msg == 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm1": ' \
                  'VM is already running'
    subresource(api_client, VM, "vm1", "stop")
    sim.run_until(lambda: vmi(sim, "vm1") is None)
    assert "VM is not running" in _conflict(lambda: subresource(api_client, VM, "vm1", "stop"))


def test_stop_deletes_the_vmi_through_stopping(sim, custom, api_client):
    _running(sim, custom, api_client)
    subresource(api_client, VM, "vm1", "stop", {"gracePeriod": 0})
    assert vmi(sim, "vm1")["spec"]["terminationGracePeriodSeconds"] == 0
    seen = []
    sim.run_until(lambda: seen.append(printable(sim, "vm1")) or vmi(sim, "vm1") is None)
    assert seen[:3] == ["Running", "Stopping", "Stopped"]     # Stopped once the guest is down
    assert printable(sim, "vm1") == "Stopped"
    assert sim.list("Pod", NS) == []


def test_always_and_halted_strategies(sim, custom, api_client):
    create_vm(custom, "vm1", run_strategy="Always")
    assert "Always does not support manual start requests" in _conflict(
        lambda: subresource(api_client, VM, "vm1", "start"))
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    assert "VM is already running" in _conflict(lambda: subresource(api_client, VM, "vm1",
                                                                    "start"))
    subresource(api_client, VM, "vm1", "stop")
    assert sim.get("VirtualMachine", NS, "vm1")["spec"]["runStrategy"] == "Halted"
    sim.run_until(lambda: vmi(sim, "vm1") is None)
    subresource(api_client, VM, "vm1", "start")
    assert sim.get("VirtualMachine", NS, "vm1")["spec"]["runStrategy"] == "Always"
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")


def test_restart_makes_a_new_vmi(sim, custom, api_client):
    _running(sim, custom, api_client)
    old_uid = vmi(sim, "vm1")["metadata"]["uid"]
    subresource(api_client, VM, "vm1", "restart")
    sim.run_until(lambda: (vmi(sim, "vm1") or {}).get("metadata", {}).get("uid") not in
                  (None, old_uid) and vmi_phase(sim, "vm1") == "Running")
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VM, "vm1", "restart", {"gracePeriodSeconds": 5})
    assert err.value.status == 400


def test_start_again_after_guest_shutdown(sim, custom, api_client):
    _running(sim, custom, api_client)
    sim.guest_shutdown(NS, "vm1")
    sim.step()
    assert printable(sim, "vm1") == "Stopped" and vmi_phase(sim, "vm1") == "Succeeded"
    subresource(api_client, VM, "vm1", "start")
    assert [r["action"] for r in sim.get("VirtualMachine", NS, "vm1")["status"]
            ["stateChangeRequests"]] == ["Stop", "Start"]
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")


def test_pause_and_unpause(sim, custom, api_client):
    _running(sim, custom, api_client)
    assert subresource(api_client, VMI, "vm1", "pause").status == 200
    cond = [c for c in vmi(sim, "vm1")["status"]["conditions"] if c["type"] == "Paused"]
    assert cond and cond[0]["status"] == "True" and cond[0]["reason"] == "PausedByUser"
    sim.step()
    assert printable(sim, "vm1") == "Paused"
    assert "already paused" in _conflict(lambda: subresource(api_client, VMI, "vm1", "pause"))
    assert "VMI is paused" in _conflict(lambda: subresource(api_client, VMI, "vm1",
                                                            "softreboot"))
    subresource(api_client, VMI, "vm1", "unpause")
    sim.step()
    assert printable(sim, "vm1") == "Running"
    assert "VMI is not paused" in _conflict(lambda: subresource(api_client, VMI, "vm1",
                                                                "unpause"))


def test_vmi_actions_need_a_running_vmi(sim, custom, api_client):
    create_vm(custom, "vm1")
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VMI, "vm1", "pause")
    assert err.value.status == 404
    subresource(api_client, VM, "vm1", "start")
    sim.step()                               # VMI exists but is still scheduling
    assert "not running" in _conflict(lambda: subresource(api_client, VMI, "vm1", "pause"))


def test_softreboot_and_guest_agent_calls(sim, custom, api_client):
    _running(sim, custom, api_client)
    subresource(api_client, VMI, "vm1", "softreboot")
    assert sim.reboots == [(NS, "vm1", "soft")]
    info = json.loads(subresource(api_client, VMI, "vm1", "guestosinfo", method="GET").data)
    assert info["hostname"] == "vm1" and info["os"]["id"]
    subresource(api_client, VMI, "vm1", "freeze")
    assert vmi(sim, "vm1")["status"]["fsFreezeStatus"] == "frozen"
    subresource(api_client, VMI, "vm1", "unfreeze")
    assert "fsFreezeStatus" not in vmi(sim, "vm1")["status"]


def test_migrate_creates_a_migration_object(sim, custom, api_client):
    _running(sim, custom, api_client)
    subresource(api_client, VM, "vm1", "migrate",
                {"addedNodeSelector": {"kubernetes.io/hostname": "node-2"}})
    migs = sim.list("VirtualMachineInstanceMigration", NS)
    assert len(migs) == 1 and migs[0]["metadata"]["name"].startswith("kubevirt-migrate-vm-")
    assert migs[0]["spec"] == {"vmiName": "vm1",
                               "addedNodeSelector": {"kubernetes.io/hostname": "node-2"}}


def _static_volume(core, pv="pv-1", claim="vol-1", size="5Gi"):
    """A pre-bound static PV + PVC pair, as an attached Cinder volume is represented."""
    core.create_persistent_volume({
        "metadata": {"name": pv},
        "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteMany"],
                 "volumeMode": "Block", "persistentVolumeReclaimPolicy": "Retain",
                 "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2010-10.org:vol",
                           "lun": 1}}})
    core.create_namespaced_persistent_volume_claim(NS, {
        "metadata": {"name": claim},
        "spec": {"volumeName": pv, "storageClassName": "", "accessModes": ["ReadWriteMany"],
                 "volumeMode": "Block", "resources": {"requests": {"storage": size}}}})


def test_addvolume_and_removevolume_on_a_vm(sim, custom, api_client, core):
    _running(sim, custom, api_client)
    _static_volume(core)
    opts = {"name": "data", "disk": {"disk": {"bus": "scsi"}},
            "volumeSource": {"persistentVolumeClaim": {"claimName": "vol-1",
                                                       "hotpluggable": True}}}
    subresource(api_client, VM, "vm1", "addvolume", opts)
    with pytest.raises(client.ApiException) as err:       # still queued
        subresource(api_client, VM, "vm1", "addvolume", opts)
    assert err.value.status == 409
    phases = []

    def ready():
        st = [v for v in vmi(sim, "vm1")["status"].get("volumeStatus", []) if v["name"] == "data"]
        phases.append(st[0]["phase"] if st else None)
        return st and st[0]["phase"] == "Ready"
    sim.run_until(ready)
    assert [p for p in phases if p][:4] == ["Pending", "Bound", "AttachedToNode", "Ready"]
    entry = [v for v in vmi(sim, "vm1")["status"]["volumeStatus"] if v["name"] == "data"][0]
    assert entry["reason"] == "VolumeReady" and entry["target"].startswith("sd")
    tmpl = sim.get("VirtualMachine", NS, "vm1")["spec"]["template"]["spec"]
    assert "data" in [v["name"] for v in tmpl["volumes"]]
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VM, "vm1", "addvolume", opts)
    assert err.value.status == 400 and "already exists" in json.loads(err.value.body)["message"]
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VM, "vm1", "removevolume", {"name": "root"})
    assert err.value.status == 400       # not hotpluggable
    subresource(api_client, VM, "vm1", "removevolume", {"name": "data"})
    sim.run_until(lambda: "data" not in [v["name"] for v in
                                         vmi(sim, "vm1")["status"].get("volumeStatus", [])])
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VM, "vm1", "addvolume", {"name": "x"})
    assert err.value.status == 400


def _ws(sim, name, action):
    url = sim.url.replace("http", "ws") + \
        f"/apis/subresources.kubevirt.io/v1/namespaces/{NS}/{VMI}/{name}/{action}"
    return websocket.create_connection(url, subprotocols=["plain.kubevirt.io"], timeout=5)


def test_console_and_vnc_websockets(sim, custom, api_client):
    _running(sim, custom, api_client)
    ws = _ws(sim, "vm1", "console")
    assert ws.getsubprotocol() == "plain.kubevirt.io"
    ws.send_binary(b"root\r")
    assert ws.recv() == b"root\r"
    ws.close()
    vnc = _ws(sim, "vm1", "vnc")
    assert vnc.recv() == b"RFB 003.008\n"
    vnc.close()
    with pytest.raises(client.ApiException) as err:       # plain GET: refused clearly
        subresource(api_client, VMI, "vm1", "vnc", method="GET")
    assert err.value.status == 400 and "websocket" in json.loads(err.value.body)["message"]


def test_unknown_subresource_and_wrong_method(sim, custom, api_client):
    create_vm(custom, "vm1")
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VM, "vm1", "explode")
    assert err.value.status == 404
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VM, "vm1", "start", method="POST")
    assert err.value.status == 405


def test_without_guest_agent(sim, custom, api_client):
    sim.no_guest_agent("vm1")
    _running(sim, custom, api_client)
    conds = {c["type"] for c in vmi(sim, "vm1")["status"]["conditions"]}
    assert "AgentConnected" not in conds
    assert "guest agent" in _conflict(lambda: subresource(api_client, VMI, "vm1", "guestosinfo",
                                                          method="GET"))
    assert "guest agent" in _conflict(lambda: subresource(api_client, VMI, "vm1", "freeze"))
    subresource(api_client, VMI, "vm1", "softreboot")          # ACPI still works
    custom.patch_namespaced_custom_object("kubevirt.io", "v1", NS, VMI, "vm1", {"spec": {
        "domain": {"features": {"acpi": {"enabled": False}}}}})
    assert "neither have the agent connected nor the ACPI" in _conflict(
        lambda: subresource(api_client, VMI, "vm1", "softreboot"))


def test_missing_objects_are_named_like_virt_api_does(sim, custom, api_client):
    for kind, action, singular in ((VM, "start", "virtualmachine"),
                                   (VMI, "pause", "virtualmachineinstance")):
        with pytest.raises(client.ApiException) as err:
            subresource(api_client, kind, "ghost", action)
        st = json.loads(err.value.body)
        assert err.value.status == 404
        assert st["message"] == f'{singular}.kubevirt.io "ghost" not found'


def test_reset_is_in_place(sim, custom, api_client):
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start")
    sim.step()
    with pytest.raises(client.ApiException) as err:
        subresource(api_client, VMI, "vm1", "reset")
    assert err.value.status == 400 and "non-running VMI" in json.loads(err.value.body)["message"]
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    uid = vmi(sim, "vm1")["metadata"]["uid"]
    subresource(api_client, VMI, "vm1", "reset")
    assert sim.reboots == [(NS, "vm1", "hard")] and vmi(sim, "vm1")["metadata"]["uid"] == uid
