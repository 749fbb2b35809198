"""A whole boot with Neutron (the simulator): openstacksdk POST /servers on
a network → the API validates it against Neutron → the compute host
creates and binds the port → the server shows the port's address; the
proxies see the same port; DELETE removes the port."""
import openstack
import pytest

from keel.clients import neutron as neutron_client
from keel.conf import CONF
from tests.fixtures import neutron_sim
from tests.functional.boot.helpers import IMAGE_ID
from tests.functional import fixtures_services
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for

# keystoneauth's "none" plugin sends the token "notused", which the
# development auth reads as user and project "notused".
PROJECT = "notused"


@pytest.fixture(scope="module")
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


@pytest.fixture(scope="module")
def catalogue(sim, cloud, tmp_path_factory):  # noqa: F811
    with fixtures_services.image_and_flavors(
            tmp_path_factory.mktemp("images"), IMAGE_ID, {"net.small": 1}):
        yield


@pytest.fixture
def conn(http_endpoint, catalogue):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    yield conn
    conn.close()


def test_boot_on_a_neutron_network_then_delete(cloud, sim, conn):  # noqa
    net = sim.add_network("private", PROJECT, cidr="10.20.0.0/24")
    server = conn.compute.create_server(
        name="net-1", image_id=IMAGE_ID, flavor_id="net.small",
        networks=[{"uuid": net["id"]}])
    server = conn.compute.wait_for_server(server, status="ACTIVE",
                                          interval=0.1, wait=30)
    ports = [p for p in sim.ports.values() if p["device_id"] == server.id]
    assert len(ports) == 1
    port = ports[0]
    assert port["binding:host_id"] == server.compute_host
    assert port["device_owner"].startswith("compute:")
    address = port["fixed_ips"][0]["ip_address"]
    addresses = server.addresses["private"]
    assert [(a["addr"], a["OS-EXT-IPS:type"], a["OS-EXT-IPS-MAC:mac_addr"])
            for a in addresses] == [(address, "fixed",
                                     port["mac_address"])]
    groups = conn.compute.fetch_server_security_groups(server)
    assert [g["name"] for g in groups.security_groups] == ["default"]

    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.1, wait=30)
    assert wait_for(lambda: port["id"] not in sim.ports, timeout=10)


def test_boot_on_an_unknown_network_is_400(cloud, sim, conn):  # noqa
    with pytest.raises(openstack.exceptions.BadRequestException) as err:
        conn.compute.create_server(
            name="net-x", image_id=IMAGE_ID, flavor_id="net.small",
            networks=[{"uuid": "3f5e0c55-0000-4000-8000-000000000000"}])
    assert "could not be found" in str(err.value)


def test_boot_with_the_users_port_keeps_it(cloud, sim, conn):  # noqa
    net = sim.add_network("mine", PROJECT, cidr="10.21.0.0/24")
    port = sim._new_port({"network_id": net["id"], "tenant_id": PROJECT})
    server = conn.compute.create_server(
        name="net-port", image_id=IMAGE_ID, flavor_id="net.small",
        networks=[{"port": port["id"]}])
    server = conn.compute.wait_for_server(server, status="ACTIVE",
                                          interval=0.1, wait=30)
    assert sim.ports[port["id"]]["device_id"] == server.id
    # The port is taken now: a second server cannot have it (409).
    with pytest.raises(openstack.exceptions.ConflictException):
        conn.compute.create_server(
            name="net-port-2", image_id=IMAGE_ID, flavor_id="net.small",
            networks=[{"port": port["id"]}])
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.1, wait=30)
    assert wait_for(lambda: sim.ports[port["id"]]["device_id"] == "",
                    timeout=10)
    assert sim.ports[port["id"]]["binding:host_id"] == ""


def test_boot_auto_network_and_named_security_group(cloud, sim,  # noqa
                                                    http_endpoint,  # noqa
                                                    catalogue):
    # A project with no network of its own: 'auto' makes one (Neutron's
    # get-me-a-network); with two visible networks it would be ambiguous.
    from keystoneauth1 import session as ks_session
    from keystoneauth1 import token_endpoint
    project = "autoproject"
    sess = ks_session.Session(auth=token_endpoint.Token(
        http_endpoint + "/", "u:" + project))
    conn = openstack.connection.Connection(
        session=sess, compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    sim.auto_allocate_possible = True
    web = sim._new_sg({"name": "web", "tenant_id": project})
    server = conn.compute.create_server(
        name="net-auto", image_id=IMAGE_ID, flavor_id="net.small",
        networks="auto", security_groups=[{"name": "web"}])
    server = conn.compute.wait_for_server(server, status="ACTIVE",
                                          interval=0.1, wait=30)
    port = next(p for p in sim.ports.values()
                if p["device_id"] == server.id)
    assert sim.networks[port["network_id"]]["name"] == \
        "auto_allocated_network"
    assert port["security_groups"] == [web["id"]]
    assert list(server.addresses) == ["auto_allocated_network"]
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.1, wait=30)
    conn.close()
