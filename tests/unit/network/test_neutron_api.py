"""NeutronAPI against the Neutron simulator: what Nova does for a boot,
a delete and a refresh, seen in Neutron's state and in the info cache."""
import pytest

from keel import exception
from keel.network import api as network_api
from keel.network import neutron
from keel import objects
from tests.unit.network.conftest import PROJECT, requests


@pytest.fixture
def napi(sim):
    api = network_api.get_api()
    assert isinstance(api, neutron.NeutronAPI)
    return api


def test_get_api_is_local_without_neutron_config():
    from keel.network import local
    assert isinstance(network_api.get_api(), local.LocalNetworkAPI)


def test_boot_on_named_network_creates_and_binds_a_port(
        sim, napi, ctx, make_instance):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    inst = make_instance()
    info = napi.allocate_for_instance(ctx, inst, requests((net["id"], None,
                                                          None)),
                                      bind_host_id="host1")
    assert len(info) == 1
    port = sim.ports[info[0]["id"]]
    assert port["device_id"] == inst.uuid
    assert port["device_owner"] == "compute:nova"
    assert port["binding:host_id"] == "host1"
    vif = info[0]
    assert vif["address"] == port["mac_address"]
    assert vif["type"] == "ovs" and vif["active"] is True
    assert vif["network"]["label"] == "private"
    assert vif["network"]["bridge"] == "br-int"
    subnet = vif["network"]["subnets"][0]
    assert subnet["cidr"] == "10.0.0.0/24"
    assert subnet["gateway"]["address"] == "10.0.0.1"
    assert subnet["meta"]["dhcp_server"]  # the DHCP port's address
    assert [ip["address"] for ip in info.fixed_ips()] == [
        port["fixed_ips"][0]["ip_address"]]
    # The cell's info cache holds the same JSON the API will render.
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["info_cache"])
    assert got.info_cache.network_info.json() == info.json()


def test_fixed_ip_request_and_address_in_use(sim, napi, ctx, make_instance):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    inst = make_instance()
    info = napi.allocate_for_instance(
        ctx, inst, requests((net["id"], "10.0.0.50", None)))
    assert info.fixed_ips()[0]["address"] == "10.0.0.50"
    # Validation (API side) sees the address taken…
    with pytest.raises(exception.FixedIpAlreadyInUse):
        napi.validate_networks(ctx, requests((net["id"], "10.0.0.50", None)),
                               1)
    # …and so does allocation, which then leaves no port behind.
    before = set(sim.ports)
    with pytest.raises(exception.FixedIpAlreadyInUse):
        napi.allocate_for_instance(ctx, make_instance(), requests(
            (net["id"], None, None), (net["id"], "10.0.0.50", None)))
    assert set(sim.ports) == before


def test_user_port_is_adopted_then_unbound_not_deleted(
        sim, napi, ctx, make_instance):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    port = sim._new_port({"network_id": net["id"], "tenant_id": PROJECT})
    inst = make_instance()
    info = napi.allocate_for_instance(ctx, inst,
                                      requests((None, None, port["id"])),
                                      bind_host_id="host1")
    assert info[0]["id"] == port["id"]
    assert info[0]["preserve_on_delete"] is True
    assert sim.ports[port["id"]]["device_id"] == inst.uuid

    created = napi.allocate_for_instance(
        ctx, inst, requests((net["id"], None, None)))[0]["id"]
    inst = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                        expected_attrs=["info_cache"])
    assert [v["id"] for v in inst.info_cache.network_info] == [
        port["id"], created]

    napi.deallocate_for_instance(ctx, inst)
    assert port["id"] in sim.ports and created not in sim.ports
    assert sim.ports[port["id"]]["device_id"] == ""
    assert sim.ports[port["id"]]["binding:host_id"] == ""
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["info_cache"])
    assert got.info_cache.network_info == []


def test_port_errors(sim, napi, ctx, make_instance):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    with pytest.raises(exception.PortNotFound):
        napi.validate_networks(ctx, requests(
            (None, None, "3f1e0a2c-0000-4000-8000-000000000000")), 1)
    used = sim._new_port({"network_id": net["id"], "tenant_id": PROJECT,
                          "device_id": "someone-else"})
    with pytest.raises(exception.PortInUse):
        napi.validate_networks(ctx, requests((None, None, used["id"])), 1)
    foreign = sim._new_port({"network_id": net["id"], "tenant_id": "other"})
    with pytest.raises(exception.PortNotUsable):
        napi.allocate_for_instance(ctx, make_instance(),
                                   requests((None, None, foreign["id"])))


