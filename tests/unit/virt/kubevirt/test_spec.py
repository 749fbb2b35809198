"""Spec renderers: the VirtualMachine body (golden YAML), each flavor/image
mapping, and the combinations KubeVirt cannot express (400s)."""
import base64
import json
import os

import pytest
import yaml

from keel.virt.kubevirt.spec import KubeVirtUnsupported
from keel.virt.kubevirt.spec import cloudinit
from keel.virt.kubevirt.spec import labels
from keel.virt.kubevirt.spec import vm as vm_spec

from .conftest import UUID, make_image, make_instance, vif

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def render(instance=None, image=None, network_info=(), opts=None,
           node="node-1"):
    return vm_spec.render_vm(instance or make_instance(),
                             image if image is not None else make_image(),
                             list(network_info), "cmp", node, opts, "images")


def domain(body):
    return body["spec"]["template"]["spec"]["domain"]


def test_full_vm_matches_golden_yaml(conf, opts):
    conf.set_override("storage_class", "rbd", group="kubevirt")
    inst = make_instance(
        extra_specs={"hw:cpu_sockets": "2", "hw:firmware_type": "uefi",
                     "os:secure_boot": "required", "hw:machine_type": "q35",
                     "hw:watchdog_action": "reset"},
        ephemeral_gb=5, swap=1024, key_data="ssh-ed25519 AAAA user")
    body = render(inst, make_image(hw_disk_bus="scsi", hw_vif_model="e1000e"),
                  [vif()], opts)
    with open(os.path.join(GOLDEN, "vm_full.yaml")) as f:
        assert body == yaml.safe_load(f)


