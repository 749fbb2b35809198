"""Nova's Neutron proxies through the whole API stack: os-networks,
os-tenant-networks, os-security-groups (+ rules, a server's groups, the
add/removeSecurityGroup actions), os-floating-ips and os-floating-ip-pools
against the Neutron simulator, and the same APIs without a network
service. Bodies are compared with Nova's samples."""
import uuid

import pytest

from keel.clients import neutron as neutron_client
from keel.conf import CONF
from keel import context as keel_context
from keel.network import model
from keel import objects
from tests.fixtures import neutron_sim
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.functional.api.fixtures_cells import serve  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.conftest import conf  # noqa: F401

PROJECT = "6f70656e737461636b20342065766572"
TOKEN = {"X-Auth-Token": "fake:" + PROJECT}
V235 = dict(TOKEN, **{"OpenStack-API-Version": "compute 2.35"})
V236 = dict(TOKEN, **{"OpenStack-API-Version": "compute 2.36"})


@pytest.fixture
def sim():
    server = neutron_sim.NeutronSim().serve()
    CONF.set_override("endpoint_override", server.endpoint, group="neutron")
    CONF.set_override("http_retries", 0, group="neutron")
    neutron_client.reset()
    yield server
    server.stop()
    CONF.clear_override("endpoint_override", group="neutron")
    CONF.clear_override("http_retries", group="neutron")
    neutron_client.reset()


def _shape(body, sample):
    return samples.shape_differences(body, samples.load(sample))


def _server(sim_ports=(), project=PROJECT):
    """An ACTIVE server in cell1 with the given Neutron ports."""
    ctx = keel_context.get_admin_context()
    cell = objects.CellMapping.get_by_uuid(ctx, CELL1_UUID)
    inst_uuid = str(uuid.uuid4())
    objects.InstanceMapping(ctx, instance_uuid=inst_uuid, cell_mapping=cell,
                            project_id=project, user_id="fake").create()
    with keel_context.target_cell(ctx, cell) as cctxt:
        objects.Instance(cctxt, uuid=inst_uuid, project_id=project,
                         user_id="fake", vm_state="active", power_state=1,
                         display_name="vm", availability_zone="nova",
                         info_cache=objects.InstanceInfoCache(
                             network_info=[])).create()
    for port in sim_ports:
        port["device_id"] = inst_uuid
        port["device_owner"] = "compute:nova"
    return inst_uuid


# -- os-networks, os-tenant-networks ---------------------------------------

def test_networks_from_neutron(api_env, sim):  # noqa: F811
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    body = call(api_env, "/v2.1/os-networks", headers=V235).json
    assert _shape(body, "os-networks/networks-list-resp.json") == []
    assert body["networks"][0]["id"] == net["id"]
    assert body["networks"][0]["label"] == "private"
    show = call(api_env, "/v2.1/os-networks/" + net["id"], headers=V235)
    assert _shape(show.json, "os-networks/network-show-resp.json") == []
    missing = call(api_env, "/v2.1/os-networks/" + str(uuid.uuid4()),
                   headers=V235)
    assert missing.status_int == 404
    assert missing.json["itemNotFound"]["message"] == "Network not found"
    tenant = call(api_env, "/v2.1/os-tenant-networks", headers=V235).json
    assert tenant == {"networks": [{"id": net["id"], "cidr": "None",
                                    "label": "private"}]}
    assert call(api_env, "/v2.1/os-networks", headers=V236).status_int == 404
    # [api]/use_neutron_default_nets adds a default project's networks.
    shared = sim.add_network("shared-default", "default")
    CONF.set_override("use_neutron_default_nets", True, group="api")
    try:
        tenant = call(api_env, "/v2.1/os-tenant-networks", headers=V235).json
    finally:
        CONF.clear_override("use_neutron_default_nets", group="api")
    assert [n["id"] for n in tenant["networks"]][-1] == shared["id"]


