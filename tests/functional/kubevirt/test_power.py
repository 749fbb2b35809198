"""Power operations through virt-api subresources, their power states and
the lifecycle events the watches turn them into."""
import pytest

from keel import exception
from keel.virt import event as virtevent
from keel.virt import power_state
from keel.virt.kubevirt import kube

from .conftest import NS, Ctx, image, make_instance

E = virtevent


@pytest.fixture
def guest(sim, drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    del drv.events[:]
    return inst


def _vmi_uid(sim, inst):
    return sim.get("VirtualMachineInstance", NS, inst.uuid)["metadata"]["uid"]


def _transitions(drv):
    return [e.transition for e in drv.events]


def test_power_off_and_on(sim, drv, guest):
    drv.power_off(guest, timeout=30)
    assert drv.get_info(guest).state == power_state.SHUTDOWN
    assert sim.get("VirtualMachineInstance", NS, guest.uuid) is None
    assert sim.get("VirtualMachine", NS, guest.uuid)["status"][
        "printableStatus"] == "Stopped"
    drv.power_on(None, guest, None)
    assert drv.get_info(guest).state == power_state.RUNNING
    assert _transitions(drv) == [E.EVENT_LIFECYCLE_STOPPED,
                                 E.EVENT_LIFECYCLE_STARTED]
    drv.power_on(None, guest, None)       # already running: nothing to do


def test_hard_reboot_makes_a_new_vmi(sim, drv, guest):
    before = _vmi_uid(sim, guest)
    drv.reboot(None, guest, None, "HARD")
    assert _vmi_uid(sim, guest) != before
    assert drv.get_info(guest).state == power_state.RUNNING


def test_soft_reboot_is_done_in_place(sim, drv, guest):
    before = _vmi_uid(sim, guest)
    drv.reboot(None, guest, None, "SOFT")
    assert _vmi_uid(sim, guest) == before
    assert (NS, guest.uuid, "soft") in sim.reboots


def test_refused_soft_reboot_falls_back_to_hard(sim, drv, guest):
    before = _vmi_uid(sim, guest)
    fault = sim.fail_requests("PUT", "softreboot", status=409)
    drv.reboot(None, guest, None, "SOFT")
    assert fault.hits == 1
    assert _vmi_uid(sim, guest) != before
    assert drv.get_info(guest).state == power_state.RUNNING


def test_pause_unpause_suspend_resume(sim, drv, guest):
    drv.pause(guest)
    assert drv.get_info(guest).state == power_state.PAUSED
    drv.unpause(guest)
    assert drv.get_info(guest).state == power_state.RUNNING
    drv.suspend(Ctx(), guest)
    assert drv.get_info(guest).state == power_state.SUSPENDED
    drv.resume(Ctx(), guest, None)
    assert drv.get_info(guest).state == power_state.RUNNING
    assert _transitions(drv) == [
        E.EVENT_LIFECYCLE_PAUSED, E.EVENT_LIFECYCLE_RESUMED,
        E.EVENT_LIFECYCLE_SUSPENDED, E.EVENT_LIFECYCLE_RESUMED]


def test_guest_shutdown_behind_our_back_is_an_event(sim, drv, guest):
    sim.guest_shutdown(NS, guest.uuid)
    assert drv.guests.wait(lambda: drv.get_info(guest).state ==
                           power_state.SHUTDOWN, 10)
    assert _transitions(drv) == [E.EVENT_LIFECYCLE_STOPPED]


def test_crashed_guest(sim, drv, guest):
    sim.crash_vmi(NS, guest.uuid)
    assert drv.guests.wait(lambda: drv.get_info(guest).state ==
                           power_state.CRASHED, 10)
    assert _transitions(drv) == [E.EVENT_LIFECYCLE_STOPPED]


def test_vm_deleted_behind_our_back(sim, drv, guest):
    drv.kube.delete(kube.VM, guest.uuid)
    assert drv.guests.wait(lambda: guest.uuid not in
                           drv.list_instance_uuids(), 10)
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(guest)
    assert _transitions(drv) == [E.EVENT_LIFECYCLE_STOPPED]


def test_operations_on_a_missing_guest_raise_not_found(drv, running):
    ghost = make_instance()
    with pytest.raises(exception.InstanceNotFound):
        drv.pause(ghost)
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(ghost)


def test_crashed_guest_powers_on_and_hard_reboots(sim, drv, guest):
    sim.crash_vmi(NS, guest.uuid)
    assert drv.guests.wait(lambda: drv.get_info(guest).state ==
                           power_state.CRASHED, 10)
    drv.power_on(None, guest, None)
    assert drv.get_info(guest).state == power_state.RUNNING
    sim.guest_shutdown(NS, guest.uuid)
    assert drv.guests.wait(lambda: drv.get_info(guest).state ==
                           power_state.SHUTDOWN, 10)
    drv.reboot(None, guest, None, "HARD")
    assert drv.get_info(guest).state == power_state.RUNNING


def test_no_event_lost_across_a_watch_disconnect(sim, drv, guest):
    sim.disconnect_watches(abrupt=True)
    drv.power_off(guest)
    sim.disconnect_watches()
    drv.power_on(None, guest, None)
    assert _transitions(drv) == [E.EVENT_LIFECYCLE_STOPPED,
                                 E.EVENT_LIFECYCLE_STARTED]


def test_restarted_service_knows_its_guests_without_events(conf, sim, drv,
                                                           guest):
    from keel.virt.kubevirt import driver as kv_driver
    again = kv_driver.KubeVirtDriver(host="compute-1", conf=conf)
    seen = []
    again.register_event_listener(seen.append)
    again.init_host("compute-1")
    try:
        assert again.list_instance_uuids() == [guest.uuid]
        assert again.get_info(guest).state == power_state.RUNNING
        drv.pause(guest)
        assert again.guests.wait(lambda: seen, 10)
        assert [e.transition for e in seen] == [E.EVENT_LIFECYCLE_PAUSED]
        # Another compute service's guests are not ours.
        other = kv_driver.KubeVirtDriver(host="compute-2", conf=conf)
        assert other.list_instance_uuids() == []
        other.cleanup_host("compute-2")
    finally:
        again.cleanup_host("compute-1")


def test_pause_of_a_stopped_guest_is_refused_at_once(drv, guest):
    drv.power_off(guest)
    with pytest.raises(exception.InstanceInvalidState):
        drv.pause(guest)
    drv.power_on(None, guest, None)
    drv.pause(guest)
    drv.pause(guest)                  # already paused: nothing to do
    assert drv.get_info(guest).state == power_state.PAUSED
