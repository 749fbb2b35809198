"""The driver contract: capability traits, inventory rules, driver loading."""
import os_traits
import pytest
from oslo_config import cfg

from keel import exception
from keel.conf import base as base_conf
from keel.conf import fake_driver as fake_conf
from keel.virt import driver
from keel.virt import fake


@pytest.fixture
def conf():
    c = cfg.ConfigOpts()
    base_conf.register_opts(c)
    fake_conf.register_opts(c)
    c([], default_config_files=[])
    return c


def test_every_capability_trait_is_a_standard_trait():
    for cap, trait in driver.CAPABILITY_TRAITS_MAP.items():
        assert cap in driver.ComputeDriver.capabilities
        assert os_traits.is_custom(trait) is False
        assert trait in os_traits.get_traits("COMPUTE_")


def test_capabilities_as_traits_follow_the_flags():
    traits = fake.FakeDriver.capabilities_as_traits(
        fake.FakeDriver.__new__(fake.FakeDriver))
    assert traits[os_traits.COMPUTE_NET_ATTACH_INTERFACE] is True
    assert traits[os_traits.COMPUTE_IMAGE_TYPE_RAW] is True
    assert traits[os_traits.COMPUTE_RESCUE_BFV] is False
    base = driver.ComputeDriver().capabilities_as_traits()
    assert not any(base.values())


def test_base_driver_operations_are_not_implemented():
    base = driver.ComputeDriver()
    with pytest.raises(NotImplementedError):
        base.spawn(None, None, None, [], None, {})
    with pytest.raises(NotImplementedError):
        base.get_available_resource("n")


def test_allocation_ratio_rule(conf):
    current = {"MEMORY_MB": {"allocation_ratio": 3.0}}
    ratios = driver.allocation_ratios(conf, current)
    # Nothing configured: initial_* for new inventory, Placement's for known.
    assert ratios == {"VCPU": 4.0, "MEMORY_MB": 3.0, "DISK_GB": 1.0}
    conf.set_override("ram_allocation_ratio", 1.25)
    conf.set_override("initial_cpu_allocation_ratio", 8.0)
    ratios = driver.allocation_ratios(conf, current)
    assert ratios == {"VCPU": 8.0, "MEMORY_MB": 1.25, "DISK_GB": 1.0}


def test_reserved_amounts_and_disk_rounding(conf):
    conf.set_override("reserved_host_disk_mb", 1025)
    conf.set_override("reserved_host_cpus", 2)
    inv = driver.standard_inventory(
        conf, {"VCPU": 8, "MEMORY_MB": 256, "DISK_GB": 10}, {})
    assert inv["DISK_GB"]["reserved"] == 2          # 1025 MiB -> 2 GiB
    assert inv["VCPU"]["reserved"] == 2
    # Default reserved memory (512) above the total is capped at the total.
    assert inv["MEMORY_MB"]["reserved"] == 256
    assert inv["VCPU"]["max_unit"] == 8
    assert driver.mb_to_ceil_gb(0) == 0
    assert driver.mb_to_ceil_gb(1024) == 1
    empty = driver.standard_inventory(conf, {"VCPU": 0, "DISK_GB": 5}, {})
    assert list(empty) == ["DISK_GB"]


@pytest.mark.parametrize("name", ["fake.FakeDriver",
                                  "nova.virt.fake.FakeDriver",
                                  "keel.virt.fake.FakeDriver"])
def test_load_compute_driver_maps_nova_names(conf, name):
    drv = driver.load_compute_driver(name, host="h1", conf=conf, vcpus=3)
    assert isinstance(drv, fake.FakeDriver)
    assert drv.host == "h1" and drv.vcpus == 3


def test_load_compute_driver_defaults_to_config(conf):
    drv = driver.load_compute_driver(host="h2", conf=conf)
    assert isinstance(drv, fake.FakeDriver)


def test_load_compute_driver_rejects_unknown(conf):
    with pytest.raises(exception.ConfigInvalid) as err:
        driver.load_compute_driver("libvirt.LibvirtDriver", host="h",
                                   conf=conf)
    assert "libvirt.LibvirtDriver" in str(err.value)
    assert "fake.FakeDriver" in str(err.value)


def test_event_listener_errors_do_not_escape():
    drv = driver.ComputeDriver()

    def broken(event):
        raise RuntimeError("listener bug")
    drv.register_event_listener(broken)
    drv.emit_event(object())   # logged, not raised
