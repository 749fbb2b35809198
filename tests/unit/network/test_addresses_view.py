"""The servers view renders addresses from the network model as Nova:
per network its fixed addresses, then its floating ones."""
from keel.api.views import servers as view
from keel.network import model
from keel import objects


def _vif(port, mac, label, fixed, floating=()):
    ip = model.FixedIP(address=fixed)
    for f in floating:
        ip.add_floating_ip(f)
    return model.VIF(id=port, address=mac, network=model.Network(
        id="net-" + label, label=label,
        subnets=[model.Subnet(cidr="10.0.0.0/24" if ":" not in fixed
                              else "fd00::/64", ips=[ip])]))


def test_fixed_then_floating_per_network_with_mac():
    info = model.NetworkInfo([
        _vif("p1", "fa:16:3e:00:00:01", "private", "10.0.0.5",
             ["172.24.4.5"]),
        _vif("p2", "fa:16:3e:00:00:02", "private", "fd00::5"),
    ])
    inst = objects.Instance(info_cache=objects.InstanceInfoCache(
        network_info=info.json()))
    assert view.addresses(inst) == {"private": [
        {"version": 4, "addr": "10.0.0.5", "OS-EXT-IPS:type": "fixed",
         "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
        {"version": 6, "addr": "fd00::5", "OS-EXT-IPS:type": "fixed",
         "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:02"},
        {"version": 4, "addr": "172.24.4.5", "OS-EXT-IPS:type": "floating",
         "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"}]}


def test_no_cache_no_addresses():
    assert view.addresses(objects.Instance()) == {}
