"""Controllers advance one phase per step, under the test's control."""
import time

from kubernetes import client, watch

from .kv import NS, create_vm, printable, subresource, vmi, vmi_phase

VM, VMI = "virtualmachines", "virtualmachineinstances"
G = "kubevirt.io"


def _phases(sim, name, steps):
    out = []
    for _ in range(steps):
        sim.step()
        out.append((vmi_phase(sim, name), printable(sim, name)))
    return out


def test_vmi_phases_step_by_step(sim, custom, api_client):
    create_vm(custom, "vm1", container_disk="quay.io/containerdisks/fedora:41")
    subresource(api_client, VM, "vm1", "start")
    seen = _phases(sim, "vm1", 4)
    assert seen == [("Scheduling", "Starting"), ("Scheduled", "Starting"),
                    ("Running", "Running"), ("Running", "Running")]
    obj = vmi(sim, "vm1")
    conds = {c["type"]: c["status"] for c in obj["status"]["conditions"]}
    assert conds["Ready"] == "True" and conds["AgentConnected"] == "True"
    assert obj["status"]["nodeName"] in ("node-1", "node-2")
    assert obj["metadata"]["ownerReferences"][0]["kind"] == "VirtualMachine"
    stamps = [p["phase"] for p in obj["status"]["phaseTransitionTimestamps"]]
    assert stamps == ["Pending", "Scheduling", "Scheduled", "Running"]
    vm = sim.get("VirtualMachine", NS, "vm1")["status"]
    assert vm["ready"] is True and vm["created"] is True


def test_launcher_pod_and_console_log(sim, custom, api_client, core):
    create_vm(custom, "vm1", memory="2Gi", cores=2)
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    uid = vmi(sim, "vm1")["metadata"]["uid"]
    pods = core.list_namespaced_pod(NS, label_selector=f"kubevirt.io/created-by={uid}").items
    assert len(pods) == 1
    pod = pods[0]
    assert pod.metadata.name.startswith("virt-launcher-vm1-")
    assert pod.spec.node_name == vmi(sim, "vm1")["status"]["nodeName"]
    assert pod.status.phase == "Running"
    assert list(vmi(sim, "vm1")["status"]["activePods"]) == [pod.metadata.uid]
    req = pod.spec.containers[0].resources.requests
    assert req == {"cpu": "200m", "memory": "2248Mi"}       # vcpus/10, guest + overhead
    sim.append_console(NS, "vm1", "root\nhello from the guest\n")
    log = core.read_namespaced_pod_log(pod.metadata.name, NS, container="guest-console-log")
    assert "vm1 login:" in log and log.endswith("hello from the guest\n")
    tail = core.read_namespaced_pod_log(pod.metadata.name, NS, container="guest-console-log",
                                        tail_lines=1)
    assert tail == "hello from the guest\n"
    assert core.read_namespaced_pod_log(pod.metadata.name, NS, container="guest-console-log",
                                        limit_bytes=5) == log[:5]
    try:
        core.read_namespaced_pod_log(pod.metadata.name, NS)
    except client.ApiException as exc:
        assert exc.status == 400 and "container name must be specified" in exc.body
    else:
        raise AssertionError("expected 400")


def test_datavolume_import_phases_and_progress(sim, custom, api_client):
    create_vm(custom, "vm1", data_volume={"http": {"url": "http://glance/v2/images/x/file"}})
    subresource(api_client, VM, "vm1", "start")
    seen = []
    for _ in range(5):
        sim.step()
        dv = sim.get("DataVolume", NS, "vm1-root")["status"]
        seen.append((dv["phase"], dv.get("progress"), printable(sim, "vm1")))
    assert seen == [("Pending", None, "Provisioning"),
                    ("ImportScheduled", None, "Provisioning"),
                    ("ImportInProgress", "0.00%", "Provisioning"),
                    ("ImportInProgress", "50.00%", "Provisioning"),
                    ("Succeeded", "100.0%", "Starting")]
    pvc = sim.get("PersistentVolumeClaim", NS, "vm1-root")
    assert pvc["status"]["phase"] == "Bound" and pvc["status"]["capacity"]["storage"] == "10Gi"
    dv = sim.get("DataVolume", NS, "vm1-root")
    assert dv["metadata"]["ownerReferences"][0]["name"] == "vm1"
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")


