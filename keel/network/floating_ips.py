"""Floating IPs behind Nova's os-floating-ips / os-floating-ip-pools
proxies and the add/removeFloatingIp server actions (Nova's Neutron API
methods of the same names). Without a network service there are no pools
and no floating IPs (LocalFloatingIPAPI)."""
from oslo_utils import uuidutils

from keel.clients import neutron as client_mod
from keel import exception
from keel.network import api as network_api

FIP_PORT_DETAILS = "fip-port-details"


def get_api(conf=None):
    if network_api.is_neutron(conf):
        return NeutronFloatingIPAPI(conf)
    return LocalFloatingIPAPI()


class NeutronFloatingIPAPI(object):

    def __init__(self, conf=None):
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf

    def _client(self, context):
        return client_mod.get_client(context, conf=self.conf)

    def _port_details_ext(self, client):
        return client.has_extension(
            FIP_PORT_DETAILS, self.conf.neutron.extension_sync_interval)

    def _with_details(self, client, context, fips):
        """Add ``network_details`` and ``port_details`` to each floating IP
        with one call per kind, whatever their number."""
        if not fips:
            return fips
        net_ids = sorted({f["floating_network_id"] for f in fips})
        nets = {n["id"]: n for n in client.list_networks(id=net_ids)}
        ports = None
        if not self._port_details_ext(client):
            port_ids = sorted({f["port_id"] for f in fips if f["port_id"]})
            ports = {p["id"]: p for p in
                     (client.list_ports(id=port_ids) if port_ids else [])}
        for fip in fips:
            fip["network_details"] = nets.get(
                fip["floating_network_id"], {"id": fip["floating_network_id"],
                                             "name": None})
            if ports is not None:
                fip["port_details"] = ports.get(fip["port_id"])
        return fips

    def get_floating_ips_by_project(self, context):
        client = self._client(context)
        fips = client.list_floatingips(tenant_id=context.project_id)
        return self._with_details(client, context, fips)

    def get_floating_ip(self, context, id):
        if not uuidutils.is_uuid_like(id):
            raise exception.InvalidID(id=id)
        client = self._client(context)
        try:
            fip = client.show_floatingip(id)
        except client_mod.NeutronClientException as exc:
            if exc.status_code == 404:
                raise exception.FloatingIpNotFound(id=id)
            raise
        return self._with_details(client, context, [fip])[0]

    def get_floating_ip_by_address(self, context, address):
        client = self._client(context)
        found = client.list_floatingips(floating_ip_address=address)
        if not found:
            raise exception.FloatingIpNotFoundForAddress(address=address)
        return self._with_details(client, context, found)[0]

    def get_floating_ip_pools(self, context):
        return self._client(context).list_networks(**{"router:external":
                                                      True})

    def _pool_id(self, client, name_or_id):
        filters = {"router:external": True, "fields": "id"}
        if uuidutils.is_uuid_like(name_or_id):
            filters["id"] = name_or_id
        else:
            filters["name"] = name_or_id
        nets = client.list_networks(**filters)
        if not nets:
            raise exception.FloatingIpPoolNotFound()
        if len(nets) > 1:
            raise exception.NovaException(
                message="Multiple floating IP pools matches found for name "
                        "'%s'" % name_or_id)
        return nets[0]["id"]

    def allocate_floating_ip(self, context, pool=None):
        client = self._client(context)
        pool_id = self._pool_id(client,
                                pool or self.conf.neutron.default_floating_pool)
        try:
            fip = client.create_floatingip(
                {"floating_network_id": pool_id,
                 "tenant_id": context.project_id})
        except client_mod.NeutronClientException as exc:
            if exc.type in ("IpAddressGenerationFailure",
                            "ExternalIpAddressExhausted"):
                raise exception.NoMoreFloatingIps(
                    message=exc.format_message())
            if exc.type == "OverQuota":
                raise exception.FloatingIpLimitExceeded(
                    message=exc.format_message())
            if exc.status_code == 400:
                raise exception.FloatingIpBadRequest(
                    reason=exc.format_message())
            raise
        return fip["floating_ip_address"]

    def release_floating_ip(self, context, fip):
        try:
            self._client(context).delete_floatingip(fip["id"])
        except client_mod.NeutronClientException as exc:
            if exc.status_code == 404:
                raise exception.FloatingIpNotFoundForAddress(
                    address=fip["floating_ip_address"])
            raise

    def associate_floating_ip(self, context, instance, floating_address,
                              fixed_address):
        """Point ``floating_address`` at the instance port holding
        ``fixed_address``."""
        client = self._client(context)
        ports = client.list_ports(device_id=instance.uuid)
        port_id = None
        for port in ports:
            if any(f["ip_address"] == fixed_address
                   for f in port.get("fixed_ips") or []):
                port_id = port["id"]
                break
        if port_id is None:
            raise exception.FixedIpNotFoundForAddress(address=fixed_address)
        fip = self.get_floating_ip_by_address(context, floating_address)
        client.update_floatingip(fip["id"], {
            "port_id": port_id, "fixed_ip_address": fixed_address})

    def disassociate_floating_ip(self, context, instance, address):
        client = self._client(context)
        fip = self.get_floating_ip_by_address(context, address)
        client.update_floatingip(fip["id"], {"port_id": None})


class LocalFloatingIPAPI(object):
    """No pools, no floating IPs."""

    def get_floating_ips_by_project(self, context):
        return []

    def get_floating_ip(self, context, id):
        if not uuidutils.is_uuid_like(id):
            raise exception.InvalidID(id=id)
        raise exception.FloatingIpNotFound(id=id)

    def get_floating_ip_by_address(self, context, address):
        raise exception.FloatingIpNotFoundForAddress(address=address)

    def get_floating_ip_pools(self, context):
        return []

    def allocate_floating_ip(self, context, pool=None):
        raise exception.FloatingIpPoolNotFound()

    def release_floating_ip(self, context, fip):
        raise exception.FloatingIpNotFoundForAddress(
            address=fip["floating_ip_address"])

    def associate_floating_ip(self, context, instance, floating_address,
                              fixed_address):
        raise exception.FloatingIpNotFoundForAddress(address=floating_address)

    def disassociate_floating_ip(self, context, instance, address):
        raise exception.FloatingIpNotFoundForAddress(address=address)
