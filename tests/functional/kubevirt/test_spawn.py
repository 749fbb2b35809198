"""spawn and destroy against the simulator: the VirtualMachine the cluster
receives, the guest reaching Running, clean-up, and build failures."""
import base64
import json

import pytest

from keel import exception
from keel.virt import event as virtevent
from keel.virt import power_state
from keel.virt.kubevirt.spec import KubeVirtUnsupported

from .conftest import NS, Ctx, image, make_instance


def _secret(sim, name):
    obj = sim.get("Secret", NS, name)
    return {k: base64.b64decode(v).decode() for k, v in obj["data"].items()}


def test_spawn_creates_pinned_vm_and_runs(sim, drv, running):
    user_data = base64.b64encode(b"#cloud-config\nhostname: one\n").decode()
    inst = make_instance(user_data=user_data, key_data="ssh-ed25519 AAA k",
                         key_name="k")
    img = image()
    drv.spawn(Ctx(), inst, img, [], None, {})

    vm = sim.get("VirtualMachine", NS, inst.uuid)
    labels = vm["metadata"]["labels"]
    assert labels["app.kubernetes.io/managed-by"] == "openkeel-compute"
    assert labels["keel.openstack.org/instance-uuid"] == inst.uuid
    assert labels["keel.openstack.org/node"] == "node-1"
    assert vm["spec"]["runStrategy"] == "Manual"
    tmpl = vm["spec"]["template"]["spec"]
    assert tmpl["nodeSelector"] == {"kubernetes.io/hostname": "node-1"}
    assert tmpl["domain"]["firmware"]["uuid"] == inst.uuid
    assert tmpl["domain"]["cpu"] == {"sockets": 2, "cores": 1, "threads": 1}
    assert tmpl["domain"]["memory"] == {"guest": "2048Mi"}
    root = vm["spec"]["dataVolumeTemplates"][0]
    assert root["spec"]["source"] == {"pvc": {
        "namespace": "images", "name": "keel-image-" + inst.image_ref}}
    assert root["spec"]["storage"]["resources"]["requests"]["storage"] == \
        "10Gi"

    vmi = sim.get("VirtualMachineInstance", NS, inst.uuid)
    assert vmi["status"]["phase"] == "Running"
    assert vmi["status"]["nodeName"] == "node-1"
    assert drv.get_info(inst).state == power_state.RUNNING
    assert [e.transition for e in drv.events] == \
        [virtevent.EVENT_LIFECYCLE_STARTED]
    assert drv.list_instance_uuids() == [inst.uuid]

    # The golden image was imported with the token in a Secret.
    golden = sim.get("DataVolume", "images", "keel-image-" + inst.image_ref)
    assert golden["spec"]["source"]["http"]["url"].endswith(
        "/v2/images/%s/file" % inst.image_ref)
    token = sim.get("Secret", "images",
                    golden["spec"]["source"]["http"]["secretExtraHeaders"][0])
    assert base64.b64decode(token["data"]["token"]) == b"X-Auth-Token: tok-123"

    # Config drive: user data bytes, Nova metadata, keys by accessCredentials.
    drive = _secret(sim, inst.uuid + "-configdrive")
    assert drive["userdata"].startswith("#cloud-config")
    assert json.loads(drive["metadata"])["uuid"] == inst.uuid
    assert _secret(sim, inst.uuid + "-sshkeys") == {"key": "ssh-ed25519 AAA k"}
    owner = sim.get("Secret", NS, inst.uuid + "-configdrive")[
        "metadata"]["ownerReferences"][0]
    assert owner["uid"] == vm["metadata"]["uid"]


def test_boot_writes_at_most_four_objects(sim, drv, running):
    first = make_instance()
    drv.spawn(Ctx(), first, image(), [], None, {})
    sim.reset_requests()
    second = make_instance(image_ref=first.image_ref)
    drv.spawn(Ctx(), second, image(), [], None, {})
    writes = [r for r in sim.requests if r[0] in ("POST", "PUT", "PATCH",
                                                   "DELETE")]
    # VM, config drive Secret, start; the image is not imported again.
    assert len(writes) <= 4, writes
    assert sim.request_count("GET", "virtualmachineinstances/") == 0