def test_networks_member_sees_only_id_and_label(member_env, sim):  # noqa
    sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    body = call(member_env, "/v2.1/os-networks", headers=V235).json
    assert set(body["networks"][0]) == {
        "id", "cidr", "netmask", "gateway", "broadcast", "dns1", "dns2",
        "cidr_v6", "gateway_v6", "label", "netmask_v6"}


def test_networks_without_neutron(api_env):  # noqa: F811
    assert call(api_env, "/v2.1/os-networks", headers=V235).json == {
        "networks": []}
    assert call(api_env, "/v2.1/os-tenant-networks/x",
                headers=V235).status_int == 404


# -- os-security-groups ----------------------------------------------------

def test_security_group_lifecycle(api_env, sim):  # noqa: F811
    created = call(api_env, "/v2.1/os-security-groups", "POST", V235,
                   {"security_group": {"name": "web", "description": "w"}})
    assert created.status_int == 200
    group = created.json["security_group"]
    assert _shape(created.json,
                  "os-security-groups/security-groups-create-resp.json") == []
    assert group["tenant_id"] == PROJECT and group["rules"] == []

    rule = call(api_env, "/v2.1/os-security-group-rules", "POST", V235,
                {"security_group_rule": {
                    "parent_group_id": group["id"], "ip_protocol": "tcp",
                    "from_port": 22, "to_port": 22,
                    "cidr": "10.0.0.0/24"}})
    assert rule.status_int == 200
    assert _shape(rule.json, "os-security-groups/"
                  "security-group-rules-post-resp.json") == []
    assert rule.json["security_group_rule"]["ip_range"] == {
        "cidr": "10.0.0.0/24"}
    # The same rule again: Nova refuses it itself (400).
    again = call(api_env, "/v2.1/os-security-group-rules", "POST", V235,
                 {"security_group_rule": {
                     "parent_group_id": group["id"], "ip_protocol": "tcp",
                     "from_port": 22, "to_port": 22,
                     "cidr": "10.0.0.0/24"}})
    assert again.status_int == 400
    assert "already exists" in again.json["badRequest"]["message"]
    # A rule from another group names that group.
    other = call(api_env, "/v2.1/os-security-groups", "POST", V235,
                 {"security_group": {"name": "db", "description": ""}}).json
    by_group = call(api_env, "/v2.1/os-security-group-rules", "POST", V235,
                    {"security_group_rule": {
                        "parent_group_id": other["security_group"]["id"],
                        "group_id": group["id"], "ip_protocol": "tcp",
                        "from_port": 5432, "to_port": 5432}}).json
    assert by_group["security_group_rule"]["group"] == {
        "name": "web", "tenant_id": PROJECT}

    listed = call(api_env, "/v2.1/os-security-groups", headers=V235).json
    assert [g["name"] for g in listed["security_groups"]] == [
        "db", "default", "web"]
    assert _shape({"security_groups": listed["security_groups"][1:2]},
                  "os-security-groups/security-groups-list-get-resp.json") \
        == []
    shown = call(api_env, "/v2.1/os-security-groups/" + group["id"],
                 headers=V235).json["security_group"]
    assert [r["from_port"] for r in shown["rules"]] == [22]

    updated = call(api_env, "/v2.1/os-security-groups/" + group["id"],
                   "PUT", V235, {"security_group": {"name": "www",
                                                    "description": "x"}})
    assert updated.json["security_group"]["name"] == "www"
    rule_id = rule.json["security_group_rule"]["id"]
    assert call(api_env, "/v2.1/os-security-group-rules/" + rule_id,
                "DELETE", V235).status_int == 202
    assert call(api_env, "/v2.1/os-security-groups/" + group["id"],
                "DELETE", V235).status_int == 202
    assert call(api_env, "/v2.1/os-security-groups/" + group["id"],
                headers=V235).status_int == 404


