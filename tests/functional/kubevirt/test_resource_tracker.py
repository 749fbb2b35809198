"""The resource tracker driving the KubeVirt driver: one compute node record
and one resource provider in the real (embedded) Placement per Kubernetes
node, refreshed by the periodic update."""
import uuid

import pytest

from keel import context as keel_context
from keel import objects
from keel.clients import report
from keel.compute.resources import tracker
from keel.conf import CONF
from keel.db import session
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.kubesim import KubeSim
from keel.virt.kubevirt import driver as kv_driver
from tests.fixtures.placement import shared_placement

objects.register_all()


@pytest.fixture
def ctx(tmp_path):
    CONF.set_override("connection", f"sqlite:///{tmp_path}/api.sqlite",
                      group="api_database")
    CONF.set_override("connection", f"sqlite:///{tmp_path}/cell.sqlite",
                      group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine())
    yield keel_context.get_admin_context()
    session.reset()
    for group in ("api_database", "database"):
        CONF.clear_override("connection", group=group)


def test_tracker_reports_each_kubernetes_node_to_placement(ctx, conf):
    tag = uuid.uuid4().hex[:6]
    plain, pinned = "kv-%s-a" % tag, "kv-%s-b" % tag
    with KubeSim() as sim:
        sim.add_node(plain, cpu="32", memory="128Gi")
        sim.add_node(pinned, cpu="16", memory="64Gi", cpu_manager=True)
        conf.set_override("kubeconfig", sim.kubeconfig_path,
                          group="kubevirt")
        host = "kv-compute-%s" % tag
        drv = kv_driver.KubeVirtDriver(host=host, conf=conf)
        drv.init_host(host)
        try:
            client = report.ReportClient.for_endpoint(
                shared_placement().endpoint, conf=CONF)
            rt = tracker.ResourceTracker(host, drv, client)
            rt.update_available_resource(ctx, startup=True)

            providers = {rp["name"]: rp for rp in
                         client.placement.list_providers(ctx)}
            assert {plain, pinned} <= set(providers)
            for name in (plain, pinned):
                cn = objects.ComputeNode.get_by_nodename(ctx, name)
                assert cn.uuid == providers[name]["uuid"]
                assert cn.host == host and cn.hypervisor_type == "kubevirt"
            inv, _gen = client.placement.get_inventories(
                ctx, providers[plain]["uuid"])
            assert inv["VCPU"]["total"] == 32
            assert inv["MEMORY_MB"]["total"] == 128 * 1024
            inv, _gen = client.placement.get_inventories(
                ctx, providers[pinned]["uuid"])
            assert "VCPU" not in inv and inv["PCPU"]["total"] == 16
            traits, _gen = client.placement.get_traits(
                ctx, providers[plain]["uuid"])
            assert "HW_CPU_X86_AVX2" in traits
            assert "CUSTOM_KUBEVIRT_CPU_MODEL_SKYLAKE_CLIENT_IBRS" in traits
            assert "COMPUTE_SECURITY_UEFI_SECURE_BOOT" in traits

            # The next periodic run picks up load Placement cannot see.
            sim.add_pod("batch", plain, cpu="3", memory="6Gi")
            rt.update_available_resource(ctx)
            inv, _gen = client.placement.get_inventories(
                ctx, providers[plain]["uuid"])
            assert inv["VCPU"]["reserved"] == 3
            assert inv["MEMORY_MB"]["reserved"] == \
                CONF.reserved_host_memory_mb + 6 * 1024
        finally:
            drv.cleanup_host(host)
