"""keel's Neutron REST client against the Neutron simulator."""
import pytest

from keel.clients import neutron
from keel.conf import CONF
from keel import context as keel_context
from tests.fixtures import neutron_sim


@pytest.fixture
def sim():
    server = neutron_sim.NeutronSim().serve()
    CONF.set_override("endpoint_override", server.endpoint, group="neutron")
    neutron.reset()
    yield server
    server.stop()
    CONF.clear_override("endpoint_override", group="neutron")
    neutron.reset()


def test_configured_by_endpoint_or_auth_type(sim):
    assert neutron.is_configured(CONF)


def test_filters_errors_and_request_id(sim):
    ctx = keel_context.RequestContext(user_id="u", project_id="p",
                                      request_id="req-1234")
    a = sim.add_network("a", "p", cidr="10.0.0.0/24")
    sim.add_network("b", "p", shared=True)
    client = neutron.get_client(ctx)
    # List filters are query parameters; booleans and lists as Neutron's.
    assert [n["name"] for n in client.list_networks(shared=False)] == ["a"]
    assert [n["id"] for n in client.list_networks(id=[a["id"], "x"])] == [
        a["id"]]
    assert set(client.list_networks(fields=["id"])[0]) == {"id"}
    assert sim.headers[-1]["x-openstack-request-id"] == "req-1234"
    # Neutron's error body gives the status and its type.
    with pytest.raises(neutron.NeutronClientException) as err:
        client.show_port("nope")
    assert err.value.status_code == 404 and err.value.type == "PortNotFound"


def test_user_token_for_users_service_credentials_for_admin(sim):
    # A configuration of its own: the password plugin's options (with a
    # required auth_url) must not leak into the process-wide CONF.
    from keystoneauth1 import loading as ks_loading
    from oslo_config import cfg
    from keel.conf import neutron as neutron_conf
    own = cfg.ConfigOpts()
    neutron_conf.register_opts(own)
    own.register_opts(ks_loading.get_auth_plugin_conf_options("password"),
                      group="neutron")
    own.set_override("auth_type", "password", group="neutron")
    own.set_override("auth_url", "http://127.0.0.1:9/identity",
                     group="neutron")
    own.set_override("endpoint_override", sim.endpoint, group="neutron")
    own([], project="nova", default_config_files=[])
    neutron.reset()
    try:
        ctx = keel_context.RequestContext(user_id="u", project_id="p",
                                          auth_token="user-token")
        neutron.get_client(ctx, conf=own).list_networks()
        assert sim.headers[-1]["x-auth-token"] == "user-token"
    finally:
        neutron.reset()
