import pytest

from keel import exception
from keel.scheduler import request_filter as rf
from keel.scheduler import resource_request
from tests.unit.scheduler.conftest import make_aggregate
from tests.unit.scheduler.conftest import make_spec


def run(spec, aggregates):
    calls = []

    def load():
        calls.append(1)
        return aggregates
    rf.process_request_spec(None, spec, load)
    return resource_request.ResourceRequest.from_request_spec(
        spec).to_query(), calls


def test_defaults_forbid_disabled_computes_and_read_no_aggregates():
    q, calls = run(make_spec(), [])
    assert q["root_required"] == "!COMPUTE_STATUS_DISABLED"
    assert "member_of" not in q
    assert calls == []          # no AZ, no tenant filtering: no query


def test_availability_zone_maps_to_its_aggregates():
    a = make_aggregate({"availability_zone": "az1"})
    b = make_aggregate({"availability_zone": "az1"})
    other = make_aggregate({"availability_zone": "az2"})
    q, _ = run(make_spec(az="az1"), [a, b, other])
    assert q["member_of"] == "in:" + ",".join(sorted([a.uuid, b.uuid]))


def test_availability_zone_query_can_be_disabled(override):
    override("query_placement_for_availability_zone", False, "scheduler")
    q, _ = run(make_spec(az="az1"),
               [make_aggregate({"availability_zone": "az1"})])
    assert "member_of" not in q


def test_tenant_isolation(override):
    override("limit_tenants_to_placement_aggregate", True, "scheduler")
    mine = make_aggregate({"filter_tenant_id": "p1"})
    mine2 = make_aggregate({"filter_tenant_id2": "p1"})
    theirs = make_aggregate({"filter_tenant_id": "p2"})
    q, _ = run(make_spec(project_id="p1"), [mine, mine2, theirs])
    assert q["member_of"] == "in:" + ",".join(sorted([mine.uuid,
                                                      mine2.uuid]))
    q, _ = run(make_spec(project_id="p3"), [mine, theirs])
    assert "member_of" not in q
    override("placement_aggregate_required_for_tenants", True, "scheduler")
    with pytest.raises(exception.RequestFilterFailed) as info:
        run(make_spec(project_id="p3"), [mine, theirs])
    assert "No hosts available for tenant" in str(info.value)


def test_image_type_support(override):
    override("query_placement_for_image_type_support", True, "scheduler")
    q, _ = run(make_spec(image={"disk_format": "qcow2"}), [])
    assert q["root_required"] == \
        "COMPUTE_IMAGE_TYPE_QCOW2,!COMPUTE_STATUS_DISABLED"
    q, _ = run(make_spec(image={"disk_format": "qcow2"}, is_bfv=True), [])
    assert q["root_required"] == "!COMPUTE_STATUS_DISABLED"


def test_isolated_aggregates(override):
    override("enable_isolated_aggregate_filtering", True, "scheduler")
    gold = make_aggregate({"trait:CUSTOM_GOLD": "required"})
    plain = make_aggregate({"foo": "bar"})
    q, _ = run(make_spec(), [gold, plain])
    assert q["member_of"] == "!in:" + gold.uuid
    q, _ = run(make_spec(extra_specs={"trait:CUSTOM_GOLD": "required"}),
               [gold, plain])
    assert "member_of" not in q