@pytest.mark.parametrize("rule,message", [
    ({"ip_protocol": "tcp", "from_port": 30, "to_port": 20},
     "Former value cannot be greater than the later"),
    ({"ip_protocol": "xyz", "from_port": 1, "to_port": 2},
     "Invalid IP protocol xyz."),
    ({"ip_protocol": "tcp", "from_port": 1, "to_port": 2,
      "cidr": "10.0.0.1/0"}, "Bad prefix for network in cidr 10.0.0.1/0"),
    ({"ip_protocol": "tcp", "from_port": 1, "to_port": 2, "cidr": "bad"},
     "bad is not a valid IP network."),
    ({"cidr": "10.0.0.0/8"}, "Not enough parameters to build a valid rule."),
])
def test_bad_rules_are_400(api_env, sim, rule, message):  # noqa: F811
    group = sim._new_sg({"name": "web", "tenant_id": PROJECT})
    resp = call(api_env, "/v2.1/os-security-group-rules", "POST", V235,
                {"security_group_rule": dict(rule,
                                             parent_group_id=group["id"])})
    assert resp.status_int == 400
    assert message in resp.json["badRequest"]["message"]


def test_security_group_errors(api_env, sim):  # noqa: F811
    assert call(api_env, "/v2.1/os-security-groups/not-a-uuid",
                headers=V235).status_int == 400
    assert call(api_env, "/v2.1/os-security-groups/" + str(uuid.uuid4()),
                headers=V235).status_int == 404
    long_name = call(api_env, "/v2.1/os-security-groups", "POST", V235,
                     {"security_group": {"name": "x" * 256,
                                         "description": "d"}})
    assert long_name.status_int == 400
    sim.quotas[PROJECT] = {"security_group": 1}
    call(api_env, "/v2.1/os-security-groups", headers=V235)  # default made
    over = call(api_env, "/v2.1/os-security-groups", "POST", V235,
                {"security_group": {"name": "x", "description": ""}})
    assert over.status_int == 403


def test_server_security_groups_and_actions(api_env, sim):  # noqa: F811
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    port = sim._new_port({"network_id": net["id"], "tenant_id": PROJECT})
    server = _server([port])
    web = sim._new_sg({"name": "web", "tenant_id": PROJECT})
    url = "/v2.1/servers/%s" % server
    listed = call(api_env, url + "/os-security-groups", headers=TOKEN).json
    assert [g["name"] for g in listed["security_groups"]] == ["default"]
    assert _shape(listed, "os-security-groups/"
                  "server-security-groups-list-resp.json") == []

    add = call(api_env, url + "/action", "POST", TOKEN,
               {"addSecurityGroup": {"name": "web"}})
    assert add.status_int == 202
    assert web["id"] in sim.ports[port["id"]]["security_groups"]
    assert call(api_env, url + "/action", "POST", TOKEN,
                {"addSecurityGroup": {"name": "nope"}}).status_int == 404
    remove = call(api_env, url + "/action", "POST", TOKEN,
                  {"removeSecurityGroup": {"name": "web"}})
    assert remove.status_int == 202
    assert web["id"] not in sim.ports[port["id"]]["security_groups"]
    again = call(api_env, url + "/action", "POST", TOKEN,
                 {"removeSecurityGroup": {"name": "web"}})
    assert again.status_int == 400
    # A server without ports has no groups to change.
    bare = "/v2.1/servers/%s/action" % _server()
    assert call(api_env, bare, "POST", TOKEN,
                {"addSecurityGroup": {"name": "web"}}).status_int == 404


def test_security_groups_without_neutron(api_env):  # noqa: F811
    listed = call(api_env, "/v2.1/os-security-groups", headers=V235).json
    assert [g["name"] for g in listed["security_groups"]] == ["default"]
    default_id = listed["security_groups"][0]["id"]
    assert call(api_env, "/v2.1/os-security-groups/" + default_id,
                headers=V235).status_int == 200
    made = call(api_env, "/v2.1/os-security-groups", "POST", V235,
                {"security_group": {"name": "web", "description": ""}})
    assert made.status_int == 400
    assert "not configured" in made.json["badRequest"]["message"]
    assert call(api_env, "/v2.1/os-security-groups/" + default_id,
                "DELETE", V235).status_int == 400
    server = _server()
    assert call(api_env, "/v2.1/servers/%s/os-security-groups" % server,
                headers=TOKEN).json == {"security_groups": []}


