"""Pure helpers of the inventory: quantities, traits, versions, sizes."""
import pytest

from keel.virt.kubevirt import inventory


@pytest.mark.parametrize("text,value", [
    ("500m", 0.5), ("4", 4.0), ("64Gi", 64 * 2 ** 30), ("1k", 1000.0),
    ("1e3", 1000.0), (None, 0.0), ("", 0.0)])
def test_quantity(text, value):
    assert inventory.quantity(text) == value


def test_bad_quantity():
    with pytest.raises(ValueError):
        inventory.quantity("12 apples")


def test_node_traits_from_kubevirt_labels():
    traits = inventory.node_traits({
        "cpu-model.node.kubevirt.io/Skylake-Client-IBRS": "true",
        "cpu-model.node.kubevirt.io/Haswell": "false",
        "cpu-feature.node.kubevirt.io/avx2": "true",
        "cpu-feature.node.kubevirt.io/made-up": "true",
        "host-model-cpu.node.kubevirt.io/Skylake": "true",
        "kubernetes.io/hostname": "n1"})
    assert traits == {"CUSTOM_KUBEVIRT_CPU_MODEL_SKYLAKE_CLIENT_IBRS",
                      "CUSTOM_KUBEVIRT_CPU_FEATURE_AVX2", "HW_CPU_X86_AVX2",
                      "CUSTOM_KUBEVIRT_CPU_FEATURE_MADE_UP",
                      "CUSTOM_KUBEVIRT_HOST_MODEL_SKYLAKE"}


def test_version_int():
    assert inventory.version_int("v1.34.2") == 1034002
    assert inventory.version_int(None) == 0


def test_guest_size():
    vm = {"spec": {"dataVolumeTemplates": [
        {"spec": {"storage": {"resources": {"requests": {
            "storage": "10Gi"}}}}},
        {"spec": {"storage": {"resources": {"requests": {
            "storage": "512Mi"}}}}}],
        "template": {"spec": {"domain": {
            "cpu": {"sockets": 2, "cores": 2, "threads": 1},
            "memory": {"guest": "2048Mi"}}}}}}
    assert inventory.guest_size(vm) == (4, 2048 * 2 ** 20, 11)