def test_minimal_vm(opts):
    body = render(opts=opts)
    dom = domain(body)
    assert dom["cpu"] == {"sockets": 4, "cores": 1, "threads": 1}
    assert dom["memory"] == {"guest": "4096Mi"}
    assert dom["resources"] == {"requests": {"memory": "4096Mi"}}
    assert "bootloader" not in dom["firmware"]
    assert dom["devices"]["interfaces"] == [
        {"name": "default", "masquerade": {}, "model": "virtio"}]
    assert body["spec"]["runStrategy"] == "Manual"
    assert body["metadata"]["name"] == UUID
    spec = body["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"kubernetes.io/hostname": "node-1"}
    assert "accessCredentials" not in spec
    vol = [v for v in spec["volumes"] if v["name"] == "configdrive"][0]
    assert vol["cloudInitConfigDrive"] == {
        "secretRef": {"name": UUID + "-configdrive"}}


@pytest.mark.parametrize("specs,image_props,expected", [
    ({}, {}, (4, 1, 1)),
    ({"hw:cpu_cores": "2"}, {}, (2, 2, 1)),
    ({"hw:cpu_sockets": "1", "hw:cpu_threads": "2"}, {}, (1, 2, 2)),
    ({}, {"hw_cpu_cores": 4}, (1, 4, 1)),
    ({"hw:cpu_sockets": "2"}, {"hw_cpu_sockets": 4}, (2, 2, 1)),
])
def test_cpu_topology(opts, specs, image_props, expected):
    cpu = domain(render(make_instance(specs), make_image(**image_props),
                        opts=opts))["cpu"]
    assert (cpu["sockets"], cpu["cores"], cpu["threads"]) == expected


def test_dedicated_cpus_get_guaranteed_resources(opts):
    dom = domain(render(make_instance({
        "hw:cpu_policy": "dedicated", "hw:emulator_threads_policy":
        "isolate", "hw:cpu_thread_policy": "isolate"}), opts=opts))
    assert dom["cpu"]["dedicatedCpuPlacement"] is True
    assert dom["cpu"]["isolateEmulatorThread"] is True
    assert dom["resources"] == {"requests": {"cpu": "4", "memory": "4096Mi"},
                                "limits": {"cpu": "4", "memory": "4096Mi"}}


@pytest.mark.parametrize("value,page", [("large", "2Mi"), ("2MB", "2Mi"),
                                        ("1GB", "1Gi"), ("1048576", "1Gi")])
def test_huge_pages(opts, value, page):
    dom = domain(render(make_instance({"hw:mem_page_size": value}),
                        opts=opts))
    assert dom["memory"]["hugepages"] == {"pageSize": page}


@pytest.mark.parametrize("value", ["small", "any"])
def test_small_pages_need_nothing(opts, value):
    assert "hugepages" not in domain(render(
        make_instance({"hw:mem_page_size": value}), opts=opts))["memory"]


def test_bios_firmware_image_property_and_multiqueue(opts):
    dom = domain(render(image=make_image(hw_firmware_type="bios",
                                         hw_machine_type="pc-q35-9.0",
                                         hw_vif_multiqueue_enabled=True),
                        opts=opts))
    assert dom["firmware"]["bootloader"] == {"bios": {}}
    assert dom["machine"] == {"type": "pc-q35-9.0"}
    assert dom["devices"]["networkInterfaceMultiqueue"] is True


def test_uefi_without_secure_boot(opts):
    dom = domain(render(image=make_image(hw_firmware_type="uefi"),
                        opts=opts))
    assert dom["firmware"]["bootloader"] == {"efi": {"secureBoot": False}}
    assert "features" not in dom


@pytest.mark.parametrize("specs,props,prop", [
    ({"hw:cpu_policy": "mixed"}, {}, "hw:cpu_policy"),
    ({"hw:cpu_sockets": "3"}, {}, "hw:cpu_sockets"),
    ({"hw:cpu_sockets": "1", "hw:cpu_cores": "1", "hw:cpu_threads": "1"}, {},
     "hw:cpu_sockets/cores/threads"),
    ({"hw:cpu_max_sockets": "2"}, {}, "hw:cpu_max_sockets"),
    ({"hw:cpu_thread_policy": "isolate"}, {}, "hw:cpu_thread_policy"),
    ({"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "require"}, {},
     "hw:cpu_thread_policy"),
    ({"hw:emulator_threads_policy": "isolate"}, {},
     "hw:emulator_threads_policy"),
    ({"hw:numa_nodes": "2"}, {}, "hw:numa_nodes"),
    ({"hw:mem_page_size": "64KB"}, {}, "hw:mem_page_size"),
    ({"os:secure_boot": "required"}, {}, "os_secure_boot"),
    ({"hw:watchdog_action": "pause"}, {}, "hw_watchdog_action"),
    ({"pci_passthrough:alias": "gpu:1"}, {}, "pci_passthrough:alias"),
    ({}, {"hw_disk_bus": "ide"}, "hw_disk_bus"),
    ({}, {"hw_vif_model": "vmxnet3"}, "hw_vif_model"),
])
def test_unsupported_combinations_are_400s_naming_the_property(
        opts, specs, props, prop):
    with pytest.raises(KubeVirtUnsupported) as err:
        render(make_instance(specs), make_image(**props), opts=opts)
    assert err.value.code == 400
    assert prop in err.value.format_message()


def test_one_gib_pages_need_whole_gib_of_ram(opts):
    with pytest.raises(KubeVirtUnsupported):
        render(make_instance({"hw:mem_page_size": "1GB"}, memory_mb=1536),
               opts=opts)


def test_container_disk_from_image_system_metadata(opts):
    inst = make_instance(system_metadata={
        "image_kubevirt_container_disk": "registry/img:1"})
    body = render(inst, opts=opts)
    assert body["spec"]["dataVolumeTemplates"] == []
    assert body["spec"]["template"]["spec"]["volumes"][0] == {
        "name": "root", "containerDisk": {"image": "registry/img:1"}}


def test_boot_from_volume_is_refused_for_now(opts):
    with pytest.raises(KubeVirtUnsupported):
        render(make_instance(image_ref=""), opts=opts)


def test_config_drive_secret(opts):
    inst = make_instance(
        user_data=base64.b64encode(b"#!/bin/sh\necho hi\n").decode(),
        key_data="ssh-rsa AAA", key_name="mykey", metadata={"role": "web"})
    secret = cloudinit.config_drive_secret(inst, [vif()], {"a": "b"})
    data = {k: base64.b64decode(v) for k, v in secret["data"].items()}
    assert data["userdata"] == b"#!/bin/sh\necho hi\n"
    meta = json.loads(data["metadata"])
    assert meta["uuid"] == UUID and meta["meta"] == {"role": "web"}
    assert meta["public_keys"] == {"mykey": "ssh-rsa AAA"}
    net = json.loads(data["networkdata"])
    assert net["links"][0]["ethernet_mac_address"] == "fa:16:3e:00:00:01"
    assert net["networks"][0]["type"] == "ipv4_dhcp"
    keys = cloudinit.keys_secret(inst, {})
    assert base64.b64decode(keys["data"]["key"]) == b"ssh-rsa AAA"


def test_bad_user_data_is_refused():
    with pytest.raises(KubeVirtUnsupported):
        cloudinit.config_drive_secret(make_instance(user_data="%%%"), [], {})


def test_label_values_stay_valid():
    assert labels.label_value("node-1.example.com") == "node-1.example.com"
    long_name = "x" * 80
    value = labels.label_value(long_name)
    assert len(value) <= 63 and value == labels.label_value(long_name)
    assert labels.selector("cmp") == (
        "app.kubernetes.io/managed-by=openkeel-compute,"
        "keel.openstack.org/host=cmp")


def test_validate_without_an_instance_for_the_api():
    inst = make_instance({"hw:cpu_policy": "dedicated"})
    vm_spec.validate(inst.flavor, make_image(hw_disk_bus="sata"))
    with pytest.raises(KubeVirtUnsupported) as err:
        vm_spec.validate(inst.flavor, make_image(hw_vif_model="netfront"))
    assert "hw_vif_model" in err.value.format_message()
    with pytest.raises(KubeVirtUnsupported):
        vm_spec.validate(make_instance({"hw:numa_nodes": "4"}).flavor, None)


def test_validate_takes_the_api_s_dicts():
    """The API holds flavors and Glance images as dicts; a refusal is a 400
    naming the property."""
    from keel import exception
    flavor = {"vcpus": 4, "memory_mb": 3000, "root_gb": 10,
              "extra_specs": {"hw:mem_page_size": "1GB"}}
    with pytest.raises(exception.Invalid) as err:
        vm_spec.validate(flavor, {"id": "img", "properties": {}})
    assert err.value.code == 400
    assert "hw:mem_page_size" in err.value.format_message()
    flavor["memory_mb"] = 4096
    vm_spec.validate(flavor, {"id": "img", "properties": {
        "hw_disk_bus": "scsi", "hw_vif_model": "e1000"}})
    with pytest.raises(exception.Invalid) as err:
        vm_spec.validate(flavor, {"properties": {"hw_disk_bus": "ide"}})
    assert "hw_disk_bus" in err.value.format_message()
    vm_spec.validate({"vcpus": 2, "ram": 512, "extra_specs": {}}, None)
