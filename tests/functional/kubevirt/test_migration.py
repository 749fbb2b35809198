"""Live migration between nodes of the cluster: pre-checks, success (the
guest re-pinned to the destination), failure and abort."""
import threading
import time

import pytest

from keel import exception
from keel.virt import power_state

from .conftest import NS, Ctx, image, make_instance


class Calls(object):
    def __init__(self):
        self.post, self.recover = [], []

    def post_method(self, ctx, instance, dest, block_migration, data):
        self.post.append(dest)

    def recover_method(self, ctx, instance, dest, data):
        self.recover.append(dest)


@pytest.fixture
def guest(drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    return inst


def _checks(drv, guest, dest="node-2"):
    data = drv.check_can_live_migrate_destination(
        None, guest, {}, {"hypervisor_hostname": dest})
    return drv.check_can_live_migrate_source(None, guest, data)


def test_volume_connector_of_a_migration_names_the_destination_node(
        sim, drv, guest):
    node = sim.get("VirtualMachineInstance", NS, guest.uuid)["status"][
        "nodeName"]
    assert node != "node-2"
    assert drv.get_volume_connector(guest)["host"] == node
    dest = drv.get_live_migration_volume_connector(guest, _checks(drv, guest))
    assert (dest["host"], dest["initiator"]) == (
        "node-2", "iqn.2004-10.io.kubevirt:node-2")


def test_live_migration_moves_the_guest_and_repins_it(sim, drv, guest):
    data = _checks(drv, guest)
    calls = Calls()
    drv.live_migration(None, guest, "compute-1", calls.post_method,
                       calls.recover_method, migrate_data=data)
    assert calls.post == ["compute-1"] and calls.recover == []
    vmi = sim.get("VirtualMachineInstance", NS, guest.uuid)
    assert vmi["status"]["nodeName"] == "node-2"
    vm = sim.get("VirtualMachine", NS, guest.uuid)
    assert vm["metadata"]["labels"]["keel.openstack.org/node"] == "node-2"
    assert vm["spec"]["template"]["spec"]["nodeSelector"] == {
        "kubernetes.io/hostname": "node-2"}
    assert drv.get_info(guest).state == power_state.RUNNING
    # Usage follows the guest to its new node.
    drv.get_available_nodes(refresh=True)
    assert drv.get_available_resource("node-2")["vcpus_used"] == 2
    assert drv.get_available_resource("node-1")["vcpus_used"] == 0


def test_precheck_refuses_unmigratable_guest(conf, drv, running):
    conf.set_override("volume_access_modes", ["ReadWriteOnce"],
                      group="kubevirt")
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    with pytest.raises(exception.MigrationPreCheckError) as err:
        _checks(drv, inst)
    assert "DisksNotLiveMigratable" in str(err.value)


def test_precheck_refuses_same_node_and_stopped_guest(drv, guest):
    with pytest.raises(exception.MigrationPreCheckError):
        _checks(drv, guest, dest="node-1")
    drv.power_off(guest)
    with pytest.raises(exception.MigrationPreCheckError):
        _checks(drv, guest)


def test_failed_migration_recovers(sim, drv, guest):
    sim.fail_migration(guest.uuid)
    calls = Calls()
    drv.live_migration(None, guest, "compute-1", calls.post_method,
                       calls.recover_method, migrate_data=_checks(drv, guest))
    assert calls.recover == ["compute-1"] and calls.post == []
    assert sim.get("VirtualMachineInstance", NS, guest.uuid)["status"][
        "nodeName"] == "node-1"


def test_abort_deletes_the_migration(sim, drv, guest):
    sim.stop_controllers()          # step by hand: abort mid-flight
    data = _checks(drv, guest)
    calls = Calls()
    worker = threading.Thread(target=drv.live_migration, args=(
        None, guest, "compute-1", calls.post_method, calls.recover_method),
        kwargs={"migrate_data": data})
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while not sim.list("VirtualMachineInstanceMigration", NS):
            assert time.monotonic() < deadline, "no migration created"
            time.sleep(0.01)
        sim.step()
        sim.step()
        drv.live_migration_abort(guest)
        sim.settle()
    finally:
        worker.join(20)
    assert calls.recover == ["compute-1"] and calls.post == []
    assert sim.get("VirtualMachineInstance", NS, guest.uuid)["status"][
        "nodeName"] == "node-1"
