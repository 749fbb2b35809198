"""The network model reads and writes Nova's info-cache JSON."""
import json

from keel.network import model
from keel import objects

# A cache entry as Nova 34 writes it (one OVS port, a floating IP).
NOVA_CACHE = json.dumps([{
    "id": "0a8b3d8a-5d63-4ac5-b1cd-1df0d9a6c1b2",
    "address": "fa:16:3e:4c:2c:30",
    "network": {
        "id": "a4e2f2bd-8a55-4a05-8cbb-1d1a0ad0cc1c", "bridge": "br-int",
        "label": "private",
        "subnets": [{
            "cidr": "10.0.0.0/26",
            "dns": [{"address": "8.8.8.8", "type": "dns", "version": 4,
                     "meta": {}}],
            "gateway": {"address": "10.0.0.1", "type": "gateway",
                        "version": 4, "meta": {}},
            "ips": [{"address": "10.0.0.13", "type": "fixed", "version": 4,
                     "meta": {},
                     "floating_ips": [{"address": "172.24.4.9",
                                       "type": "floating", "version": 4,
                                       "meta": {}}]}],
            "routes": [], "version": 4,
            "meta": {"dhcp_server": "10.0.0.2"}}],
        "meta": {"injected": False, "tenant_id": "p1", "mtu": 1442,
                 "tunneled": True}},
    "type": "ovs",
    "details": {"connectivity": "l2", "port_filter": True,
                "ovs_hybrid_plug": False, "bridge_name": "br-int"},
    "devname": "tap0a8b3d8a-5d", "ovs_interfaceid": "0a8b3d8a-5d63",
    "qbh_params": None, "qbg_params": None, "active": True,
    "vnic_type": "normal", "profile": {}, "preserve_on_delete": False,
    "delegate_create": True, "meta": {}}])


def test_nova_cache_round_trips_key_for_key():
    info = model.NetworkInfo.hydrate(NOVA_CACHE)
    assert json.loads(info.json()) == json.loads(NOVA_CACHE)
    assert isinstance(info[0], model.VIF)
    assert isinstance(info[0]["network"]["subnets"][0]["ips"][0],
                      model.FixedIP)


def test_fixed_and_floating_ips():
    info = model.NetworkInfo.hydrate(NOVA_CACHE)
    assert [ip["address"] for ip in info.fixed_ips()] == ["10.0.0.13"]
    assert [ip["address"] for ip in info.floating_ips()] == ["172.24.4.9"]
    assert info[0].labeled_ips()["network_label"] == "private"
    assert info[0]["network"].get_meta("mtu") == 1442


def test_unknown_keys_go_to_meta_and_versions_are_derived():
    ip = model.FixedIP(address="fd00::5", mystery=1)
    assert ip["version"] == 6 and ip["meta"] == {"mystery": 1}
    assert model.Subnet(cidr="192.168.0.0/24")["version"] == 4


def test_empty_and_none_hydrate_to_empty():
    assert model.NetworkInfo.hydrate("[]") == []
    assert model.NetworkInfo.hydrate(None) == []


def test_info_cache_field_holds_the_model():
    cache = objects.InstanceInfoCache(network_info=NOVA_CACHE)
    assert isinstance(cache.network_info, model.NetworkInfo)
    prim = cache.obj_to_primitive()
    back = objects.InstanceInfoCache.obj_from_primitive(prim)
    assert back.network_info[0]["id"] == \
        "0a8b3d8a-5d63-4ac5-b1cd-1df0d9a6c1b2"
