"""What every network API shares: the interface and the info-cache
helpers (Nova's update_instance_cache_with_nw_info)."""
import logging

from keel.network import model

LOG = logging.getLogger(__name__)


def cached_nw_info(instance):
    """The instance's cached NetworkInfo (empty when none is loaded)."""
    try:
        cache = instance.info_cache
    except Exception:  # not loaded / lazy-load impossible: treat as empty
        return model.NetworkInfo()
    info = getattr(cache, "network_info", None) if cache else None
    if not info:
        return model.NetworkInfo()
    if not isinstance(info, model.NetworkInfo):
        info = model.NetworkInfo.hydrate(info)
    return info


def preexisting_port_ids(instance):
    """Ports the user brought (kept, only unbound, on delete)."""
    return {vif["id"] for vif in cached_nw_info(instance)
            if vif.get("preserve_on_delete")}


def update_instance_cache(context, instance, nw_info):
    """Write ``nw_info`` to the instance's info cache (cell database) and
    keep the in-memory instance in step, as Nova does after every network
    change so the API shows addresses without asking Neutron."""
    from keel import objects
    fields = getattr(instance, "fields", {})
    if "info_cache" not in fields:
        return
    cache = objects.InstanceInfoCache(context, instance_uuid=instance.uuid)
    cache.network_info = nw_info
    cache.save()
    instance.info_cache = cache
    instance.obj_reset_changes(["info_cache"])


def record_vifs(context, instance, ports):
    """A VirtualInterface row per new port (uuid, MAC, the request's device
    tag), as Nova keeps them for device tagging and metadata."""
    from keel import objects
    if "info_cache" not in getattr(instance, "fields", {}):
        return
    for port, tag in ports:
        if objects.VirtualInterface.get_by_uuid(context, port["id"]):
            continue
        objects.VirtualInterface(context, uuid=port["id"],
                                 address=port["mac_address"],
                                 instance_uuid=instance.uuid,
                                 tag=tag).create()


def forget_vifs(context, instance, port_id=None):
    """Drop the instance's VirtualInterface rows (one port's, or all)."""
    from keel import objects
    if "info_cache" not in getattr(instance, "fields", {}):
        return
    if port_id is None:
        objects.VirtualInterface.delete_by_instance_uuid(context,
                                                         instance.uuid)
        return
    vif = objects.VirtualInterface.get_by_uuid(context, port_id)
    if vif is not None:
        vif.destroy()


class NetworkAPI(object):
    """The contract (Nova's nova.network.neutron.API, the part keel uses)."""

    def validate_networks(self, context, requested_networks, num_instances):
        raise NotImplementedError()

    def allocate_for_instance(self, context, instance, requested_networks,
                              security_groups=None, bind_host_id=None,
                              resource_provider_mapping=None):
        raise NotImplementedError()

    def deallocate_for_instance(self, context, instance,
                                requested_networks=None):
        raise NotImplementedError()

    def get_instance_nw_info(self, context, instance, **kwargs):
        raise NotImplementedError()

    def validate_security_group_name(self, context, name):
        raise NotImplementedError()

    def add_fixed_ip_to_instance(self, context, instance, network_id):
        """A fixed IP more on ``network_id``; the new network info."""
        raise NotImplementedError()

    def remove_fixed_ip_from_instance(self, context, instance, address):
        """The fixed IP ``address`` off the instance; the new network info."""
        raise NotImplementedError()
