"""network_data.json from the network model (Nova's layout)."""
from keel.network import metadata
from keel.network import model


def _vif(port, subnets, vif_type="ovs", mtu=1450):
    return model.VIF(id=port, address="fa:16:3e:00:00:0%s" % port[-1],
                     type=vif_type, devname=("tap" + port)[:14],
                     network=model.Network(id="net-" + port, label="l",
                                           subnets=subnets, mtu=mtu))


def test_static_dhcp_and_v6_modes():
    static = model.Subnet(
        cidr="192.168.1.0/24", gateway=model.IP(address="192.168.1.1",
                                                type="gateway"),
        dns=[model.IP(address="8.8.8.8", type="dns")],
        routes=[model.Route(cidr="10.10.0.0/16", gateway=model.IP(
            address="192.168.1.254"))],
        ips=[model.FixedIP(address="192.168.1.5")])
    dhcp = model.Subnet(cidr="10.0.0.0/24", ips=[model.FixedIP(
        address="10.0.0.7")], dhcp_server="10.0.0.2")
    slaac = model.Subnet(cidr="fd00::/64", ips=[model.FixedIP(
        address="fd00::7")], ipv6_address_mode="slaac",
        gateway=model.IP(address="fd00::1"))
    doc = metadata.get_network_metadata(model.NetworkInfo([
        _vif("port1", [static]), _vif("port2", [dhcp, slaac], "other")]))
    assert doc["links"] == [
        {"id": "tapport1", "vif_id": "port1", "type": "ovs", "mtu": 1450,
         "ethernet_mac_address": "fa:16:3e:00:00:01"},
        {"id": "tapport2", "vif_id": "port2", "type": "phy", "mtu": 1450,
         "ethernet_mac_address": "fa:16:3e:00:00:02"}]
    first, second, third = doc["networks"]
    assert first == {
        "id": "network0", "type": "ipv4", "link": "tapport1",
        "ip_address": "192.168.1.5", "netmask": "255.255.255.0",
        "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0",
                    "gateway": "192.168.1.1"},
                   {"network": "10.10.0.0", "netmask": "255.255.0.0",
                    "gateway": "192.168.1.254"}],
        "network_id": "net-port1",
        "services": [{"type": "dns", "address": "8.8.8.8"}]}
    assert second == {"id": "network1", "type": "ipv4_dhcp",
                      "link": "tapport2", "network_id": "net-port2"}
    assert third["type"] == "ipv6_slaac" and third["routes"][0] == {
        "network": "::", "netmask": "::", "gateway": "fd00::1"}
    assert doc["services"] == [{"type": "dns", "address": "8.8.8.8"}]


def test_nothing_without_vifs_or_subnets():
    assert metadata.get_network_metadata([]) is None
    bare = model.NetworkInfo([_vif("port1", [])])
    assert metadata.get_network_metadata(bare) == {
        "links": [], "networks": [], "services": []}
