"""NeutronAPI, API side: which networks a boot may use, whether the
request is valid, and how many instances the project's port quota allows
(Nova's validate_networks), plus security group names to ids."""
import logging

from keel.clients import neutron as client_mod
from keel import exception

LOG = logging.getLogger(__name__)

AUTO_TOPOLOGY = "auto-allocated-topology"


def _requests(requested_networks):
    return list(getattr(requested_networks, "objects", None) or
                requested_networks or [])


class _Owner(object):
    def __init__(self, project_id):
        self.project_id = project_id


class ValidationMixin(object):
    """Mixed into NeutronAPI (needs ``conf`` and ``_client``)."""

    # -- extensions --------------------------------------------------------
    def has_extension(self, context, alias):
        return self._client(context).has_extension(
            alias, self.conf.neutron.extension_sync_interval)

    # -- available networks ------------------------------------------------
    def _get_available_networks(self, context, project_id, net_ids=None,
                                client=None, auto_allocate=False):
        """The networks a boot may use: by id when named (in request
        order), else the project's own plus the shared ones."""
        client = client or self._client(context)
        if net_ids:
            nets = client.list_networks(id=sorted(set(net_ids)))
            order = {nid: i for i, nid in reversed(list(enumerate(net_ids)))}
            return sorted(nets, key=lambda n: order.get(n["id"], 0))
        extra = {"admin_state_up": True} if auto_allocate else {}
        nets = client.list_networks(tenant_id=project_id, shared=False,
                                    **extra)
        nets += client.list_networks(shared=True, **extra)
        return nets

    def _can_auto_allocate_network(self, context, client):
        if not self.has_extension(context, AUTO_TOPOLOGY):
            raise exception.UnableToAutoAllocateNetwork(
                project_id=context.project_id)
        try:
            client.get_auto_allocated_topology(context.project_id,
                                               dry_run=True)
        except client_mod.NeutronClientException as exc:
            LOG.info("Auto-allocation dry run failed: %s", exc)
            raise exception.UnableToAutoAllocateNetwork(
                project_id=context.project_id)

    def _auto_allocate_network(self, context, instance, client):
        try:
            topo = client.get_auto_allocated_topology(instance.project_id)
        except client_mod.NeutronClientException as exc:
            LOG.error("Automatic network allocation failed: %s", exc)
            raise exception.UnableToAutoAllocateNetwork(
                project_id=instance.project_id)
        return client.show_network(topo["id"])

    # -- validate (API side) -----------------------------------------------
    def _ports_needed_per_instance(self, context, client, requested):
        reqs = _requests(requested)
        auto = len(reqs) == 1 and reqs[0].network_id == "auto"
        if not reqs or auto:
            nets = self._get_available_networks(context, context.project_id,
                                                client=client)
            if len(nets) > 1:
                raise exception.NetworkAmbiguous()
            if not nets and auto:
                self._can_auto_allocate_network(context, client)
                return 1
            return 1 if nets else 0
        needed = 0
        net_ids = []
        for req in reqs:
            if req.network_id == "none":
                continue
            if req.port_id:
                port = self._show_port(client, req.port_id)
                if port.get("device_id"):
                    raise exception.PortInUse(port_id=req.port_id)
                allocation = port.get("ip_allocation")
                if not port.get("fixed_ips") and allocation not in (
                        "deferred", "none"):
                    raise exception.PortRequiresFixedIP(port_id=req.port_id)
                req.network_id = port["network_id"]
                continue
            needed += 1
            net_ids.append(req.network_id)
            if req.address:
                taken = client.list_ports(
                    network_id=req.network_id,
                    fixed_ips="ip_address=%s" % req.address,
                    fields=["device_id"])
                if taken:
                    raise exception.FixedIpAlreadyInUse(
                        address=req.address,
                        instance_uuid=taken[0].get("device_id"))
        if net_ids:
            nets = self._get_available_networks(context, context.project_id,
                                                net_ids, client=client)
            for net in nets:
                if not net.get("subnets"):
                    raise exception.NetworkRequiresSubnet(
                        network_uuid=net["id"])
            lost = set(net_ids) - {n["id"] for n in nets}
            if lost:
                raise exception.NetworkNotFound(
                    network_id=", ".join(sorted(lost)))
        return needed

    def validate_networks(self, context, requested_networks, num_instances):
        client = self._client(context)
        reqs = _requests(requested_networks)
        if len(reqs) == 1 and reqs[0].network_id == "none":
            return num_instances
        per_instance = self._ports_needed_per_instance(
            context, client, requested_networks)
        if not per_instance:
            return num_instances
        quota = client.show_quota(context.project_id).get("port", -1)
        if quota == -1:
            return num_instances
        used = len(client.list_ports(tenant_id=context.project_id,
                                     fields=["id"]))
        free = quota - used
        if free < 0:
            raise exception.PortLimitExceeded(
                message="The number of defined ports: %d is over the "
                        "limit: %d" % (used, quota))
        if free >= per_instance * num_instances:
            return num_instances
        return free // per_instance

    def _show_port(self, client, port_id):
        try:
            return client.show_port(port_id)
        except client_mod.NeutronClientException as exc:
            if exc.status_code == 404:
                raise exception.PortNotFound(port_id=port_id)
            raise

    # -- security groups ---------------------------------------------------
    def _security_group_ids(self, context, client, instance, names):
        names = [n for n in (names or []) if n]
        if names == ["default"]:
            # Neutron applies the project's default group by itself.
            return []
        if not names:
            return []
        groups = client.list_security_groups(
            tenant_id=instance.project_id, fields=["id", "name"])
        ids = []
        for wanted in names:
            by_name = [g["id"] for g in groups if g["name"] == wanted]
            if len(by_name) > 1:
                raise exception.NoUniqueMatch(
                    message="Multiple security groups found matching '%s'. "
                            "Use an ID to be more specific." % wanted)
            if by_name:
                ids.append(by_name[0])
            elif any(g["id"] == wanted for g in groups):
                ids.append(wanted)
            else:
                raise exception.SecurityGroupNotFound(
                    security_group_id=wanted)
        return ids

    def validate_security_group_name(self, context, name):
        """Nova's security_group_api.validate_name: the group's id."""
        client = self._client(context)
        found = self._security_group_ids(
            context, client, _Owner(context.project_id), [name])
        return found[0] if found else name
