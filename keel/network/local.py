"""LocalNetworkAPI: servers without a network service (the all-in-one).

There are no networks or ports to attach: asking for none ('none', 'auto'
or nothing) boots the server without interfaces, and naming a network or a
port fails the way Nova fails for one Neutron does not know. The only
security group is the implicit 'default'.
"""
from keel import exception
from keel.network import base
from keel.network import model

DEFAULT_SECURITY_GROUP = "default"


def _requests(requested_networks):
    return list(getattr(requested_networks, "objects", None) or
                requested_networks or [])


def _check(requested_networks):
    for req in _requests(requested_networks):
        if req.port_id:
            raise exception.PortNotFound(port_id=req.port_id)
        if req.network_id and req.network_id not in ("auto", "none"):
            raise exception.NetworkNotFound(network_id=req.network_id)


def _check_groups(security_groups):
    for group in getattr(security_groups, "objects", None) or \
            security_groups or []:
        name = group if isinstance(group, str) else group["name"]
        if name != DEFAULT_SECURITY_GROUP:
            raise exception.SecurityGroupNotFound(security_group_id=name)


class LocalNetworkAPI(base.NetworkAPI):

    def validate_networks(self, context, requested_networks, num_instances):
        _check(requested_networks)
        return num_instances

    def allocate_for_instance(self, context, instance, requested_networks,
                              security_groups=None, bind_host_id=None,
                              resource_provider_mapping=None):
        _check(requested_networks)
        _check_groups(security_groups)
        # Nothing to allocate, so nothing to save: as Nova's neutron API
        # returns empty network info without touching the cache when no
        # network is configured; the compute folds the (empty) info into
        # its next instance save.
        return model.NetworkInfo()

    def deallocate_for_instance(self, context, instance,
                                requested_networks=None):
        base.update_instance_cache(context, instance, model.NetworkInfo())

    def get_instance_nw_info(self, context, instance, **kwargs):
        return base.cached_nw_info(instance)

    def list_ports(self, context, **search_opts):
        return {"ports": []}

    def show_port(self, context, port_id):
        raise exception.PortNotFound(port_id=port_id)

    def allocate_port_for_instance(self, context, instance, port_id,
                                   network_id=None, requested_ip=None,
                                   bind_host_id=None, tag=None):
        if port_id:
            raise exception.PortNotFound(port_id=port_id)
        raise exception.NetworkNotFound(network_id=network_id)

    def deallocate_port_for_instance(self, context, instance, port_id):
        raise exception.PortNotFound(port_id=port_id)

    # Moves need no network work without a network service.
    def setup_instance_network_on_host(self, context, instance, host,
                                       migration=None,
                                       provider_mappings=None):
        pass

    def migrate_instance_start(self, context, instance, migration):
        pass

    def migrate_instance_finish(self, context, instance, migration,
                                provider_mappings=None):
        pass

    def setup_networks_on_host(self, context, instance, host=None,
                               teardown=False):
        pass

    def cleanup_instance_network_on_host(self, context, instance, host):
        pass

    def validate_security_group_name(self, context, name):
        if name != DEFAULT_SECURITY_GROUP:
            raise exception.SecurityGroupNotFound(security_group_id=name)
        return name

    # -- multinic: no networks here ------------------------------------------
    def add_fixed_ip_to_instance(self, context, instance, network_id):
        raise exception.NetworkNotFoundForInstance(instance_id=instance.uuid)

    def remove_fixed_ip_from_instance(self, context, instance, address):
        raise exception.FixedIpNotFoundForInstance(
            instance_uuid=instance.uuid, ip=address)