def test_network_validation(sim, napi, ctx):
    a = sim.add_network("a", PROJECT, cidr="10.0.0.0/24")
    bare = sim.add_network("bare", PROJECT)
    missing = "0f0f0f0f-0000-4000-8000-000000000000"
    with pytest.raises(exception.NetworkNotFound) as err:
        napi.validate_networks(ctx, requests((a["id"], None, None),
                                             (missing, None, None)), 1)
    assert missing in err.value.format_message()
    with pytest.raises(exception.NetworkRequiresSubnet):
        napi.validate_networks(ctx, requests((bare["id"], None, None)), 1)
    # Nothing requested and two networks visible: ambiguous (409).
    with pytest.raises(exception.NetworkAmbiguous):
        napi.validate_networks(ctx, None, 1)
    assert napi.validate_networks(ctx, requests(("none", None, None)), 3) == 3


def test_port_quota_limits_the_instance_count(sim, napi, ctx):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    sim.quotas[PROJECT] = {"port": 6}
    sim._new_port({"network_id": net["id"], "tenant_id": PROJECT})
    two = requests((net["id"], None, None), (net["id"], None, None))
    # The project has its DHCP port and one more: 4 ports free, 2 per
    # instance: at most 2 of the 3 asked for.
    assert napi.validate_networks(ctx, two, 3) == 2
    assert napi.validate_networks(ctx, two, 1) == 1
    sim.quotas[PROJECT] = {"port": -1}
    assert napi.validate_networks(ctx, two, 30) == 30


def test_auto_allocation(sim, napi, ctx, make_instance):
    auto = requests(("auto", None, None))
    with pytest.raises(exception.UnableToAutoAllocateNetwork):
        napi.validate_networks(ctx, auto, 1)
    sim.auto_allocate_possible = True
    assert napi.validate_networks(ctx, auto, 1) == 1
    info = napi.allocate_for_instance(ctx, make_instance(), auto)
    assert info[0]["network"]["label"] == "auto_allocated_network"


def test_single_visible_network_is_used_when_none_named(
        sim, napi, ctx, make_instance):
    shared = sim.add_network("public", "admin", shared=True,
                             cidr="192.168.7.0/24")
    info = napi.allocate_for_instance(ctx, make_instance(), None)
    assert info[0]["network"]["id"] == shared["id"]


def test_security_groups_by_name(sim, napi, ctx, make_instance):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    web = sim._new_sg({"name": "web", "tenant_id": PROJECT})
    info = napi.allocate_for_instance(
        ctx, make_instance(), requests((net["id"], None, None)),
        security_groups=["web"])
    assert sim.ports[info[0]["id"]]["security_groups"] == [web["id"]]
    with pytest.raises(exception.SecurityGroupNotFound):
        napi.allocate_for_instance(ctx, make_instance(),
                                   requests((net["id"], None, None)),
                                   security_groups=["nope"])
    sim._new_sg({"name": "web", "tenant_id": PROJECT})
    with pytest.raises(exception.NoUniqueMatch):
        napi.validate_security_group_name(ctx, "web")
    insecure = sim.add_network("flat", PROJECT, cidr="10.9.0.0/24",
                               port_security=False)
    with pytest.raises(exception.SecurityGroupCannotBeApplied):
        napi.allocate_for_instance(ctx, make_instance(),
                                   requests((insecure["id"], None, None)),
                                   security_groups=["default", web["id"]])


def test_refresh_costs_the_same_calls_for_one_or_many_ports(
        sim, napi, ctx, make_instance):
    nets = [sim.add_network("n%d" % i, PROJECT, cidr="10.%d.0.0/24" % i)
            for i in range(6)]
    ext = sim.add_network("ext", "admin", external=True,
                          cidr="172.24.4.0/24")
    counts = []
    for n in (1, 6):
        inst = make_instance()
        info = napi.allocate_for_instance(ctx, inst, requests(
            *[(net["id"], None, None) for net in nets[:n]]))
        fip = sim._create_floatingip({"floating_network_id": ext["id"],
                                      "tenant_id": PROJECT})
        sim._update_floatingip(sim.floatingips[fip["id"]],
                               {"port_id": info[-1]["id"]})
        del sim.requests[:]
        info = napi.get_instance_nw_info(ctx, inst)
        counts.append(len(sim.requests))
        assert info.floating_ips()[0]["address"] == \
            fip["floating_ip_address"]
        assert len(info) == n
    assert counts[0] == counts[1] <= 5


