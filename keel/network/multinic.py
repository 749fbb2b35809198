"""The deprecated multinic operations against Neutron (Nova's
add_fixed_ip_to_instance / remove_fixed_ip_from_instance): a fixed IP more
(from one of the network's subnets) or less on the instance's port on that
network, then the refreshed network info."""
from oslo_log import log as logging

from keel import exception

LOG = logging.getLogger(__name__)


def _owner(instance):
    return f"compute:{instance.availability_zone}"


def add_fixed_ip(api, context, instance, network_id):
    """The first port of the instance on ``network_id`` that takes an
    address from one of the network's subnets gets it."""
    client = api._client(context)
    subnets = client.list_subnets(network_id=network_id)
    if not subnets:
        raise exception.NetworkNotFoundForInstance(instance_id=instance.uuid)
    ports = client.list_ports(device_id=instance.uuid,
                              device_owner=_owner(instance),
                              network_id=network_id)
    for port in ports:
        for subnet in subnets:
            fixed_ips = list(port.get("fixed_ips") or [])
            fixed_ips.append({"subnet_id": subnet["id"]})
            try:
                client.update_port(port["id"],
                                   {"port": {"fixed_ips": fixed_ips}})
            except Exception as exc:  # noqa: BLE001 - try the next one
                LOG.debug("Unable to update port %s on subnet %s: %s",
                          port["id"], subnet["id"], exc)
                continue
            return api.get_instance_nw_info(context, instance)
    raise exception.NetworkNotFoundForInstance(instance_id=instance.uuid)


def remove_fixed_ip(api, context, instance, address):
    """The instance's port holding ``address`` keeps its other addresses."""
    client = api._client(context)
    ports = client.list_ports(device_id=instance.uuid,
                              device_owner=_owner(instance),
                              fixed_ips=f"ip_address={address}")
    for port in ports:
        kept = [ip for ip in port.get("fixed_ips") or []
                if ip.get("ip_address") != address]
        try:
            client.update_port(port["id"], {"port": {"fixed_ips": kept}})
        except Exception as exc:  # noqa: BLE001 - Nova logs and goes on
            LOG.debug("Unable to update port %s: %s", port["id"], exc)
        return api.get_instance_nw_info(context, instance)
    raise exception.FixedIpNotFoundForInstance(instance_uuid=instance.uuid,
                                               ip=address)
