"""Console output from the launcher pod, console endpoints for the proxy,
and loading the driver by its [DEFAULT]/compute_driver name."""
import pytest

from keel import exception
from keel.virt import driver as virt_driver
from keel.virt.kubevirt import driver as kv_driver

from .conftest import NS, Ctx, image, make_instance


@pytest.fixture
def guest(drv, running):
    inst = make_instance()
    drv.spawn(Ctx(), inst, image(), [], None, {})
    return inst


def test_console_output_is_the_guest_console_log(sim, drv, guest):
    sim.append_console(NS, guest.uuid, "first-boot-marker\n")
    assert drv.get_console_output(None, guest).endswith("first-boot-marker\n")
    drv.reboot(None, guest, None, "HARD")        # a new pod, a new log
    sim.append_console(NS, guest.uuid, "second-boot-marker\n")
    out = drv.get_console_output(None, guest)
    assert "second-boot-marker" in out and "first-boot-marker" not in out


def test_console_of_a_stopped_guest_is_not_ready(drv, guest):
    drv.power_off(guest)
    with pytest.raises(exception.InstanceNotReady):
        drv.get_console_output(None, guest)
    with pytest.raises(exception.InstanceNotReady):
        drv.get_vnc_console(None, guest)
    with pytest.raises(exception.InstanceNotFound):
        drv.get_serial_console(None, make_instance())


def test_console_endpoints_point_at_the_virt_api_websockets(sim, drv,
                                                            guest):
    vnc = drv.get_vnc_console(None, guest)
    assert "http://%s:%s" % (vnc.host, vnc.port) == sim.url
    assert vnc.internal_access_path == (
        "/apis/subresources.kubevirt.io/v1/namespaces/default/"
        "virtualmachineinstances/%s/vnc" % guest.uuid)
    serial = drv.get_serial_console(None, guest)
    assert serial.internal_access_path.endswith("/%s/console" % guest.uuid)


def test_loaded_by_compute_driver_name(conf):
    drv = virt_driver.load_compute_driver("kubevirt.KubeVirtDriver",
                                          host="c1", conf=conf)
    assert isinstance(drv, kv_driver.KubeVirtDriver)
    traits = drv.capabilities_as_traits()
    assert traits["COMPUTE_SECURITY_UEFI_SECURE_BOOT"] is True
    assert traits["COMPUTE_IMAGE_TYPE_QCOW2"] is True
    drv.cleanup_host("c1")      # nothing was connected: nothing to close


def test_unreachable_cluster_is_hypervisor_unavailable(conf, sim):
    conf.set_override("api_retries", 0, group="kubevirt")
    sim.fail_requests("list", "virtualmachines", status=503, count=None)
    drv = kv_driver.KubeVirtDriver(host="c1", conf=conf)
    try:
        with pytest.raises(exception.HypervisorUnavailable):
            drv.init_host("c1")
        sim.clear_faults()
        drv.init_host("c1")               # the next attempt connects
        assert drv.list_instance_uuids() == []
    finally:
        drv.cleanup_host("c1")