# -- os-floating-ips, os-floating-ip-pools ------------------------------------

def test_floating_ips(api_env, sim):  # noqa: F811
    public = sim.add_network("public", "admin", external=True,
                             cidr="172.24.4.0/24")
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    pools = call(api_env, "/v2.1/os-floating-ip-pools", headers=V235).json
    assert pools == {"floating_ip_pools": [{"name": "public"}]}

    assert call(api_env, "/v2.1/os-floating-ips", headers=V235).json == {
        "floating_ips": []}
    made = call(api_env, "/v2.1/os-floating-ips", "POST", V235,
                {"pool": "public"})
    assert made.status_int == 200
    assert _shape(made.json,
                  "os-floating-ips/floating-ips-create-resp.json") == []
    fip = made.json["floating_ip"]
    assert fip["pool"] == "public" and fip["instance_id"] is None
    assert call(api_env, "/v2.1/os-floating-ips", "POST", V235,
                {"pool": "nope"}).status_int == 404
    CONF.set_override("default_floating_pool", "public", group="neutron")
    try:
        assert call(api_env, "/v2.1/os-floating-ips", "POST", V235,
                    None).status_int == 200
    finally:
        CONF.clear_override("default_floating_pool", group="neutron")

    # Associate with a server (2.43 at most), see it in the addresses.
    port = sim._new_port({"network_id": net["id"], "tenant_id": PROJECT,
                          "binding:host_id": "h"})
    server = _server([port])
    ctx = keel_context.get_admin_context()
    cell = objects.CellMapping.get_by_uuid(ctx, CELL1_UUID)
    with keel_context.target_cell(ctx, cell) as cctxt:
        from keel.network import api as network_api
        inst = objects.Instance.get_by_uuid(cctxt, server,
                                            expected_attrs=["info_cache"])
        network_api.get_api().get_instance_nw_info(cctxt, inst)
    action = "/v2.1/servers/%s/action" % server
    v243 = dict(TOKEN, **{"OpenStack-API-Version": "compute 2.43"})
    assert call(api_env, action, "POST", v243, {"addFloatingIp": {
        "address": fip["ip"]}}).status_int == 202
    shown = call(api_env, "/v2.1/os-floating-ips/" + fip["id"],
                 headers=V235).json["floating_ip"]
    assert shown["instance_id"] == server
    assert shown["fixed_ip"] == port["fixed_ips"][0]["ip_address"]
    addresses = call(api_env, "/v2.1/servers/" + server,
                     headers=TOKEN).json["server"]["addresses"]
    assert [a["OS-EXT-IPS:type"] for a in addresses["private"]] == [
        "fixed", "floating"]
    v244 = dict(TOKEN, **{"OpenStack-API-Version": "compute 2.44"})
    assert call(api_env, action, "POST", v244, {"removeFloatingIp": {
        "address": fip["ip"]}}).status_int == 404
    assert call(api_env, action, "POST", v243, {"removeFloatingIp": {
        "address": fip["ip"]}}).status_int == 202
    assert call(api_env, action, "POST", v243, {"removeFloatingIp": {
        "address": fip["ip"]}}).status_int == 409

    assert call(api_env, "/v2.1/os-floating-ips/" + fip["id"], "DELETE",
                V235).status_int == 202
    assert call(api_env, "/v2.1/os-floating-ips/" + fip["id"],
                headers=V235).status_int == 404
    assert call(api_env, "/v2.1/os-floating-ips/bad-id",
                headers=V235).status_int == 400


def test_floating_ips_without_neutron(api_env):  # noqa: F811
    assert call(api_env, "/v2.1/os-floating-ips", headers=V235).json == {
        "floating_ips": []}
    assert call(api_env, "/v2.1/os-floating-ip-pools",
                headers=V235).json == {"floating_ip_pools": []}
    made = call(api_env, "/v2.1/os-floating-ips", "POST", V235, {})
    assert made.status_int == 404
    assert made.json["itemNotFound"]["message"] == \
        "Floating IP pool not found."


