"""Neutron port attach/detach as KubeVirt interface hotplug (template
LiveUpdate), for running and stopped guests."""
import uuid

import pytest

from keel import exception

from .conftest import NS, Ctx, image, make_instance


@pytest.fixture
def guest(sim, drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    return inst


def _vif(mac="fa:16:3e:12:34:56"):
    return {"id": str(uuid.uuid4()), "address": mac,
            "network": {"id": "net-1"}, "type": "ovs"}


def _template(sim, inst):
    spec = sim.get("VirtualMachine", NS, inst.uuid)["spec"]["template"]["spec"]
    return ({i["name"]: i for i in spec["domain"]["devices"]["interfaces"]},
            {n["name"]: n for n in spec["networks"]})


def _live(sim, inst):
    vmi = sim.get("VirtualMachineInstance", NS, inst.uuid)
    return {i["name"]: i for i in vmi["status"].get("interfaces") or []}


def test_attach_and_detach_on_a_running_guest(sim, drv, guest):
    vif = _vif()
    uid = sim.get("VirtualMachineInstance", NS, guest.uuid)["metadata"]["uid"]
    drv.attach_interface(Ctx(), guest, image(), vif)
    name = "port-" + vif["id"][:8]
    ifaces, nets = _template(sim, guest)
    assert ifaces[name] == {"name": name, "bridge": {}, "model": "virtio",
                            "macAddress": vif["address"]}
    assert nets[name] == {"name": name,
                          "multus": {"networkName": "neutron-net-1"}}
    assert _live(sim, guest)[name]["mac"] == vif["address"]
    vmi = sim.get("VirtualMachineInstance", NS, guest.uuid)
    assert vmi["metadata"]["uid"] == uid           # hotplugged, no restart
    drv.attach_interface(Ctx(), guest, image(), vif)    # retry: no-op

    drv.detach_interface(Ctx(), guest, vif)
    assert name not in _live(sim, guest)
    ifaces, nets = _template(sim, guest)
    assert name not in ifaces and name not in nets
    drv.detach_interface(Ctx(), guest, vif)     # not attached: nothing to do


def test_interface_that_cannot_go_live_is_undone(sim, drv, guest):
    vif = _vif()
    name = "port-" + vif["id"][:8]
    sim.fail_interface_hotplug(name)
    with pytest.raises(exception.InterfaceAttachFailed):
        drv.attach_interface(Ctx(), guest, image(), vif)
    ifaces, nets = _template(sim, guest)
    assert name not in ifaces and name not in nets
    assert name not in _live(sim, guest)
    drv.attach_interface(Ctx(), guest, image(), vif)    # the next try works
    assert _live(sim, guest)[name]["mac"] == vif["address"]


def test_stopped_guest_gets_the_interface_at_next_start(sim, drv, guest):
    drv.power_off(guest, timeout=0)
    vif = _vif()
    drv.attach_interface(Ctx(), guest, image(), vif)
    drv.power_on(None, guest, None)
    assert _live(sim, guest)["port-" + vif["id"][:8]]["mac"] == vif["address"]
    drv.power_off(guest, timeout=0)
    drv.detach_interface(Ctx(), guest, vif)
    assert "port-" + vif["id"][:8] not in _template(sim, guest)[0]
