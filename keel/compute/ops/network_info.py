"""Network operations on the compute host outside build and interface
attach: injectNetworkInfo and the deprecated multinic addFixedIp /
removeFixedIp (Nova's compute manager semantics)."""
from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute.ops import notify

LOG = logging.getLogger(__name__)


def _inject(mgr, instance, network_info):
    LOG.debug("Inject network info into %s", instance.uuid)
    mgr.driver.inject_network_info(instance, network_info)


def inject_network_info(mgr, context, instance):
    """Give the driver the instance's current network information."""
    network_info = mgr.network_api.get_instance_nw_info(context, instance)
    _inject(mgr, instance, network_info)


def _touch(instance):
    # Only updated_at moves (Nova's bump after a multinic change).
    instance.updated_at = timeutils.utcnow()
    instance.save()


def add_fixed_ip_to_instance(mgr, context, network_id, instance):
    notify.usage(context, instance, "create_ip.start", mgr.host)
    network_info = mgr.network_api.add_fixed_ip_to_instance(
        context, instance, network_id)
    _inject(mgr, instance, network_info)
    _touch(instance)
    notify.usage(context, instance, "create_ip.end", mgr.host,
                 network_info=network_info)


def remove_fixed_ip_from_instance(mgr, context, address, instance):
    notify.usage(context, instance, "delete_ip.start", mgr.host)
    network_info = mgr.network_api.remove_fixed_ip_from_instance(
        context, instance, address)
    _inject(mgr, instance, network_info)
    _touch(instance)
    notify.usage(context, instance, "delete_ip.end", mgr.host,
                 network_info=network_info)