def test_network_model_in_cache_matches_view():
    # The cache JSON written above is Nova's; make sure the model reads it.
    info = model.NetworkInfo.hydrate("[]")
    assert info == [] and info.json() == "[]"


def test_openstacksdk_server_groups_and_floating_ip(api_env, sim,  # noqa
                                                    serve):  # noqa: F811
    """openstacksdk's server calls for security groups work against the
    proxies; its floating IP actions meet Nova's 2.44 removal."""
    import openstack
    public = sim.add_network("public", "admin", external=True,
                             cidr="172.24.4.0/24")
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/24")
    port = sim._new_port({"network_id": net["id"], "tenant_id": PROJECT})
    server_id = _server([port])
    web = sim._new_sg({"name": "web", "tenant_id": PROJECT})
    fip = sim._create_floatingip({"floating_network_id": public["id"],
                                  "tenant_id": PROJECT})
    ctx = keel_context.get_admin_context()
    cell = objects.CellMapping.get_by_uuid(ctx, CELL1_UUID)
    with keel_context.target_cell(ctx, cell) as cctxt:
        from keel.network import api as network_api
        inst = objects.Instance.get_by_uuid(cctxt, server_id,
                                            expected_attrs=["info_cache"])
        network_api.get_api().get_instance_nw_info(cctxt, inst)
    url = serve(api_env)
    from keystoneauth1 import session as ks_session
    from keystoneauth1 import token_endpoint
    # The development auth takes the project from "user:project" tokens.
    sess = ks_session.Session(auth=token_endpoint.Token(
        f"{url}/v2.1/", "fake:" + PROJECT))
    conn = openstack.connection.Connection(
        session=sess, compute_endpoint_override=f"{url}/v2.1/",
        compute_api_version="2")
    try:
        server = conn.compute.get_server(server_id)
        conn.compute.add_security_group_to_server(server, web)
        groups = conn.compute.fetch_server_security_groups(server)
        assert {g["name"] for g in groups.security_groups} == {
            "default", "web"}
        conn.compute.remove_security_group_from_server(server, web)
        # The SDK sends its newest microversion: past 2.43 the floating IP
        # actions are gone, as in Nova (404), and nothing changes.
        with pytest.raises(openstack.exceptions.NotFoundException):
            conn.compute.add_floating_ip_to_server(
                server, fip["floating_ip_address"])
        assert sim.floatingips[fip["id"]]["port_id"] is None
    finally:
        conn.close()


def test_reader_reads_but_cannot_write(cells_db, conf, sim):  # noqa: F811
    from keel.api import deploy
    conf.config(auth_strategy="keel-development", group="api")
    conf.config(development_roles=["reader"], group="api")
    app = deploy.deploy(CONF)
    assert call(app, "/v2.1/os-security-groups", headers=V235).status_int \
        == 200
    denied = call(app, "/v2.1/os-security-groups", "POST", V235,
                  {"security_group": {"name": "x", "description": ""}})
    assert denied.status_int == 403
    assert call(app, "/v2.1/os-floating-ips", "POST", V235,
                {}).status_int == 403


def test_unreachable_neutron_is_503_not_500(api_env):  # noqa: F811
    CONF.set_override("endpoint_override", "http://127.0.0.1:9",
                      group="neutron")
    CONF.set_override("http_retries", 0, group="neutron")
    neutron_client.reset()
    try:
        resp = call(api_env, "/v2.1/os-security-groups", headers=V235)
    finally:
        CONF.clear_override("endpoint_override", group="neutron")
        CONF.clear_override("http_retries", group="neutron")
        neutron_client.reset()
    assert resp.status_int == 503
    assert "Connection to neutron failed" in \
        resp.json["serviceUnavailable"]["message"]
