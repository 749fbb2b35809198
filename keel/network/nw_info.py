"""Build Nova's network model from Neutron resources.

Neutron's ports, networks, subnets, DHCP ports and floating IPs are fetched
once per refresh — five list calls whatever the number of ports — and
joined here in memory. (Nova asks per port for subnets and per fixed IP for
floating IPs; the result is the same.)
"""
from keel.network import model

# Network types whose traffic is encapsulated (Nova's "tunneled" meta).
_TUNNEL_TYPES = ("vxlan", "gre", "geneve")
BINDING_PROFILE = "binding:profile"
BINDING_HOST_ID = "binding:host_id"


def _subnet_model(subnet, dhcp_server):
    def _ip(address, kind):
        return model.IP(address=address, type=kind)

    routes = [model.Route(cidr=r["destination"],
                          gateway=_ip(r["nexthop"], "gateway"))
              for r in subnet.get("host_routes") or []]
    gateway = (_ip(subnet["gateway_ip"], "gateway")
               if subnet.get("gateway_ip") else model.IP())
    kwargs = {}
    if dhcp_server:
        kwargs["dhcp_server"] = dhcp_server
    if subnet.get("ipv6_address_mode"):
        kwargs["ipv6_address_mode"] = subnet["ipv6_address_mode"]
    return model.Subnet(cidr=subnet["cidr"], gateway=gateway,
                        dns=[_ip(d, "dns") for d in
                             subnet.get("dns_nameservers") or []],
                        routes=routes, **kwargs)


def _network_model(port, net, ovs_bridge):
    vif_type = port.get("binding:vif_type")
    details = port.get("binding:vif_details") or {}
    meta = {"injected": False,
            "tenant_id": net.get("tenant_id", net.get("project_id"))}
    if net.get("mtu"):
        meta["mtu"] = net["mtu"]
    if net.get("provider:physical_network"):
        meta["physical_network"] = net["provider:physical_network"]
    if net.get("provider:network_type") in _TUNNEL_TYPES:
        meta["tunneled"] = True
    bridge = None
    if vif_type == model.VIF_TYPE_OVS:
        bridge = details.get("bridge_name") or ovs_bridge
    elif vif_type == model.VIF_TYPE_BRIDGE:
        bridge = details.get("bridge_name") or "brq" + port["network_id"][:11]
        meta["should_create_bridge"] = True
    return model.Network(id=port["network_id"], bridge=bridge,
                         label=net.get("name"), **meta)


def vif_from_port(port, net, subnets, dhcp_servers, floating_by_fixed,
                  ovs_bridge, preserve_on_delete=False):
    """One VIF for ``port`` on network ``net`` (Neutron dicts)."""
    network = _network_model(port, net, ovs_bridge)
    by_subnet = {}
    for fixed in port.get("fixed_ips") or []:
        subnet = subnets.get(fixed["subnet_id"])
        if subnet is None:
            continue
        sub = by_subnet.get(fixed["subnet_id"])
        if sub is None:
            sub = _subnet_model(subnet, dhcp_servers.get(subnet["id"]))
            by_subnet[fixed["subnet_id"]] = sub
            network.add_subnet(sub)
        ip = model.FixedIP(address=fixed["ip_address"])
        for address in floating_by_fixed.get(
                (port["id"], fixed["ip_address"]), []):
            ip.add_floating_ip(model.IP(address=address, type="floating"))
        sub.add_ip(ip)
    vif_type = port.get("binding:vif_type")
    return model.VIF(
        id=port["id"], address=port["mac_address"], network=network,
        vnic_type=port.get("binding:vnic_type", model.VNIC_TYPE_NORMAL),
        type=vif_type, profile=port.get(BINDING_PROFILE) or {},
        details=port.get("binding:vif_details") or {},
        ovs_interfaceid=(port["id"] if vif_type == model.VIF_TYPE_OVS
                         else None),
        devname=("tap" + port["id"])[:14],
        active=port.get("status") == "ACTIVE",
        preserve_on_delete=preserve_on_delete)


def fetch_and_build(client, ports, networks=None, preexisting=(),
                    ovs_bridge="br-int"):
    """NetworkInfo for ``ports`` (in that order), fetching what is missing
    in a fixed number of list calls.

    ``networks`` is an optional ``{id: network}`` already known to the
    caller; ``preexisting`` the ids of ports the user brought (kept on
    delete).
    """
    if not ports:
        return model.NetworkInfo()
    networks = dict(networks or {})
    missing = sorted({p["network_id"] for p in ports} - set(networks))
    if missing:
        networks.update({n["id"]: n
                         for n in client.list_networks(id=missing)})
    subnet_ids = sorted({f["subnet_id"] for p in ports
                         for f in p.get("fixed_ips") or []})
    subnets, dhcp = {}, {}
    if subnet_ids:
        subnets = {s["id"]: s for s in client.list_subnets(id=subnet_ids)}
        dhcp_ports = client.list_ports(
            network_id=sorted({s["network_id"] for s in subnets.values()}),
            device_owner="network:dhcp")
        for dp in dhcp_ports:
            for fixed in dp.get("fixed_ips") or []:
                dhcp.setdefault(fixed["subnet_id"], fixed["ip_address"])
    floating = {}
    for fip in client.list_floatingips(port_id=[p["id"] for p in ports]):
        floating.setdefault((fip["port_id"], fip["fixed_ip_address"]),
                            []).append(fip["floating_ip_address"])
    info = model.NetworkInfo()
    for port in ports:
        net = networks.get(port["network_id"], {"name": None})
        info.append(vif_from_port(port, net, subnets, dhcp, floating,
                                  ovs_bridge,
                                  preserve_on_delete=port["id"] in preexisting))
    return info
