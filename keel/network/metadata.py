"""network_data.json (OpenStack metadata format) from the network model,
as Nova's get_network_metadata writes it for config drives and the
metadata service: one link per VIF with a subnet, an IPv4 and an IPv6
network per link at most (the first subnet of each version), static
addresses with their routes unless the subnet is served by DHCP, and the
DNS servers as services."""
import ipaddress

from keel.network import model

# VIF types shown to the guest as they are; every other one is 'phy'.
_EXPOSED_VIF_TYPES = ("bridge", "dvs", "hw_veb", "hyperv", "ovs", "tap",
                      "vhostuser", "vif")


def _first_subnet(network, version):
    for subnet in network.get("subnets") or []:
        if subnet.get("version") == version or (
                subnet.get("cidr") and ipaddress.ip_network(
                    subnet["cidr"], strict=False).version == version):
            return subnet
    return None


def _meta(item, key):
    return (item.get("meta") or {}).get(key)


def _link(vif, index):
    vif_type = vif.get("type")
    return {"id": vif.get("devname") or "interface%d" % index,
            "vif_id": vif["id"],
            "type": vif_type if vif_type in _EXPOSED_VIF_TYPES else "phy",
            "mtu": _meta(vif.get("network") or {}, "mtu"),
            "ethernet_mac_address": vif.get("address")}


def _dns(subnet):
    return [{"type": "dns", "address": ip.get("address")}
            for ip in subnet.get("dns") or []]


def _routes(version, subnet):
    out = []
    gateway = (subnet.get("gateway") or {}).get("address")
    if gateway:
        anywhere = "0.0.0.0" if version == 4 else "::"
        out.append({"network": anywhere, "netmask": anywhere,
                    "gateway": gateway})
    for route in subnet.get("routes") or []:
        net = ipaddress.ip_network(route["cidr"], strict=False)
        out.append({"network": str(net.network_address),
                    "netmask": str(net.netmask),
                    "gateway": (route.get("gateway") or {}).get("address")})
    return out


def _network(vif, subnet, version, index, link_id):
    suffix = ""
    mode = _meta(subnet, "ipv6_address_mode")
    if mode is not None:
        suffix = "_%s" % mode
    elif _meta(subnet, "dhcp_server") is not None:
        return {"id": "network%d" % index, "type": "ipv%d_dhcp" % version,
                "link": link_id, "network_id": vif["network"]["id"]}
    net = ipaddress.ip_network(subnet["cidr"], strict=False)
    return {"id": "network%d" % index, "type": "ipv%d%s" % (version, suffix),
            "link": link_id, "ip_address": subnet["ips"][0]["address"],
            "netmask": str(net.netmask), "routes": _routes(version, subnet),
            "network_id": vif["network"]["id"], "services": _dns(subnet)}


def get_network_metadata(network_info):
    """The network_data.json document, or None without any VIF."""
    if not network_info:
        return None
    network_info = model.NetworkInfo.hydrate(network_info) \
        if not isinstance(network_info, model.NetworkInfo) else network_info
    links, networks, services = [], [], []
    link_index = net_index = -1
    for vif in network_info:
        network = vif.get("network") or {}
        if not network.get("subnets"):
            continue
        subnets = {v: _first_subnet(network, v) for v in (4, 6)}
        link_index += 1
        if not any(subnets.values()):
            continue
        link = _link(vif, link_index)
        links.append(link)
        for version in (4, 6):
            subnet = subnets[version]
            if not subnet or not subnet.get("ips"):
                continue
            net_index += 1
            networks.append(_network(vif, subnet, version, net_index,
                                     link["id"]))
            services += [d for d in _dns(subnet) if d not in services]
    return {"links": links, "networks": networks, "services": services}
