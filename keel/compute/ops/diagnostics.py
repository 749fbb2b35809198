"""Diagnostics of a guest on the compute host (Nova's get_diagnostics and
get_instance_diagnostics): only a running guest is asked; the driver's
free-form dict (before 2.48) or its Diagnostics object (from 2.48)."""
from oslo_log import log as logging

from keel.compute.ops import power
from keel import exception
from keel.virt import power_state

LOG = logging.getLogger(__name__)


def _running(mgr, instance):
    current = power.get_power_state(mgr, instance)
    if current != power_state.RUNNING:
        raise exception.InstanceInvalidState(
            attr="power state", instance_uuid=instance.uuid,
            state=power_state.STATE_MAP.get(current, current),
            method="get_diagnostics")
    LOG.info("Retrieving diagnostics of %s", instance.uuid)


def get_diagnostics(mgr, context, instance):
    _running(mgr, instance)
    return mgr.driver.get_diagnostics(instance)


def get_instance_diagnostics(mgr, context, instance):
    _running(mgr, instance)
    return mgr.driver.get_instance_diagnostics(instance)
