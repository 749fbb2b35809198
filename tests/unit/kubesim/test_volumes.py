"""PersistentVolumes (static binding, release, expansion), hotplug volume status and
interface hotplug, each checked through the official client as Kubernetes behaves."""
import json

import pytest
from kubernetes import client

from .kv import NS, create_vm, subresource, vmi, vmi_phase

VM = "virtualmachines"


def _pv(core, name="pv-1", size="5Gi", modes=("ReadWriteMany",), policy="Retain",
        storage_class=""):
    core.create_persistent_volume({
        "metadata": {"name": name},
        "spec": {"capacity": {"storage": size}, "accessModes": list(modes),
                 "storageClassName": storage_class,
                 "volumeMode": "Block", "persistentVolumeReclaimPolicy": policy,
                 "csi": {"driver": "rbd.csi.ceph.com", "volumeHandle": "volumes/v1"}}})


def _pvc(core, name="vol-1", pv="pv-1", size="5Gi", modes=("ReadWriteMany",),
         storage_class=""):
    core.create_namespaced_persistent_volume_claim(NS, {
        "metadata": {"name": name},
        "spec": {"volumeName": pv, "storageClassName": storage_class,
                 "accessModes": list(modes),
                 "volumeMode": "Block", "resources": {"requests": {"storage": size}}}})


def _phase(sim, kind, name, ns=NS):
    return ((sim.get(kind, ns, name) or {}).get("status") or {}).get("phase")


def test_prebound_claim_binds_and_its_volume_is_released_on_delete(sim, core):
    _pvc(core)                                # before its PV exists: Pending
    sim.settle()
    assert _phase(sim, "PersistentVolumeClaim", "vol-1") in (None, "Pending")
    _pv(core)
    sim.settle()
    assert _phase(sim, "PersistentVolumeClaim", "vol-1") == "Bound"
    pv = sim.get("PersistentVolume", "", "pv-1")
    assert pv["status"]["phase"] == "Bound"
    assert pv["spec"]["claimRef"]["name"] == "vol-1"
    pvc = core.read_namespaced_persistent_volume_claim("vol-1", NS)
    assert pvc.status.capacity == {"storage": "5Gi"}
    core.delete_namespaced_persistent_volume_claim("vol-1", NS)
    sim.settle()
    assert _phase(sim, "PersistentVolume", "pv-1", "") == "Released"   # Retain: data kept
    _pvc(core, "vol-2")                        # a Released volume is not bound again
    sim.settle()
    assert _phase(sim, "PersistentVolumeClaim", "vol-2") == "Pending"


def test_claim_asking_more_than_the_volume_stays_pending(sim, core):
    _pv(core, size="1Gi")
    _pvc(core, size="2Gi")
    sim.settle()
    assert _phase(sim, "PersistentVolumeClaim", "vol-1") == "Pending"
    assert _phase(sim, "PersistentVolume", "pv-1", "") == "Available"


def test_claim_of_another_storage_class_stays_pending(sim, core):
    _pv(core, storage_class="fast")
    _pvc(core)
    sim.settle()
    assert _phase(sim, "PersistentVolumeClaim", "vol-1") == "Pending"


def test_bound_claim_grows_and_never_shrinks(sim, core):
    _pv(core, storage_class="standard")
    _pvc(core, storage_class="standard")
    _pv(core, "pv-2")
    _pvc(core, "vol-2", "pv-2")           # no class: static, cannot grow
    sim.settle()
    with pytest.raises(client.ApiException) as err:
        core.patch_namespaced_persistent_volume_claim(
            "vol-2", NS, {"spec": {"resources": {"requests": {"storage": "8Gi"}}}})
    assert err.value.status == 403
    core.patch_namespaced_persistent_volume_claim(
        "vol-1", NS, {"spec": {"resources": {"requests": {"storage": "8Gi"}}}})
    sim.settle()
    assert sim.get("PersistentVolumeClaim", NS, "vol-1")["status"]["capacity"] == \
        {"storage": "8Gi"}
    assert sim.get("PersistentVolume", "", "pv-1")["spec"]["capacity"] == {"storage": "8Gi"}
    with pytest.raises(client.ApiException) as err:
        core.patch_namespaced_persistent_volume_claim(
            "vol-1", NS, {"spec": {"resources": {"requests": {"storage": "1Gi"}}}})
    assert err.value.status == 422
    assert "less than previous value" in json.loads(err.value.body)["message"]
    with pytest.raises(client.ApiException) as err:
        core.patch_namespaced_persistent_volume_claim(
            "vol-1", NS, {"spec": {"accessModes": ["ReadWriteOnce"]}})
    assert err.value.status == 422