def test_clone_waits_for_its_source(sim, custom, core, api_client):
    custom.create_namespaced_custom_object("cdi.kubevirt.io", "v1beta1", NS, "datavolumes", {
        "apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolume",
        "metadata": {"name": "clone"},
        "spec": {"source": {"pvc": {"namespace": NS, "name": "golden"}},
                 "storage": {"resources": {"requests": {"storage": "5Gi"}}}}})
    sim.step()
    sim.step()
    dv = sim.get("DataVolume", NS, "clone")
    assert dv["status"]["phase"] == "Pending"
    assert [c["reason"] for c in dv["status"]["conditions"] if c["type"] == "Running"] == \
        ["CloneWithoutSource"]
    core.create_namespaced_persistent_volume_claim(NS, client.V1PersistentVolumeClaim(
        metadata=client.V1ObjectMeta(name="golden"),
        spec=client.V1PersistentVolumeClaimSpec(
            access_modes=["ReadWriteMany"],
            resources=client.V1VolumeResourceRequirements(requests={"storage": "5Gi"}))))
    phases = []
    sim.run_until(lambda: phases.append(sim.get("DataVolume", NS, "clone")["status"]["phase"])
                  or phases[-1] == "Succeeded")
    assert "CloneScheduled" in phases and "CloneInProgress" in phases


def test_migration_phases_move_the_vmi(sim, custom, api_client):
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    source = vmi(sim, "vm1")["status"]["nodeName"]
    custom.create_namespaced_custom_object(G, "v1", NS, "virtualmachineinstancemigrations", {
        "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstanceMigration",
        "metadata": {"name": "mig1"}, "spec": {"vmiName": "vm1"}})
    phases, statuses = [], []
    for _ in range(8):
        sim.step()
        phases.append(sim.get("VirtualMachineInstanceMigration", NS, "mig1")["status"]["phase"])
        statuses.append(printable(sim, "vm1"))
    assert phases[:7] == ["Pending", "Scheduling", "Scheduled", "PreparingTarget",
                          "TargetReady", "Running", "Succeeded"]
    assert "Migrating" in statuses and statuses[-1] == "Running"
    st = vmi(sim, "vm1")["status"]
    assert st["nodeName"] != source and st["migrationState"]["completed"] is True
    assert st["migrationState"]["sourceNode"] == source
    mirrored = sim.get("VirtualMachineInstanceMigration", NS, "mig1")["status"]["migrationState"]
    assert mirrored["completed"] is True and mirrored["targetNode"] == st["nodeName"]
    assert len(sim.launcher_pods(vmi(sim, "vm1"))) == 1


def test_migration_abort_by_deleting_it(sim, custom, api_client):
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    subresource(api_client, VM, "vm1", "migrate")
    sim.step()
    sim.step()
    name = sim.list("VirtualMachineInstanceMigration", NS)[0]["metadata"]["name"]
    custom.delete_namespaced_custom_object(G, "v1", NS, "virtualmachineinstancemigrations", name)
    sim.settle()
    assert sim.list("VirtualMachineInstanceMigration", NS) == []
    ms = vmi(sim, "vm1")["status"]["migrationState"]
    assert ms["abortStatus"] == "Succeeded" and ms["failed"] is True
    assert printable(sim, "vm1") == "Running"


