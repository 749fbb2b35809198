"""NeutronAPI: server networking through Neutron, with Nova's semantics.

validate_networks (API, before the build) checks the request and returns
how many instances the project's port quota still allows;
allocate_for_instance (compute) creates ports on requested networks or
adopts the user's ports, binds them to the host, and returns the VIFs;
deallocate_for_instance deletes the ports keel created and unbinds the
ones the user brought; get_instance_nw_info refreshes the cache. Each
refresh costs a fixed number of Neutron calls (see nw_info.py).
"""
import logging

from keel.clients import neutron as client_mod
from keel import exception
from keel.network import base
from keel.network import model
from keel.network import multinic
from keel.network import neutron_validate
from keel.network import nw_info

LOG = logging.getLogger(__name__)

# Keys Nova clears when handing a user's port back.
_UNBIND = {"device_id": "", "device_owner": "", "binding:host_id": None,
           "binding:profile": {}}


def _requests(requested_networks):
    return list(getattr(requested_networks, "objects", None) or
                requested_networks or [])


def _translate_create_error(exc, network_id, address, instance):
    kind = getattr(exc, "type", None)
    if kind == "IpAddressAlreadyAllocated" or kind == "IpAddressInUse":
        return exception.FixedIpAlreadyInUse(address=address,
                                             instance_uuid=instance.uuid)
    if kind == "IpAddressGenerationFailure":
        return exception.NoMoreFixedIps(net=network_id)
    if kind == "InvalidIpForNetwork" or kind == "InvalidIpForSubnet":
        return exception.InvalidInput(reason=exc.format_message())
    if kind == "OverQuota":
        return exception.PortLimitExceeded()
    if kind == "NetworkNotFound":
        return exception.NetworkNotFound(network_id=network_id)
    return exc