def test_spawn_without_power_on_leaves_guest_stopped(sim, drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {}, power_on=False)
    assert sim.get("VirtualMachineInstance", NS, inst.uuid) is None
    # Known at once, before the watch has reported the VM (a cache miss
    # asks the API server): not yet stopped by its controller, then stopped.
    assert drv.get_info(inst).state in (power_state.NOSTATE,
                                        power_state.SHUTDOWN)
    assert drv.guests.wait(
        lambda: drv.get_info(inst).state == power_state.SHUTDOWN, 5)


def test_container_disk_image_and_blank_disks(sim, drv, running):
    inst = make_instance(
        ephemeral_gb=5, swap=512,
        system_metadata={"image_kubevirt_container_disk":
                         "quay.io/containerdisks/fedora:41"})
    drv.spawn(Ctx(), inst, image(), [], None, {})
    vm = sim.get("VirtualMachine", NS, inst.uuid)
    volumes = {v["name"]: v for v in vm["spec"]["template"]["spec"]["volumes"]}
    assert volumes["root"] == {"name": "root", "containerDisk": {
        "image": "quay.io/containerdisks/fedora:41"}}
    dvs = {t["metadata"]["name"]: t["spec"]
           for t in vm["spec"]["dataVolumeTemplates"]}
    assert dvs[inst.uuid + "-ephemeral0"]["source"] == {"blank": {}}
    assert dvs[inst.uuid + "-swap"]["storage"]["resources"]["requests"] == \
        {"storage": "512Mi"}
    assert sim.list("DataVolume", "images") == []   # nothing imported


def test_destroy_removes_vm_disks_and_secrets(sim, drv, running):
    inst = make_instance(ephemeral_gb=1, key_data="ssh-rsa AAA")
    drv.spawn(Ctx(), inst, image(), [], None, {})
    drv.destroy(None, inst, None)
    assert sim.get("VirtualMachine", NS, inst.uuid) is None
    assert sim.get("VirtualMachineInstance", NS, inst.uuid) is None
    assert [d["metadata"]["name"] for d in sim.list("DataVolume", NS)] == []
    assert [s["metadata"]["name"] for s in sim.list("Secret", NS)] == []
    assert [e.transition for e in drv.events] == [
        virtevent.EVENT_LIFECYCLE_STARTED, virtevent.EVENT_LIFECYCLE_STOPPED]
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(inst)
    drv.destroy(None, inst, None)          # already gone: fine


def test_unsupported_flavor_is_refused_before_anything_exists(sim, drv):
    inst = make_instance(extra_specs={"hw:cpu_policy": "mixed"})
    with pytest.raises(KubeVirtUnsupported) as err:
        drv.spawn(Ctx(), inst, image(), [], None, {})
    assert err.value.code == 400 and "hw:cpu_policy" in str(err.value)
    assert sim.list("VirtualMachine", NS) == []


def test_unschedulable_build_is_rescheduled_and_cleaned(sim, drv, running):
    inst = make_instance()
    sim.make_unschedulable(inst.uuid)
    with pytest.raises(exception.RescheduledException) as err:
        drv.spawn(Ctx(), inst, image(), [], None, {})
    assert "ErrorUnschedulable" in str(err.value)
    assert sim.get("VirtualMachine", NS, inst.uuid) is None


def test_dedicated_cpus_on_a_node_without_cpu_manager_cannot_schedule(
        sim, drv, running):
    inst = make_instance(extra_specs={"hw:cpu_policy": "dedicated"})
    with pytest.raises(exception.RescheduledException):
        drv.spawn(Ctx(), inst, image(), [], None, {})
    ok = make_instance(node="node-2",
                       extra_specs={"hw:cpu_policy": "dedicated"})
    drv.spawn(Ctx(), ok, image(), [], None, {})
    assert drv.get_info(ok).state == power_state.RUNNING


def test_root_datavolume_failure_fails_the_build(sim, drv, running):
    inst = make_instance()
    sim.fail_datavolume(inst.uuid + "-root", message="disk quota exceeded")
    with pytest.raises(exception.InstanceDeployFailure) as err:
        drv.spawn(Ctx(), inst, image(), [], None, {})
    assert "DataVolume" in str(err.value)
    assert sim.get("VirtualMachine", NS, inst.uuid) is None


