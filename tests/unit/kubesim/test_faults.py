"""Fault injection: what a driver must survive, as the cluster would present it."""
import json
import time

import pytest
import urllib3
from kubernetes import client

from .kv import NS, create_vm, printable, subresource, vmi, vmi_phase

VM = "virtualmachines"
G = "kubevirt.io"


def _start(sim, custom, api_client, name="vm1", **kw):
    create_vm(custom, name, **kw)
    subresource(api_client, VM, name, "start")


def test_injected_unschedulable(sim, custom, api_client, core):
    sim.make_unschedulable("vm1")
    _start(sim, custom, api_client)
    sim.run_until(lambda: printable(sim, "vm1") == "ErrorUnschedulable")
    cond = [c for c in vmi(sim, "vm1")["status"]["conditions"] if c["type"] == "PodScheduled"][0]
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert vmi_phase(sim, "vm1") == "Scheduling"
    failure = [c for c in sim.get("VirtualMachine", NS, "vm1")["status"]["conditions"]
               if c["type"] == "Failure"]
    assert failure and failure[0]["reason"] == "Unschedulable"
    events = core.list_namespaced_event(NS, field_selector="reason=FailedScheduling").items
    assert len(events) == 1 and events[0].type == "Warning"
    for _ in range(3):                       # it stays that way
        sim.step()
    assert printable(sim, "vm1") == "ErrorUnschedulable"


def test_real_capacity_and_selectors_decide_scheduling(sim, custom, api_client):
    _start(sim, custom, api_client, "big", memory="40Gi")
    _start(sim, custom, api_client, "pinned", node_selector={"kubernetes.io/hostname": "node-9"})
    sim.run_until(lambda: printable(sim, "big") == "ErrorUnschedulable"
                  and printable(sim, "pinned") == "ErrorUnschedulable")
    msg = lambda n: [c for c in vmi(sim, n)["status"]["conditions"]  # noqa: E731
                     if c["type"] == "PodScheduled"][0]["message"]
    assert msg("big") == "0/2 nodes are available: 2 Insufficient memory."
    assert "didn't match Pod's node affinity/selector" in msg("pinned")
    sim.add_node("node-9", cpu="64", memory="256Gi")
    sim.run_until(lambda: vmi_phase(sim, "big") == "Running"
                  and vmi_phase(sim, "pinned") == "Running")
    assert vmi(sim, "pinned")["status"]["nodeName"] == "node-9"
    assert vmi(sim, "big")["status"]["nodeName"] == "node-9"
    assert printable(sim, "big") == "Running"


def test_image_pull_error(sim, custom, api_client, core):
    sim.image_pull_error()
    _start(sim, custom, api_client, container_disk="registry.example/nope:1")
    sim.run_until(lambda: printable(sim, "vm1") == "ErrImagePull")
    pod = core.list_namespaced_pod(NS, label_selector="kubevirt.io=virt-launcher").items[0]
    waiting = pod.status.container_statuses[0].state.waiting
    assert waiting.reason == "ErrImagePull" and "registry.example/nope:1" in waiting.message
    sim.step()
    assert printable(sim, "vm1") == "ImagePullBackOff"        # kubelet backs off...
    sim.step()
    assert printable(sim, "vm1") == "ErrImagePull"            # ...and tries again
    assert vmi_phase(sim, "vm1") == "Scheduling"
    sync = [c for c in vmi(sim, "vm1")["status"]["conditions"] if c["type"] == "Synchronized"]
    assert sync[0]["status"] == "False" and sync[0]["reason"] == "ErrImagePull"
    subresource(api_client, VM, "vm1", "stop")
    sim.run_until(lambda: printable(sim, "vm1") == "Stopped")


def test_datavolume_failure(sim, custom, api_client):
    sim.fail_datavolume("vm1-root", message="Unable to connect to http data source")
    _start(sim, custom, api_client, data_volume={"http": {"url": "http://glance/x"}})
    sim.run_until(lambda: printable(sim, "vm1") == "DataVolumeError")
    dv = sim.get("DataVolume", NS, "vm1-root")["status"]
    assert dv["phase"] == "Failed"
    running = [c for c in dv["conditions"] if c["type"] == "Running"][0]
    assert running["reason"] == "Error" and "http data source" in running["message"]
    for _ in range(3):
        sim.step()
    assert vmi(sim, "vm1") is None               # never started on a failed disk


def test_migration_failure(sim, custom, api_client):
    _start(sim, custom, api_client)
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    source = vmi(sim, "vm1")["status"]["nodeName"]
    sim.fail_migration("vm1", reason="migration failed: connection reset")
    subresource(api_client, VM, "vm1", "migrate")
    sim.run_until(lambda: sim.list("VirtualMachineInstanceMigration", NS)[0]
                  .get("status", {}).get("phase") == "Failed")
    ms = vmi(sim, "vm1")["status"]["migrationState"]
    assert ms["failed"] is True and ms["failureReason"] == "migration failed: connection reset"
    assert vmi(sim, "vm1")["status"]["nodeName"] == source
    assert len(sim.launcher_pods(vmi(sim, "vm1"))) == 1
    sim.step()
    assert printable(sim, "vm1") == "Running"


