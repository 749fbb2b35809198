"""The legacy os-hosts actions on the compute host: enable/disable (the
COMPUTE_STATUS_DISABLED trait of this host's providers, and the driver when
it has such a switch), maintenance mode and host power actions (driver
only; a driver without them raises NotImplementedError, which the API
answers as "not supported")."""
from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def set_host_enabled(mgr, context, enabled):
    """Nova's contract: answer "enabled" or "disabled" even when the driver
    has no switch of its own (most have none)."""
    if mgr.rt is not None:
        try:
            mgr.rt.update_compute_provider_status(context, not enabled)
        except Exception:  # noqa: BLE001 - the periodic update retries
            LOG.warning("Could not update the COMPUTE_STATUS_DISABLED "
                        "trait of host %s now; the next resource update "
                        "will", mgr.host, exc_info=True)
    try:
        return mgr.driver.set_host_enabled(enabled)
    except NotImplementedError:
        return "enabled" if enabled else "disabled"


def host_maintenance_mode(mgr, context, host, mode):
    return mgr.driver.host_maintenance_mode(host, mode)


def host_power_action(mgr, context, action):
    return mgr.driver.host_power_action(action)