def _running(sim, custom, api_client):
    create_vm(custom, "vm1", container_disk="quay.io/containerdisks/fedora:41")
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")


def _volume_status(sim, name):
    return next((v for v in vmi(sim, "vm1")["status"].get("volumeStatus") or []
                 if v["name"] == name), None)


_ADD = {"name": "data", "disk": {"disk": {"bus": "scsi"}},
        "volumeSource": {"persistentVolumeClaim": {"claimName": "vol-1",
                                                   "hotpluggable": True}}}


def test_hotplug_waits_for_its_claim_to_bind(sim, custom, api_client, core):
    _running(sim, custom, api_client)
    subresource(api_client, VM, "vm1", "addvolume", _ADD)
    for _ in range(5):
        sim.step()
    entry = _volume_status(sim, "data")
    assert entry["phase"] == "Pending" and "does not exist" in entry["message"]
    _pv(core)
    _pvc(core)
    sim.run_until(lambda: (_volume_status(sim, "data") or {}).get("phase") == "Ready")


def test_injected_hotplug_failure_reports_failed_phase(sim, custom, api_client, core):
    _running(sim, custom, api_client)
    _pv(core)
    _pvc(core)
    sim.fail_hotplug("data", message="no free SCSI slot")
    subresource(api_client, VM, "vm1", "addvolume", _ADD)
    sim.run_until(lambda: (_volume_status(sim, "data") or {}).get("phase") == "Failed")
    assert _volume_status(sim, "data")["message"] == "no free SCSI slot"
    for _ in range(3):
        sim.step()
    assert _volume_status(sim, "data")["phase"] == "Failed"    # stays failed
    subresource(api_client, VM, "vm1", "removevolume", {"name": "data"})
    sim.run_until(lambda: _volume_status(sim, "data") is None)


def _add_interface(custom, name, binding="bridge", net=None):
    vm = custom.get_namespaced_custom_object("kubevirt.io", "v1", NS, VM, "vm1")
    spec = vm["spec"]["template"]["spec"]
    spec["domain"]["devices"]["interfaces"].append(
        {"name": name, binding: {}, "macAddress": "fa:16:3e:00:00:01"})
    spec["networks"].append(net or {"name": name, "multus": {"networkName": "neutron-net"}})
    custom.replace_namespaced_custom_object("kubevirt.io", "v1", NS, VM, "vm1", vm)


def _iface_names(sim):
    return [i["name"] for i in vmi(sim, "vm1")["status"].get("interfaces") or []]


def test_bridge_interface_hotplug_and_unplug(sim, custom, api_client):
    _running(sim, custom, api_client)
    uid = vmi(sim, "vm1")["metadata"]["uid"]
    _add_interface(custom, "port-1")
    sim.run_until(lambda: "port-1" in _iface_names(sim))
    entry = [i for i in vmi(sim, "vm1")["status"]["interfaces"] if i["name"] == "port-1"][0]
    assert entry["mac"] == "fa:16:3e:00:00:01"
    assert vmi(sim, "vm1")["metadata"]["uid"] == uid          # live, no restart
    vm = custom.get_namespaced_custom_object("kubevirt.io", "v1", NS, VM, "vm1")
    for iface in vm["spec"]["template"]["spec"]["domain"]["devices"]["interfaces"]:
        if iface["name"] == "port-1":
            iface["state"] = "absent"
    custom.replace_namespaced_custom_object("kubevirt.io", "v1", NS, VM, "vm1", vm)
    sim.run_until(lambda: "port-1" not in _iface_names(sim))
    cond = [c["type"] for c in sim.get("VirtualMachine", NS, "vm1")["status"]["conditions"]]
    assert "RestartRequired" not in cond


def test_interface_that_cannot_go_live_requires_a_restart(sim, custom, api_client):
    _running(sim, custom, api_client)
    _add_interface(custom, "port-2", binding="masquerade",
                   net={"name": "port-2", "pod": {}})
    sim.run_until(lambda: any(
        c["type"] == "RestartRequired"
        for c in sim.get("VirtualMachine", NS, "vm1")["status"].get("conditions") or []))
    assert "port-2" not in _iface_names(sim)
