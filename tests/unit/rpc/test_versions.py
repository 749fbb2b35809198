"""Version caps: release aliases, explicit pins and ``auto``."""
import pytest

from keel.conf import CONF
from keel import exception
from keel.rpc import versions


@pytest.fixture(autouse=True)
def _clean():
    versions.reset_cache()
    yield
    versions.reset_cache()
    for group in ("compute", "conductor", "scheduler"):
        CONF.clear_override(group, group="upgrade_levels")


def test_service_version_maps_to_compute_6_5():
    assert versions.compute_rpc_for_service_version(
        versions.SERVICE_VERSION) == versions.COMPUTE_TARGET == "6.5"
    # Gazpacho, the oldest release Nova 34 runs with, speaks 6.5 too;
    # Flamingo (70) speaks 6.4 and Antelope (66) 6.2.
    assert versions.compute_rpc_for_service_version(72) == "6.5"
    assert versions.compute_rpc_for_service_version(70) == "6.4"
    assert versions.compute_rpc_for_service_version(66) == "6.2"
    assert versions.compute_rpc_for_service_version(30) == "5.0"


def test_service_newer_than_us_is_refused():
    with pytest.raises(exception.ServiceTooOld):
        versions.compute_rpc_for_service_version(versions.SERVICE_VERSION + 1)


def test_explicit_pin_and_release_name():
    CONF.set_override("compute", "6.3", group="upgrade_levels")
    assert versions.compute_cap() == "6.3"
    CONF.set_override("compute", "epoxy", group="upgrade_levels")
    assert versions.compute_cap() == "6.4"
    CONF.set_override("conductor", "liberty", group="upgrade_levels")
    assert versions.conductor_cap() == "3.0"
    CONF.set_override("scheduler", "pike", group="upgrade_levels")
    assert versions.scheduler_cap() == "4.4"
    CONF.set_override("scheduler", "4.5", group="upgrade_levels")
    assert versions.scheduler_cap() == "4.5"


def test_no_pin_means_no_cap_for_conductor_and_scheduler():
    assert versions.conductor_cap() is None
    assert versions.scheduler_cap() is None


def test_auto_uses_minimum_service_version_and_caches_it():
    CONF.set_override("compute", "auto", group="upgrade_levels")
    assert versions.compute_cap(minimum_service_version=70) == "6.4"
    # Cached: a later, newer minimum does not change the cap until reset.
    assert versions.compute_cap(minimum_service_version=74) == "6.4"
    versions.reset_cache()
    assert versions.compute_cap(minimum_service_version=74) == "6.5"


def test_auto_without_computes_is_current_and_not_cached():
    CONF.set_override("compute", "auto", group="upgrade_levels")
    assert versions.compute_cap(minimum_service_version=0) == "6.5"
    assert versions.compute_cap(minimum_service_version=66) == "6.2"


def test_unset_compute_level_means_no_cap():
    assert versions.compute_cap() is None