def test_api_500_on_matching_requests_for_a_count(custom, sim):
    fault = sim.fail_requests("create", r"/virtualmachines$", count=1)
    with pytest.raises(client.ApiException) as err:
        create_vm(custom, "vm1")
    st = json.loads(err.value.body)
    assert err.value.status == 500 and st["reason"] == "InternalError" and st["kind"] == "Status"
    assert sim.get("VirtualMachine", NS, "vm1") is None
    create_vm(custom, "vm1")                          # count spent
    custom.get_namespaced_custom_object(G, "v1", NS, VM, "vm1")   # other verbs unaffected
    assert fault.hits == 1


def test_persistent_fault_until_cleared(core, sim):
    sim.fail_requests("GET", r"/api/v1/nodes", status=503, count=None)
    for _ in range(2):
        with pytest.raises(client.ApiException) as err:
            core.list_node()
        assert err.value.status == 503
    sim.clear_faults()
    assert len(core.list_node().items) == 2


def test_request_timeout_then_the_write_lands_anyway(core, sim):
    sim.delay_requests("POST", r"/secrets$", seconds=1.0)
    body = client.V1Secret(metadata=client.V1ObjectMeta(name="slow"))
    start = time.monotonic()
    with pytest.raises(urllib3.exceptions.ReadTimeoutError):
        core.create_namespaced_secret(NS, body, _request_timeout=0.2)
    assert time.monotonic() - start < 0.9
    deadline = time.monotonic() + 3
    while sim.get("Secret", NS, "slow") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sim.get("Secret", NS, "slow") is not None   # a timeout is not a failure


def test_server_side_timeout_status(core, sim):
    sim.delay_requests("list", r"/secrets", seconds=0.1, status=504)
    with pytest.raises(client.ApiException) as err:
        core.list_namespaced_secret(NS)
    assert err.value.status == 504 and json.loads(err.value.body)["reason"] == "Timeout"


def test_missing_pvc_holds_the_vmi(sim, custom, api_client, core):
    create_vm(custom, "vm1")
    custom.patch_namespaced_custom_object(G, "v1", NS, VM, "vm1", {"spec": {"template": {
        "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "gone"}}]}}}})
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: printable(sim, "vm1") == "ErrorPvcNotFound")
    assert vmi_phase(sim, "vm1") == "Pending"
    core.create_namespaced_persistent_volume_claim(NS, client.V1PersistentVolumeClaim(
        metadata=client.V1ObjectMeta(name="gone"),
        spec=client.V1PersistentVolumeClaimSpec(access_modes=["ReadWriteMany"])))
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")


def test_node_failure_fails_its_vmis_and_always_vms_move(sim, custom, api_client, core):
    core.patch_node("node-2", {"spec": {"unschedulable": True}})        # cordon
    _start(sim, custom, api_client, "manual")
    create_vm(custom, "always", run_strategy="Always")
    sim.run_until(lambda: vmi_phase(sim, "manual") == "Running"
                  and vmi_phase(sim, "always") == "Running")
    assert {vmi(sim, n)["status"]["nodeName"] for n in ("manual", "always")} == {"node-1"}
    core.patch_node("node-2", {"spec": {"unschedulable": False}})       # uncordon
    sim.set_node_ready("node-1", False)
    sim.step()
    assert vmi_phase(sim, "manual") == "Failed"
    assert vmi(sim, "manual")["status"]["reason"] == "NodeUnresponsive"
    assert core.read_node("node-1").metadata.labels["kubevirt.io/schedulable"] == "false"
    sim.run_until(lambda: printable(sim, "manual") == "Stopped"
                  and vmi_phase(sim, "always") == "Running")
    assert vmi(sim, "always")["status"]["nodeName"] == "node-2"     # Always came back elsewhere
    assert vmi_phase(sim, "manual") == "Failed"                      # Manual stays down


def test_dedicated_cpus_need_a_cpu_manager_node(sim, custom, api_client, core):
    create_vm(custom, "pinned", cores=4)
    custom.patch_namespaced_custom_object(G, "v1", NS, VM, "pinned", {"spec": {"template": {
        "spec": {"domain": {"cpu": {"cores": 4, "dedicatedCpuPlacement": True}}}}}})
    subresource(api_client, VM, "pinned", "start")
    sim.run_until(lambda: printable(sim, "pinned") == "ErrorUnschedulable")
    sim.add_node("pcpu-1", cpu="16", memory="64Gi", cpu_manager=True)
    sim.run_until(lambda: vmi_phase(sim, "pinned") == "Running")
    pod = sim.launcher_pods(vmi(sim, "pinned"))[0]
    assert pod["spec"]["nodeName"] == "pcpu-1"
    assert pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "4"