class NeutronAPI(neutron_validate.ValidationMixin, base.NetworkAPI):

    def __init__(self, conf=None):
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf
        # [neutron_physnet_<name>] groups exist once [neutron]/physnets is
        # read (Nova registers them after parsing the configuration).
        from keel.conf import neutron as neutron_conf
        neutron_conf.register_dynamic_opts(conf)

    def _client(self, context, admin=False):
        return client_mod.get_client(context, admin=admin, conf=self.conf)

    # -- allocate (compute side) -------------------------------------------
    def _requested_ports(self, context, client, instance, reqs):
        ports = {}
        for req in reqs:
            if not req.port_id:
                continue
            port = self._show_port(client, req.port_id)
            owner = port.get("tenant_id", port.get("project_id"))
            if owner != instance.project_id:
                raise exception.PortNotUsable(port_id=req.port_id,
                                              instance=instance.uuid)
            if port.get("device_id") and \
                    port["device_id"] != instance.uuid:
                raise exception.PortInUse(port_id=req.port_id)
            if port.get("binding:vif_type") == \
                    model.VIF_TYPE_BINDING_FAILED:
                raise exception.PortBindingFailed(port_id=req.port_id)
            req.network_id = port["network_id"]
            ports[req.port_id] = port
        return ports

    def _requested_networks(self, context, client, instance, reqs):
        """``{net id: network}`` for the request, plus the request list
        completed with the single default network when none was named."""
        net_ids = [r.network_id for r in reqs
                   if r.network_id and r.network_id not in ("auto", "none")]
        auto = len(reqs) == 1 and reqs[0].network_id == "auto"
        if net_ids:
            nets = self._get_available_networks(
                context, instance.project_id, net_ids, client=client)
        elif not reqs or auto:
            nets = self._get_available_networks(
                context, instance.project_id, client=client,
                auto_allocate=auto)
            if len(nets) > 1:
                raise exception.NetworkAmbiguous()
            if not nets and auto:
                nets = [self._auto_allocate_network(context, instance,
                                                    client)]
            reqs = [_Request(network_id=n["id"]) for n in nets]
        else:
            nets = []
        found = {n["id"]: n for n in nets}
        for net_id in net_ids:
            if net_id not in found:
                raise exception.NetworkNotFound(network_id=net_id)
        self._check_external_network_attach(context, nets)
        return found, reqs

    @staticmethod
    def _check_external_network_attach(context, nets):
        """An unshared external network only with Nova's
        network:attach_external_network rule (admins by default)."""
        from keel import policy
        from keel.policies import servers as server_rules
        if policy.authorize(context, server_rules.ATTACH_EXTERNAL_NETWORK,
                            {"project_id": context.project_id},
                            do_raise=False):
            return
        for net in nets:
            if net.get("router:external") and not net.get("shared"):
                raise exception.ExternalNetworkAttachForbidden(
                    network_uuid=net["id"])

    def _create_port(self, client, instance, network, req, sg_ids):
        body = {"network_id": network["id"], "admin_state_up": True,
                "tenant_id": instance.project_id}
        if sg_ids:
            if not (network.get("subnets") and
                    network.get("port_security_enabled", True)):
                raise exception.SecurityGroupCannotBeApplied()
            body["security_groups"] = sg_ids
        if req.address:
            body["fixed_ips"] = [{"ip_address": str(req.address)}]
        try:
            return client.create_port(body)
        except client_mod.NeutronClientException as exc:
            raise _translate_create_error(exc, network["id"], req.address,
                                          instance) from exc

    def _binding_body(self, instance, bind_host_id, port,
                      resource_provider_mapping):
        body = {"device_id": instance.uuid,
                "device_owner": "compute:%s" % instance.availability_zone,
                "binding:host_id": bind_host_id}
        profile = dict(port.get("binding:profile") or {})
        if port.get("resource_request") and resource_provider_mapping:
            # Nova records which provider serves the port's resources.
            rps = resource_provider_mapping.get(port["id"])
            if rps:
                profile["allocation"] = rps[0]
                body["binding:profile"] = profile
        return body

    def allocate_for_instance(self, context, instance, requested_networks,
                              security_groups=None, bind_host_id=None,
                              resource_provider_mapping=None):
        reqs = _requests(requested_networks)
        if len(reqs) == 1 and reqs[0].network_id == "none":
            return model.NetworkInfo()
        client = self._client(context)
        admin = self._client(context, admin=True)
        ports = self._requested_ports(context, client, instance, reqs)
        nets, reqs = self._requested_networks(context, client, instance,
                                              reqs)
        if not reqs:
            LOG.debug("No network configured for instance %s", instance.uuid)
            return model.NetworkInfo()
        sg_ids = self._security_group_ids(context, client, instance,
                                          _sg_names(security_groups))
        created, preexisting, ordered = [], [], []
        try:
            for req in reqs:
                if req.port_id:
                    port = ports[req.port_id]
                    preexisting.append(port["id"])
                else:
                    port = self._create_port(client, instance,
                                             nets[req.network_id], req,
                                             sg_ids)
                    created.append(port["id"])
                body = self._binding_body(instance, bind_host_id, port,
                                          resource_provider_mapping)
                try:
                    port = admin.update_port(port["id"], body)
                except client_mod.NeutronClientException as exc:
                    if exc.type == "MacAddressInUse":
                        raise exception.PortInUse(port_id=port["id"])
                    raise
                ordered.append(port)
            base.record_vifs(context, instance,
                             [(p, getattr(r, "tag", None))
                              for p, r in zip(ordered, reqs)])
        except Exception:
            self._unbind_ports(admin, preexisting)
            self._delete_ports(admin, created)
            raise
        # Refresh the whole cache (an attach adds to the ports already
        # there) and hand back only what this call allocated.
        info = self._refresh(context, instance, admin, networks=nets,
                             preexisting=set(preexisting))
        mine = {p["id"] for p in ordered}
        return model.NetworkInfo(v for v in info if v["id"] in mine)

    # -- deallocate --------------------------------------------------------
    def _unbind_ports(self, admin, port_ids):
        for port_id in port_ids:
            try:
                admin.update_port(port_id, dict(_UNBIND))
            except client_mod.NeutronClientException as exc:
                if exc.status_code != 404:
                    LOG.error("Unable to unbind port %s: %s", port_id, exc)

    def _delete_ports(self, admin, port_ids, raise_if_fail=False):
        for port_id in port_ids:
            try:
                admin.delete_port(port_id)
            except client_mod.NeutronClientException as exc:
                if exc.status_code == 404:
                    continue
                LOG.error("Failed to delete port %s: %s", port_id, exc)
                if raise_if_fail:
                    raise

    def deallocate_for_instance(self, context, instance,
                                requested_networks=None):
        admin = self._client(context, admin=True)
        ports = admin.list_ports(device_id=instance.uuid, fields=["id"])
        keep = {r.port_id for r in _requests(requested_networks)
                if r.port_id}
        keep |= base.preexisting_port_ids(instance)
        ids = [p["id"] for p in ports]
        self._unbind_ports(admin, [i for i in ids if i in keep])
        self._delete_ports(admin, [i for i in ids if i not in keep],
                           raise_if_fail=True)
        base.forget_vifs(context, instance)
        base.update_instance_cache(context, instance, model.NetworkInfo())

    # -- ports as the API reads them (os-interface) ------------------------
    def list_ports(self, context, **search_opts):
        """Nova's network_api.list_ports: ``{"ports": [...]}``."""
        return {"ports": self._client(context).list_ports(**search_opts)}

    def show_port(self, context, port_id):
        """Nova's network_api.show_port: ``{"port": {...}}``."""
        return {"port": self._show_port(self._client(context), port_id)}

    # -- interfaces (attach/detach) ----------------------------------------
    def allocate_port_for_instance(self, context, instance, port_id,
                                   network_id=None, requested_ip=None,
                                   bind_host_id=None, tag=None):
        """One more interface: the user's port, or a new one on a network
        (Nova's interface attach)."""
        req = _Request(network_id=network_id, port_id=port_id,
                       address=requested_ip, tag=tag)
        return self.allocate_for_instance(context, instance, [req],
                                          bind_host_id=bind_host_id)

    def deallocate_port_for_instance(self, context, instance, port_id):
        """Detach one interface: unbind the user's port, delete ours."""
        admin = self._client(context, admin=True)
        if port_id in base.preexisting_port_ids(instance):
            self._unbind_ports(admin, [port_id])
        else:
            self._delete_ports(admin, [port_id], raise_if_fail=True)
        base.forget_vifs(context, instance, port_id)
        return self._refresh(context, instance, admin)

    # -- moves -------------------------------------------------------------
    def _rebind(self, context, instance, host):
        admin = self._client(context, admin=True)
        for port in admin.list_ports(device_id=instance.uuid,
                                     fields=["id", "binding:host_id"]):
            if port.get("binding:host_id") != host:
                admin.update_port(port["id"], {"binding:host_id": host})

    def setup_instance_network_on_host(self, context, instance, host,
                                       migration=None,
                                       provider_mappings=None):
        """Bind the instance's ports to ``host`` (unshelve, evacuate)."""
        self._rebind(context, instance, host)

    def migrate_instance_start(self, context, instance, migration):
        """Nothing to do before a move: ports move in migrate_instance_finish
        (keel uses no multiple port bindings)."""

    def migrate_instance_finish(self, context, instance, migration,
                                provider_mappings=None):
        self._rebind(context, instance, migration.dest_compute)

    def setup_networks_on_host(self, context, instance, host=None,
                               teardown=False):
        """Nova's hook for per-host network setup: Neutron needs none."""

    def cleanup_instance_network_on_host(self, context, instance, host):
        """Nova's hook after a move away from ``host``: nothing with
        single port bindings."""

    # -- refresh -----------------------------------------------------------
    def get_instance_nw_info(self, context, instance, **kwargs):
        admin = self._client(context, admin=True)
        return self._refresh(context, instance, admin)

    def _refresh(self, context, instance, admin, networks=None,
                 preexisting=()):
        ports = admin.list_ports(tenant_id=instance.project_id,
                                 device_id=instance.uuid)
        cached = base.cached_nw_info(instance)
        order = {vif["id"]: i for i, vif in enumerate(cached)}
        # Cached VIFs keep their place; ports new to the cache follow in
        # Neutron's order (Nova's rule, so device names stay stable).
        ports.sort(key=lambda p: order.get(p["id"], len(order)))
        keep = set(preexisting) | base.preexisting_port_ids(instance)
        info = nw_info.fetch_and_build(
            admin, ports, networks=networks, preexisting=keep,
            ovs_bridge=self.conf.neutron.ovs_bridge)
        base.update_instance_cache(context, instance, info)
        return info

    # -- multinic (deprecated API, keel.network.multinic) -------------------
    def add_fixed_ip_to_instance(self, context, instance, network_id):
        return multinic.add_fixed_ip(self, context, instance, network_id)

    def remove_fixed_ip_from_instance(self, context, instance, address):
        return multinic.remove_fixed_ip(self, context, instance, address)


class _Request(object):
    """A network request made up by allocation (the default network)."""

    def __init__(self, network_id=None, port_id=None, address=None,
                 tag=None):
        self.network_id = network_id
        self.port_id = port_id
        self.address = address
        self.tag = tag


def _sg_names(security_groups):
    """Names from a SecurityGroupList, list of dicts or list of names."""
    out = []
    for group in getattr(security_groups, "objects", None) or \
            security_groups or []:
        if isinstance(group, str):
            out.append(group)
        else:
            out.append(group["name"])
    return out
