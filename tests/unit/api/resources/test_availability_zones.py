"""os-availability-zone: zones from aggregates and services of every
cell, the default zone for computes outside any, the internal zone."""
import pytest

from keel import context as keel_context
from keel import objects
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api.conftest import call
from tests.unit.api import samples

URL = "/v2.1/os-availability-zone"


def add_service(cells, host, binary, disabled=False,
                cell_uuid=CELL1_UUID):
    ctx = keel_context.get_admin_context()
    with keel_context.target_cell(ctx, cells.mapping(cell_uuid)) as cctxt:
        objects.Service(cctxt, host=host, binary=binary,
                        topic=binary.split("-", 1)[1],
                        disabled=disabled).create()


def add_aggregate(name, zone, *hosts):
    ctx = keel_context.get_admin_context()
    agg = objects.Aggregate(ctx, name=name,
                            metadata={"availability_zone": zone})
    agg.create()
    for host in hosts:
        agg.add_host(host)


@pytest.fixture
def sample_cloud(cells_db):
    add_service(cells_db, "conductor", "nova-conductor",
                cell_uuid=objects.CellMapping.CELL0_UUID)
    add_service(cells_db, "scheduler", "nova-scheduler")
    add_service(cells_db, "compute", "nova-compute")
    return cells_db


def test_list_and_detail_match_samples(api_env, sample_cloud):
    lst = call(api_env, URL)
    assert lst.status_int == 200
    assert lst.json == samples.load(
        "os-availability-zone/availability-zone-list-resp.json")
    det = call(api_env, URL + "/detail")
    expected = samples.load(
        "os-availability-zone/availability-zone-detail-resp.json")
    assert samples.shape_differences(det.json, expected) == []
    zones = {z["zoneName"]: z for z in det.json["availabilityZoneInfo"]}
    assert set(zones) == {"internal", "nova"}
    assert set(zones["internal"]["hosts"]) == {"conductor", "scheduler"}
    compute = zones["nova"]["hosts"]["compute"]["nova-compute"]
    assert compute["available"] is True and compute["active"] is True


def test_aggregate_zones_and_unavailable_zone(api_env, sample_cloud):
    add_service(sample_cloud, "c2", "nova-compute")
    add_service(sample_cloud, "c3", "nova-compute", disabled=True)
    add_aggregate("a1", "az1", "c2")
    add_aggregate("a2", "az-off", "c3")
    add_aggregate("empty", "az-empty")  # no hosts: not a zone
    lst = call(api_env, URL).json["availabilityZoneInfo"]
    assert [(z["zoneName"], z["zoneState"]["available"]) for z in lst] == \
        [("az1", True), ("nova", True), ("az-off", False)]
    det = call(api_env, URL + "/detail").json["availabilityZoneInfo"]
    by_name = {z["zoneName"]: z for z in det}
    assert list(by_name["az1"]["hosts"]) == ["c2"]
    assert by_name["az-off"]["hosts"] is None


def test_detail_is_admin_only(member_env, sample_cloud):
    headers = {"X-Auth-Token": "alice:proj-a"}
    assert call(member_env, URL, headers=headers).status_int == 200
    assert call(member_env, URL + "/detail",
                headers=headers).status_int == 403


def test_unknown_query_refused_from_2102(api_env):
    assert call(api_env, URL + "?x=1").status_int == 200
    assert call(api_env, URL + "?x=1", headers={
        "OpenStack-API-Version": "compute 2.102"}).status_int == 400
