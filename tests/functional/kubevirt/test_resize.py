"""Resize within the cluster: new CPU/memory from the flavor, the root
DataVolume's PVC grown, a move to the destination node; revert restores the
old domain and pinning (the grown disk stays grown)."""
import pytest

from keel import exception
from keel.objects import flavor as flavor_obj
from keel.objects import migration as migration_obj
from keel.virt import power_state

from .conftest import NS, Ctx, image, make_instance


@pytest.fixture
def guest(sim, drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    return inst


def _flavor(vcpus=4, memory_mb=4096, root_gb=20, **kw):
    return flavor_obj.Flavor(name="m1.big", flavorid="43", vcpus=vcpus,
                             memory_mb=memory_mb, root_gb=root_gb,
                             ephemeral_gb=0, swap=0,
                             extra_specs=kw.pop("extra_specs", {}), **kw)


def _domain(sim, inst):
    return sim.get("VirtualMachineInstance", NS, inst.uuid)["spec"]["domain"]


def _resize(drv, guest, new, dest_node="node-2"):
    old = guest.flavor
    drv.migrate_disk_and_power_off(Ctx(), guest, "compute-1", new, None)
    assert drv.get_info(guest).state == power_state.SHUTDOWN
    guest.old_flavor, guest.flavor = old, new
    migration = migration_obj.Migration(dest_node=dest_node,
                                        source_node=guest.node)
    drv.finish_migration(Ctx(), migration, guest, "{}", None, image(), True,
                         {})
    return migration


def test_resize_confirm(sim, drv, guest):
    _resize(drv, guest, _flavor())
    assert drv.get_info(guest).state == power_state.RUNNING
    domain = _domain(sim, guest)
    assert domain["cpu"]["sockets"] == 4
    assert domain["memory"]["guest"] == "4096Mi"
    vmi = sim.get("VirtualMachineInstance", NS, guest.uuid)
    assert vmi["status"]["nodeName"] == "node-2"
    pvc = sim.get("PersistentVolumeClaim", NS, guest.uuid + "-root")
    assert pvc["status"]["capacity"] == {"storage": "20Gi"}
    drv.confirm_migration(Ctx(), None, guest, None)
    vm = sim.get("VirtualMachine", NS, guest.uuid)
    assert "keel.openstack.org/resize-revert" not in vm["metadata"][
        "annotations"]


def test_resize_revert(sim, drv, guest):
    before = sim.get("VirtualMachine", NS, guest.uuid)["spec"]["template"]
    migration = _resize(drv, guest, _flavor())
    guest.task_state = "resize_reverting"
    drv.destroy(Ctx(), guest, None)      # Nova's destination-side cleanup
    assert sim.get("VirtualMachine", NS, guest.uuid) is not None
    guest.flavor = guest.old_flavor
    drv.finish_revert_migration(Ctx(), guest, None, migration)
    assert drv.get_info(guest).state == power_state.RUNNING
    tmpl = sim.get("VirtualMachine", NS, guest.uuid)["spec"]["template"]
    assert tmpl["spec"]["domain"] == before["spec"]["domain"]
    assert tmpl["spec"]["nodeSelector"] == before["spec"]["nodeSelector"]
    vmi = sim.get("VirtualMachineInstance", NS, guest.uuid)
    assert vmi["status"]["nodeName"] == "node-1"
    pvc = sim.get("PersistentVolumeClaim", NS, guest.uuid + "-root")
    assert pvc["status"]["capacity"] == {"storage": "20Gi"}   # no shrink


def test_resize_down_the_disk_is_refused_while_running(sim, drv, guest):
    with pytest.raises(exception.ResizeError):
        drv.migrate_disk_and_power_off(Ctx(), guest, "compute-1",
                                       _flavor(root_gb=5), None)
    assert drv.get_info(guest).state == power_state.RUNNING


def test_unexpressible_flavor_is_refused_before_the_stop(sim, drv, guest):
    bad = _flavor(extra_specs={"hw:cpu_policy": "mixed"})
    with pytest.raises(exception.Invalid):
        drv.migrate_disk_and_power_off(Ctx(), guest, "compute-1", bad, None)
    assert drv.get_info(guest).state == power_state.RUNNING
