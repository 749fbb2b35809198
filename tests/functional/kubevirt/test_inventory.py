"""Inventory from the cluster's nodes: one compute node and provider per
schedulable Kubernetes node, reserved capacity from pods Placement does not
see, VCPU or PCPU by the CPU manager label, traits from KubeVirt's labels."""
import os_resource_classes as orc
import pytest

from keel import exception
from keel.compute.resources.provider_tree import ProviderTree

from .conftest import Ctx, image, make_instance


def _tree(drv, nodename):
    tree = ProviderTree()
    tree.new_root(nodename, drv.get_nodenames_by_uuid() and
                  {v: k for k, v in drv.get_nodenames_by_uuid().items()}
                  [nodename])
    drv.update_provider_tree(tree, nodename)
    return tree.data(nodename)


def test_one_compute_node_per_schedulable_node(sim, drv):
    sim.add_node("node-3", schedulable=False)
    assert drv.get_available_nodes(refresh=True) == ["node-1", "node-2"]
    by_uuid = drv.get_nodenames_by_uuid()
    assert sorted(by_uuid.values()) == ["node-1", "node-2"]
    # Stable ids: the same service finds the same uuids again.
    assert drv.get_nodenames_by_uuid(refresh=True) == by_uuid
    res = drv.get_available_resource("node-1")
    assert (res["vcpus"], res["memory_mb"], res["local_gb"]) == \
        (16, 65536, 100)
    assert res["hypervisor_type"] == "kubevirt"
    assert res["hypervisor_hostname"] == "node-1"
    assert res["hypervisor_version"] == 1034000      # kubelet v1.34.0
    assert res["uuid"] in by_uuid
    with pytest.raises(exception.ComputeHostNotFound):
        drv.get_available_resource("node-3")


def test_cordoned_node_is_not_reported(sim, drv):
    from keel.kubesim import kubevirt as kv
    sim.store.mutate(kv.NODE, "", "node-2",
                     lambda n: (n["spec"].__setitem__("unschedulable", True),
                                n)[1])
    assert drv.get_available_nodes(refresh=True) == ["node-1"]


def test_vcpu_node_inventory_and_traits(drv):
    data = _tree(drv, "node-1")
    inv = data.inventory
    assert set(inv) == {orc.VCPU, orc.MEMORY_MB, orc.DISK_GB}
    assert inv[orc.VCPU]["total"] == 16 and inv[orc.VCPU]["reserved"] == 0
    assert inv[orc.VCPU]["allocation_ratio"] == 4.0   # initial ratio
    assert inv[orc.MEMORY_MB]["total"] == 65536
    assert "CUSTOM_KUBEVIRT_CPU_MODEL_SKYLAKE_CLIENT_IBRS" in data.traits
    assert "HW_CPU_X86_AVX2" in data.traits
    assert "HW_CPU_X86_AESNI" not in data.traits


def test_cpu_manager_node_reports_pcpus(drv):
    data = _tree(drv, "node-2")
    assert orc.VCPU not in data.inventory
    assert data.inventory[orc.PCPU]["total"] == 8
    assert data.inventory[orc.PCPU]["allocation_ratio"] == 1.0
    assert "CUSTOM_KUBEVIRT_CPU_FEATURE_AES" in data.traits


def test_stale_cpu_traits_are_dropped_and_others_kept(drv):
    tree = ProviderTree()
    tree.new_root("node-1", "u1")
    tree.update_traits("node-1", {"CUSTOM_KUBEVIRT_CPU_MODEL_OLD",
                                  "HW_CPU_X86_SSE", "CUSTOM_OPERATOR"})
    drv.update_provider_tree(tree, "node-1")
    traits = tree.data("node-1").traits
    assert "CUSTOM_KUBEVIRT_CPU_MODEL_OLD" not in traits
    assert "HW_CPU_X86_SSE" not in traits
    assert "CUSTOM_OPERATOR" in traits


def test_reserved_tracks_other_pods_and_launcher_overhead(conf, sim, drv,
                                                          running):
    sim.add_pod("db", "node-1", cpu="1500m", memory="3Gi")
    sim.add_pod("elsewhere", "node-2", cpu="1", memory="1Gi")
    inst = make_instance(vcpus=2, memory_mb=2048)
    drv.spawn(Ctx(), inst, image(), [], None, {})
    drv.get_available_nodes(refresh=True)
    inv = _tree(drv, "node-1").inventory
    # the plain pod in full (1.5 cpu -> 2), plus the launcher's 200 MiB
    # beyond the guest's own 2048 MiB (which Placement allocates), on top
    # of [DEFAULT]/reserved_host_memory_mb.
    assert inv[orc.VCPU]["reserved"] == 2
    assert inv[orc.MEMORY_MB]["reserved"] == \
        conf.reserved_host_memory_mb + 3 * 1024 + 200
    res = drv.get_available_resource("node-1")
    assert (res["vcpus_used"], res["memory_mb_used"]) == (2, 2048)
    assert res["local_gb_used"] == 10


def test_cluster_wide_provider_option(conf, sim, drv):
    conf.set_override("cluster_provider", True, group="kubevirt")
    assert drv.get_available_nodes(refresh=True) == ["kubevirt-cluster"]
    res = drv.get_available_resource("kubevirt-cluster")
    assert (res["vcpus"], res["memory_mb"]) == (24, 96 * 1024)
    inv = _tree(drv, "kubevirt-cluster").inventory
    assert inv[orc.VCPU]["total"] == 24
    assert inv[orc.VCPU]["max_unit"] == 16           # the biggest node
    assert orc.PCPU not in inv


def test_host_uptime_comes_from_node_readiness(drv):
    assert " up 0 days" in drv.get_host_uptime()



def test_api_outage_keeps_the_last_known_nodes(sim, drv):
    assert drv.get_available_nodes(refresh=True) == ["node-1", "node-2"]
    sim.fail_requests("list", "nodes", status=503, count=None)
    assert drv.get_available_nodes(refresh=True) == ["node-1", "node-2"]
    sim.clear_faults()