def test_neutron_error_body_becomes_nova_exception(sim, napi, ctx,
                                                   make_instance):
    net = sim.add_network("tiny", PROJECT)
    sim.add_subnet(net["id"], "10.0.0.0/30", dhcp=False)  # one free address
    napi.allocate_for_instance(ctx, make_instance(),
                               requests((net["id"], None, None)))
    with pytest.raises(exception.NoMoreFixedIps):
        napi.allocate_for_instance(ctx, make_instance(),
                                   requests((net["id"], None, None)))


def test_unreachable_neutron_is_a_clear_error(ctx):
    from keel.clients import neutron as client
    from keel.conf import CONF
    CONF.set_override("endpoint_override", "http://127.0.0.1:9", "neutron")
    CONF.set_override("http_retries", 0, "neutron")
    client.reset()
    try:
        with pytest.raises(client.NeutronConnectionFailed):
            network_api.get_api().validate_networks(ctx, None, 1)
    finally:
        CONF.clear_override("endpoint_override", "neutron")
        CONF.clear_override("http_retries", "neutron")
        client.reset()


def test_interface_attach_detach_and_move(sim, napi, ctx, make_instance):
    a = sim.add_network("a", PROJECT, cidr="10.0.0.0/24")
    b = sim.add_network("b", PROJECT, cidr="10.1.0.0/24")
    inst = make_instance()
    napi.allocate_for_instance(ctx, inst, requests((a["id"], None, None)),
                               bind_host_id="host1")
    user_port = sim._new_port({"network_id": b["id"], "tenant_id": PROJECT})
    added = napi.allocate_port_for_instance(ctx, inst, user_port["id"],
                                            bind_host_id="host1")
    assert [v["id"] for v in added] == [user_port["id"]]
    inst = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                        expected_attrs=["info_cache"])
    assert len(inst.info_cache.network_info) == 2

    class Migration(object):
        dest_compute = "host2"
    napi.migrate_instance_finish(ctx, inst, Migration())
    assert {p["binding:host_id"] for p in sim.ports.values()
            if p["device_id"] == inst.uuid} == {"host2"}

    info = napi.deallocate_port_for_instance(ctx, inst, user_port["id"])
    assert len(info) == 1
    assert user_port["id"] in sim.ports  # the user's port is kept
    assert sim.ports[user_port["id"]]["device_id"] == ""


def test_virtual_interfaces_follow_the_ports(sim, napi, ctx, make_instance):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    inst = make_instance()
    reqs = requests((net["id"], None, None))
    reqs.objects[0].tag = "nic1"
    info = napi.allocate_for_instance(ctx, inst, reqs)
    vifs = objects.VirtualInterfaceList.get_by_instance_uuid(ctx, inst.uuid)
    assert [(v.uuid, v.address, v.tag) for v in vifs] == [
        (info[0]["id"], info[0]["address"], "nic1")]
    napi.deallocate_for_instance(ctx, inst)
    assert len(objects.VirtualInterfaceList.get_by_instance_uuid(
        ctx, inst.uuid)) == 0


def test_external_network_needs_the_attach_rule(sim, napi, ctx,
                                                make_instance):
    from keel import context as keel_context
    ext = sim.add_network("public", "admin", external=True,
                          cidr="172.24.4.0/24")
    member = keel_context.RequestContext(user_id="u1", project_id=PROJECT,
                                         roles=["member", "reader"])
    with pytest.raises(exception.ExternalNetworkAttachForbidden):
        napi.allocate_for_instance(member, make_instance(),
                                   requests((ext["id"], None, None)))
    admin = keel_context.RequestContext(user_id="u1", project_id=PROJECT,
                                        roles=["admin"])
    info = napi.allocate_for_instance(admin, make_instance(),
                                      requests((ext["id"], None, None)))
    assert info[0]["network"]["id"] == ext["id"]


def test_list_and_show_ports(sim, napi, ctx, make_instance):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    inst = make_instance()
    info = napi.allocate_for_instance(ctx, inst,
                                      requests((net["id"], None, None)))
    ports = napi.list_ports(ctx, device_id=inst.uuid)["ports"]
    assert [p["id"] for p in ports] == [info[0]["id"]]
    assert napi.show_port(ctx, info[0]["id"])["port"]["device_id"] == \
        inst.uuid
    with pytest.raises(exception.PortNotFound):
        napi.show_port(ctx, "0b0b0b0b-0000-4000-8000-000000000000")
