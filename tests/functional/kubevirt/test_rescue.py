"""rescue boots a rescue disk first with the root disk second; unrescue
restores the template exactly."""
import pytest

from keel import exception
from keel.virt import power_state

from .conftest import NS, Ctx, image, make_instance


@pytest.fixture
def guest(sim, drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    return inst


def _template(sim, inst):
    return sim.get("VirtualMachine", NS, inst.uuid)["spec"]


def test_rescue_and_unrescue(sim, drv, guest):
    before = _template(sim, guest)
    rescue_image = image({"hw_rescue_bus": "scsi"})
    drv.rescue(Ctx(), guest, None, rescue_image, "pw", None)
    assert drv.get_info(guest).state == power_state.RUNNING
    vmi = sim.get("VirtualMachineInstance", NS, guest.uuid)
    disks = vmi["spec"]["domain"]["devices"]["disks"]
    assert disks[0] == {"name": "rescue", "disk": {"bus": "scsi"},
                        "bootOrder": 1}
    assert [d.get("bootOrder") for d in disks if d["name"] == "root"] == [2]
    vols = {v["name"]: v for v in vmi["spec"]["volumes"]}
    assert vols["rescue"] == {"name": "rescue", "dataVolume": {
        "name": guest.uuid + "-rescue"}}
    assert "root" in vols               # the original root, second
    dv = sim.get("DataVolume", NS, guest.uuid + "-rescue")
    assert dv["spec"]["source"]["pvc"]["name"] == \
        "keel-image-" + rescue_image.id     # the rescue image, imported once
    with pytest.raises(exception.InstanceNotRescuable):
        drv.rescue(Ctx(), guest, None, rescue_image, "pw", None)

    drv.unrescue(Ctx(), guest)
    assert drv.get_info(guest).state == power_state.RUNNING
    after = _template(sim, guest)
    assert after["template"] == before["template"]
    assert after["dataVolumeTemplates"] == before["dataVolumeTemplates"]
    assert "keel.openstack.org/unrescue" not in sim.get(
        "VirtualMachine", NS, guest.uuid)["metadata"].get("annotations", {})
    sim.run_until(lambda: sim.get("DataVolume", NS,
                                  guest.uuid + "-rescue") is None)
    drv.unrescue(Ctx(), guest)          # not in rescue: nothing to do


def test_rescue_as_cdrom(sim, drv, guest):
    drv.rescue(Ctx(), guest, None, image({"hw_rescue_device": "cdrom"}),
               None, None)
    disks = sim.get("VirtualMachineInstance", NS, guest.uuid)[
        "spec"]["domain"]["devices"]["disks"]
    assert disks[0] == {"name": "rescue", "cdrom": {"bus": "sata"},
                        "bootOrder": 1}


def test_failed_rescue_boot_restores_the_guest(sim, drv, guest):
    before = _template(sim, guest)
    sim.fail_datavolume(guest.uuid + "-rescue", message="clone failed")
    with pytest.raises(exception.InstanceRescueFailure):
        drv.rescue(Ctx(), guest, None, image(), None, None)
    assert _template(sim, guest)["template"] == before["template"]
    assert drv.guests.wait(
        lambda: drv.get_info(guest).state == power_state.RUNNING, 20)


def test_unsupported_rescue_bus_is_refused_untouched(sim, drv, guest):
    with pytest.raises(exception.InstanceNotRescuable):
        drv.rescue(Ctx(), guest, None, image({"hw_rescue_bus": "ide"}),
                   None, None)
    assert drv.get_info(guest).state == power_state.RUNNING
