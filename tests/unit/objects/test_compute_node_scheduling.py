"""ComputeNodeList.get_scheduling_details: the scheduler's light read of
node rows gives the values a ComputeNode object of the same row holds."""
import sqlalchemy as sa

from keel.conf import CONF
from keel.db.cell import models
from keel.db import session
from keel import objects


def _node(ctx, host, **kw):
    values = dict(host=host, hypervisor_hostname=host + "-node", vcpus=8,
                  memory_mb=16384, local_gb=100, vcpus_used=2,
                  memory_mb_used=2048, local_gb_used=10,
                  hypervisor_type="kvm", hypervisor_version=3002000,
                  cpu_info='{"arch": "x86_64"}')
    values.update(kw)
    node = objects.ComputeNode(ctx, **values)
    node.create()
    return node


def test_details_match_the_object(admin_ctx):
    specs = [objects.HVSpec(arch="x86_64", hv_type="kvm", vm_mode="hvm"),
             objects.HVSpec(arch="i686", hv_type="qemu", vm_mode="hvm")]
    full = _node(admin_ctx, "h1", supported_hv_specs=specs,
                 stats={"num_instances": "3", "io_workload": "1"},
                 cpu_allocation_ratio=8.0, ram_allocation_ratio=1.5,
                 disk_allocation_ratio=2.0)
    bare = _node(admin_ctx, "h2")
    gone = _node(admin_ctx, "h3")
    gone.destroy()
    # Stats written by something else than the object: numbers in JSON.
    with session.cell_writer(admin_ctx) as s:
        s.execute(sa.update(models.ComputeNode).where(
            models.ComputeNode.id == bare.id).values(
            stats='{"failed_builds": 2, "x": null}',
            cpu_allocation_ratio=None, ram_allocation_ratio=0.0))
    found = objects.ComputeNodeList.get_scheduling_details(
        admin_ctx, [full.uuid, bare.uuid, gone.uuid, "missing"])
    assert set(found) == {full.uuid, bare.uuid}
    for node in objects.ComputeNodeList.get_all_by_uuids(
            admin_ctx, [full.uuid, bare.uuid]):
        got = found[node.uuid]
        for name in ("uuid", "host", "hypervisor_hostname", "memory_mb",
                     "memory_mb_used", "local_gb", "local_gb_used", "vcpus",
                     "vcpus_used", "cpu_allocation_ratio",
                     "ram_allocation_ratio", "disk_allocation_ratio",
                     "hypervisor_type", "hypervisor_version", "cpu_info",
                     "stats"):
            assert got[name] == getattr(node, name), name
        assert got["supported_hv_specs"] == [
            (s.arch, s.hv_type, s.vm_mode) for s in node.supported_hv_specs]
    assert found[full.uuid]["supported_hv_specs"] == [
        ("x86_64", "kvm", "hvm"), ("i686", "qemu", "hvm")]
    assert found[bare.uuid]["stats"] == {"failed_builds": "2", "x": None}
    # Unset ratios: the configured or initial ones, as the object's.
    assert found[bare.uuid]["cpu_allocation_ratio"] == \
        CONF.initial_cpu_allocation_ratio
    assert found[bare.uuid]["ram_allocation_ratio"] == \
        CONF.initial_ram_allocation_ratio
