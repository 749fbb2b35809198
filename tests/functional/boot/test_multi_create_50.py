"""A multi-create of 50 servers in an anti-affinity group over 50 hosts
lands exactly one per host (issue 4), through openstacksdk, the API, the
conductor, the scheduler with the real Placement and 50 fake computes in
one process; a 51st member finds no valid host."""
import openstack
import pytest

from keel.conf import CONF
from tests.functional.boot.conftest import allocations
from tests.functional.boot.helpers import IMAGE_ID
from tests.functional import fixtures_services
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for

HOSTS = 50


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    cloud, launcher = fixtures_services.start_cloud(
        tmp_path_factory.mktemp("cloud50"), count=HOSTS)
    # 51 servers of one project, all in one group.
    for resource in ("instances", "cores", "ram", "server_group_members"):
        CONF.set_override(resource, -1, "quota")
    try:
        with fixtures_services.image_and_flavors(
                tmp_path_factory.mktemp("images"), IMAGE_ID,
                {"mc.small": 1}):
            yield cloud
    finally:
        for resource in ("instances", "cores", "ram", "server_group_members"):
            CONF.clear_override(resource, "quota")
        fixtures_services.stop_cloud(launcher)


@pytest.fixture
def conn(http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2.90")
    yield conn
    conn.close()


def test_fifty_members_of_an_anti_affinity_group_one_per_host(cloud, conn):
    group = conn.compute.create_server_group(name="spread50",
                                             policy="anti-affinity")
    hints = {"group": group.id}
    conn.compute.create_server(
        name="spread", image_id=IMAGE_ID, flavor_id="mc.small",
        networks="none", min_count=HOSTS, max_count=HOSTS,
        scheduler_hints=hints)
    members = wait_for(lambda: (lambda ids: len(ids) == HOSTS and ids)(
        conn.compute.get_server_group(group.id).member_ids), timeout=30)

    def all_active():
        servers = [s for s in conn.compute.servers(details=True)
                   if s.id in members]
        assert not [s for s in servers if s.status == "ERROR"], \
            [(s.id, s.fault) for s in servers if s.status == "ERROR"]
        return len(servers) == HOSTS and \
            all(s.status == "ACTIVE" for s in servers) and servers
    servers = wait_for(all_active, timeout=180, interval=0.5)
    assert servers, "the 50 servers did not all become ACTIVE"
    hosts = [s.compute_host for s in servers]
    assert sorted(hosts) == sorted(cloud.hosts)     # one on each host
    for server in servers[:5]:
        node = cloud.nodes(server.compute_host)[0].uuid
        assert list(allocations(cloud, server.id)) == [node]

    third = conn.compute.create_server(
        name="spread-51", image_id=IMAGE_ID, flavor_id="mc.small",
        networks="none", scheduler_hints=hints)
    third = conn.compute.wait_for_server(third, status="ERROR",
                                         failures=[], interval=0.2, wait=30)
    assert third.fault["message"].startswith("No valid host was found.")
