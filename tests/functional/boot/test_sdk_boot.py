"""openstacksdk against the whole path: POST /servers → super-conductor →
scheduler/Placement → cell → compute, then DELETE."""
import threading

import openstack
import pytest

from tests.functional.boot.conftest import allocations
from tests.functional.boot.helpers import IMAGE_ID
from tests.functional import fixtures_services
from tests.functional.fixtures_services import wait_for


@pytest.fixture(scope="module")
def catalogue(cloud, tmp_path_factory):
    """One image in the local catalogue and two flavors; the second asks
    for more disk than any host has (disk is not under quota)."""
    with fixtures_services.image_and_flavors(
            tmp_path_factory.mktemp("images"), IMAGE_ID,
            {"sdk.small": 1, "sdk.huge": 10 ** 7}):
        yield


@pytest.fixture
def conn(http_endpoint, catalogue):
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    yield conn
    conn.close()


def test_sdk_boot_active_then_delete_frees_placement(cloud, conn):
    server = conn.compute.create_server(
        name="sdk-1", image_id=IMAGE_ID, flavor_id="sdk.small",
        networks="none", tags=["sdk"])
    server = conn.compute.wait_for_server(server, status="ACTIVE",
                                          interval=0.1, wait=30)
    assert server.compute_host in cloud.hosts
    node = cloud.nodes(server.compute_host)[0].uuid
    assert list(allocations(cloud, server.id)) == [node]
    actions = list(conn.compute.server_actions(server))
    assert [a.action for a in actions] == ["create"]

    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.1, wait=30)
    assert wait_for(lambda: allocations(cloud, server.id) == {}, timeout=10)


def test_sdk_boot_without_room_is_error_with_the_fault(cloud, conn):
    server = conn.compute.create_server(
        name="sdk-huge", image_id=IMAGE_ID, flavor_id="sdk.huge",
        networks="none")
    server = conn.compute.wait_for_server(server, status="ERROR",
                                          failures=[], interval=0.1,
                                          wait=30)
    assert server.fault["message"].startswith("No valid host was found.")
    assert allocations(cloud, server.id) == {}
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.1, wait=30)


def test_sdk_delete_while_scheduling_builds_nothing(cloud, conn,
                                                    monkeypatch):
    scheduling = threading.Event()
    release = threading.Event()
    real_select = cloud.scheduler.driver.select_destinations

    def held_select(*args, **kwargs):
        result = real_select(*args, **kwargs)
        scheduling.set()
        release.wait(10)
        return result
    monkeypatch.setattr(cloud.scheduler.driver, "select_destinations",
                        held_select)

    server = conn.compute.create_server(
        name="sdk-racy", image_id=IMAGE_ID, flavor_id="sdk.small",
        networks="none")
    assert scheduling.wait(10), "the scheduler was never asked"
    # The claim exists, the server is still a BuildRequest: the API
    # deletes that; the conductor must notice at its commit point.
    assert allocations(cloud, server.id) != {}
    conn.compute.delete_server(server)
    release.set()

    conn.compute.wait_for_delete(server, interval=0.1, wait=30)
    assert wait_for(lambda: allocations(cloud, server.id) == {}, timeout=10)
    for svc in cloud.services:
        if svc.binary == "nova-compute":
            assert server.id not in svc.manager.driver.list_instance_uuids()


def test_sdk_anti_affinity_group_spreads_then_runs_out(cloud, conn):
    group = conn.compute.create_server_group(name="spread",
                                             policy="anti-affinity")
    hints = {"group": group.id}
    conn.compute.create_server(
        name="spread", image_id=IMAGE_ID, flavor_id="sdk.small",
        networks="none", min_count=2, max_count=2, scheduler_hints=hints)
    members = wait_for(lambda: len(conn.compute.get_server_group(
        group.id).member_ids) == 2 and conn.compute.get_server_group(
        group.id).member_ids, timeout=10)
    servers = [conn.compute.wait_for_server(
        conn.compute.get_server(m), status="ACTIVE", interval=0.1, wait=30)
        for m in members]
    assert sorted(s.compute_host for s in servers) == sorted(cloud.hosts)

    # Every host has a member now: the scheduler, given the group's hosts
    # by the conductor, finds none for a third.
    third = conn.compute.create_server(
        name="spread-3", image_id=IMAGE_ID, flavor_id="sdk.small",
        networks="none", scheduler_hints=hints)
    third = conn.compute.wait_for_server(third, status="ERROR",
                                         failures=[], interval=0.1, wait=30)
    assert third.fault["message"].startswith("No valid host was found.")
    for server in servers + [third]:
        conn.compute.delete_server(server)
    for server in servers + [third]:
        conn.compute.wait_for_delete(server, interval=0.1, wait=30)
