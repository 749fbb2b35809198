"""Security group helpers for server views: names per server from Neutron,
in a bounded number of calls."""
from keel.network import security_groups
from tests.unit.network.conftest import PROJECT


def test_bindings_for_many_servers_in_two_calls(sim, ctx):
    net = sim.add_network("private", PROJECT, cidr="10.0.0.0/16")
    web = sim._new_sg({"name": "web", "tenant_id": PROJECT})
    default = sim.default_group(PROJECT)
    servers = ["srv-%03d" % i for i in range(40)]
    for i, server in enumerate(servers):
        groups = [default["id"], web["id"]] if i % 2 else [default["id"]]
        sim._new_port({"network_id": net["id"], "tenant_id": PROJECT,
                       "device_id": server, "security_groups": groups})
    del sim.requests[:]
    api = security_groups.get_api()
    bindings = api.get_instances_security_groups_bindings(
        ctx, servers + ["no-ports"])
    assert len(sim.requests) == 2
    assert bindings["srv-000"] == [{"name": "default"}]
    assert bindings["srv-001"] == [{"name": "default"}, {"name": "web"}]
    assert "no-ports" not in bindings


def test_local_has_no_bindings(ctx):
    api = security_groups.get_api()
    assert isinstance(api, security_groups.LocalSecurityGroupAPI)
    assert api.get_instances_security_groups_bindings(ctx, ["x"]) == {}