def test_non_migratable_vmi_is_refused(sim, custom, api_client, core):
    core.create_namespaced_persistent_volume_claim(NS, client.V1PersistentVolumeClaim(
        metadata=client.V1ObjectMeta(name="rwo"),
        spec=client.V1PersistentVolumeClaimSpec(access_modes=["ReadWriteOnce"])))
    body_vm = create_vm(custom, "vm1")
    custom.patch_namespaced_custom_object(G, "v1", NS, VM, "vm1", {"spec": {"template": {
        "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "rwo"}}]}}}})
    assert body_vm
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    cond = [c for c in vmi(sim, "vm1")["status"]["conditions"] if c["type"] == "LiveMigratable"]
    assert cond[0]["status"] == "False" and cond[0]["reason"] == "DisksNotLiveMigratable"
    try:
        subresource(api_client, VM, "vm1", "migrate")
    except client.ApiException as exc:
        assert exc.status == 400 and "DisksNotLiveMigratable" in exc.body
    else:
        raise AssertionError("migration of a non-migratable VMI was accepted")


def test_vm_delete_removes_vmi_pods_and_datavolumes(sim, custom, api_client):
    create_vm(custom, "vm1", data_volume={"blank": {}})
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    custom.delete_namespaced_custom_object(G, "v1", NS, VM, "vm1",
                                           body={"propagationPolicy": "Foreground"})
    sim.step()
    assert printable(sim, "vm1") == "Terminating"
    sim.settle()
    for kind in ("VirtualMachine", "VirtualMachineInstance", "DataVolume", "Pod",
                 "PersistentVolumeClaim"):
        assert sim.list(kind, NS) == [], kind


def test_watch_sees_vmi_lifecycle(sim, custom, api_client):
    rv = custom.list_namespaced_custom_object(G, "v1", NS, VMI)["metadata"]["resourceVersion"]
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    phases = []
    for ev in watch.Watch().stream(custom.list_namespaced_custom_object, G, "v1", NS, VMI,
                                   resource_version=rv, timeout_seconds=5):
        phases.append((ev["type"], ev["object"].get("status", {}).get("phase")))
        if phases[-1][1] == "Running":
            break
    assert phases[0] == ("ADDED", "Pending") and phases[-1] == ("MODIFIED", "Running")


def test_free_running_controllers(sim, custom, api_client):
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start")
    sim.start_controllers(interval=0.01)
    deadline = time.monotonic() + 5
    while vmi_phase(sim, "vm1") != "Running" and time.monotonic() < deadline:
        time.sleep(0.02)
    sim.stop_controllers()
    assert vmi_phase(sim, "vm1") == "Running"


def test_snapshot_and_export_serve_the_disk(sim, custom, api_client, core):
    import base64
    import urllib.request
    create_vm(custom, "vm1", data_volume={"blank": {}})
    sim.settle()
    sim.export_data[(NS, "vm1-root")] = b"disk-bytes"
    custom.create_namespaced_custom_object("snapshot.kubevirt.io", "v1beta1", NS,
                                           "virtualmachinesnapshots", {
        "apiVersion": "snapshot.kubevirt.io/v1beta1", "kind": "VirtualMachineSnapshot",
        "metadata": {"name": "snap"},
        "spec": {"source": {"apiGroup": G, "kind": "VirtualMachine", "name": "vm1"}}})
    sim.run_until(lambda: sim.get("VirtualMachineSnapshot", NS, "snap").get("status", {}).get(
        "readyToUse"))
    # The content records the VM and one backup per volume; later writes are not in it.
    snap = sim.get("VirtualMachineSnapshot", NS, "snap")
    content = sim.get("VirtualMachineSnapshotContent", NS,
                      snap["status"]["virtualMachineSnapshotContentName"])
    assert content["spec"]["source"]["virtualMachine"]["metadata"]["name"] == "vm1"
    assert [b["volumeName"] for b in content["spec"]["volumeBackups"]] == ["root"]
    assert content["metadata"]["ownerReferences"][0]["uid"] == snap["metadata"]["uid"]
    sim.export_data[(NS, "vm1-root")] = b"written after the snapshot"
    core.create_namespaced_secret(NS, client.V1Secret(
        metadata=client.V1ObjectMeta(name="tok"),
        data={"token": base64.b64encode(b"s3cret").decode()}))
    custom.create_namespaced_custom_object("export.kubevirt.io", "v1beta1", NS,
                                           "virtualmachineexports", {
        "apiVersion": "export.kubevirt.io/v1beta1", "kind": "VirtualMachineExport",
        "metadata": {"name": "exp"},
        "spec": {"tokenSecretRef": "tok", "source": {"apiGroup": "snapshot.kubevirt.io",
                                                     "kind": "VirtualMachineSnapshot",
                                                     "name": "snap"}}})
    sim.run_until(lambda: sim.get("VirtualMachineExport", NS, "exp").get("status", {}).get("phase")
                  == "Ready")
    exp = custom.get_namespaced_custom_object("export.kubevirt.io", "v1beta1", NS,
                                              "virtualmachineexports", "exp")
    vol = exp["status"]["links"]["internal"]["volumes"][0]
    assert vol["name"] == "vm1-root"
    url = [f["url"] for f in vol["formats"] if f["format"] == "raw"][0]
    req = urllib.request.Request(url, headers={"x-kubevirt-export-token": "s3cret"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        assert resp.read() == b"disk-bytes"


def test_run_strategies_restart_policies(sim, custom, api_client):
    create_vm(custom, "always", run_strategy="Always")
    create_vm(custom, "rerun", run_strategy="RerunOnFailure")
    create_vm(custom, "manual")
    subresource(api_client, VM, "manual", "start")
    sim.run_until(lambda: all(vmi_phase(sim, n) == "Running"
                              for n in ("always", "rerun", "manual")))
    uids = {n: vmi(sim, n)["metadata"]["uid"] for n in ("always", "rerun", "manual")}
    sim.guest_shutdown(NS, "always")        # Always: any end restarts
    sim.crash_vmi(NS, "rerun")              # RerunOnFailure: a failure restarts
    sim.crash_vmi(NS, "manual")             # Manual: stays down
    sim.run_until(lambda: all(vmi_phase(sim, n) == "Running" and
                              vmi(sim, n)["metadata"]["uid"] != uids[n]
                              for n in ("always", "rerun")))
    assert vmi_phase(sim, "manual") == "Failed" and printable(sim, "manual") == "Stopped"


def test_forced_restart_replaces_the_launcher_pod(sim, custom, api_client):
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    old = vmi(sim, "vm1")["metadata"]["uid"]
    subresource(api_client, VM, "vm1", "restart", {"gracePeriodSeconds": 0})
    assert sim.launcher_pods(vmi(sim, "vm1")) == []       # deleted at once
    sim.run_until(lambda: vmi(sim, "vm1") and vmi(sim, "vm1")["metadata"]["uid"] != old
                  and vmi_phase(sim, "vm1") == "Running")
    assert len(sim.list("Pod", NS)) == 1


def test_start_paused(sim, custom, api_client):
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start", {"paused": True})
    sim.run_until(lambda: printable(sim, "vm1") == "Paused")
    assert vmi(sim, "vm1")["spec"]["startStrategy"] == "Paused"


def test_vm_events_tell_the_story(sim, custom, api_client, core):
    create_vm(custom, "vm1")
    subresource(api_client, VM, "vm1", "start")
    sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
    subresource(api_client, VM, "vm1", "stop")
    sim.run_until(lambda: vmi(sim, "vm1") is None)
    uid = sim.get("VirtualMachine", NS, "vm1")["metadata"]["uid"]
    events = core.list_namespaced_event(NS, field_selector=f"involvedObject.uid={uid}").items
    assert sorted(e.reason for e in events) == ["SuccessfulCreate", "SuccessfulDelete"]
    assert all(e.involved_object.kind == "VirtualMachine" for e in events)