def test_image_import_failure_fails_the_build_and_is_retried(sim, drv,
                                                            running):
    inst = make_instance()
    sim.fail_datavolume("keel-image-" + inst.image_ref,
                        message="HTTP 401 from Glance")
    with pytest.raises(exception.InstanceDeployFailure) as err:
        drv.spawn(Ctx(), inst, image(), [], None, {})
    assert "HTTP 401 from Glance" in str(err.value)
    assert sim.list("VirtualMachine", NS) == []
    drv.spawn(Ctx(), inst, image(), [], None, {})     # imported again
    assert drv.get_info(inst).state == power_state.RUNNING


def test_api_500s_are_retried(sim, drv, running):
    fault = sim.fail_requests("create", "virtualmachines", status=500,
                              count=2)
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    assert fault.hits == 2
    assert drv.get_info(inst).state == power_state.RUNNING


def test_persistent_api_errors_surface(sim, drv, running):
    sim.fail_requests("create", "virtualmachines", status=503, count=None)
    with pytest.raises(Exception) as err:
        drv.spawn(Ctx(), make_instance(), image(), [], None, {})
    assert "503" in str(err.value)


def test_spawning_an_existing_guest_is_refused(sim, drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    with pytest.raises(exception.InstanceExists):
        drv.spawn(Ctx(), inst, image(), [], None, {})
    assert drv.get_info(inst).state == power_state.RUNNING   # untouched


def test_cluster_provider_mode_lets_kubernetes_place_the_guest(
        conf, sim, drv, running):
    conf.set_override("cluster_provider", True, group="kubevirt")
    inst = make_instance(node="kubevirt-cluster")
    drv.spawn(Ctx(), inst, image(), [], None, {})
    vm = sim.get("VirtualMachine", NS, inst.uuid)
    assert "nodeSelector" not in vm["spec"]["template"]["spec"]
    assert sim.get("VirtualMachineInstance", NS, inst.uuid)["status"][
        "nodeName"] in ("node-1", "node-2")
    drv.get_available_nodes(refresh=True)
    res = drv.get_available_resource("kubevirt-cluster")
    assert res["vcpus_used"] == 2


def test_neutron_ports_become_multus_bridge_nics(sim, drv, running):
    port = {"id": "0f1e2d3c-aaaa-4bbb-8ccc-000000000001",
            "address": "fa:16:3e:12:34:56",
            "network": {"id": "net-1", "meta": {"mtu": 1450}}}
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(properties={"hw_vif_model": "e1000e"}), [],
              None, {}, network_info=[port])
    spec = sim.get("VirtualMachine", NS, inst.uuid)["spec"]["template"][
        "spec"]
    nics = spec["domain"]["devices"]["interfaces"]
    assert nics[1] == {"name": "port-0f1e2d3c", "bridge": {},
                       "model": "e1000e", "macAddress": "fa:16:3e:12:34:56"}
    assert spec["networks"][1] == {"name": "port-0f1e2d3c", "multus": {
        "networkName": "neutron-net-1"}}
    vmi = sim.get("VirtualMachineInstance", NS, inst.uuid)
    assert "fa:16:3e:12:34:56" in [i.get("mac") for i in
                                   vmi["status"]["interfaces"]]
    drive = _secret(sim, inst.uuid + "-configdrive")
    links = json.loads(drive["networkdata"])["links"]
    assert links[0]["ethernet_mac_address"] == "fa:16:3e:12:34:56"


def test_image_pull_error_fails_the_build(sim, drv, running):
    inst = make_instance(system_metadata={
        "image_kubevirt_container_disk": "registry.invalid/nope:1"})
    sim.image_pull_error(inst.uuid)
    with pytest.raises(exception.InstanceDeployFailure) as err:
        drv.spawn(Ctx(), inst, image(), [], None, {})
    assert "ErrImagePull" in str(err.value) or \
        "ImagePullBackOff" in str(err.value)
    assert sim.get("VirtualMachine", NS, inst.uuid) is None
