"""Network operations on the compute host outside build and interface
attach: injectNetworkInfo and the deprecated multinic addFixedIp /
removeFixedIp (Nova's compute manager semantics)."""
from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def _inject(mgr, instance, network_info):
    LOG.debug("Inject network info into %s", instance.uuid)
    mgr.driver.inject_network_info(instance, network_info)


def inject_network_info(mgr, context, instance):
    """Give the driver the instance's current network information."""
    network_info = mgr.network_api.get_instance_nw_info(context, instance)
    _inject(mgr, instance, network_info)
