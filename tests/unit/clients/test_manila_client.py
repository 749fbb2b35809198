"""keel's Manila client (Nova's share API) against the Manila simulator."""
import pytest

from keel.clients import manila
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from tests.fixtures import manila_sim

PROJECT = "6f70656e-6b65-656c-0000-0000000000d1"


@pytest.fixture
def sim():
    with manila_sim.configured(CONF) as server:
        yield server


@pytest.fixture
def ctx():
    return keel_context.RequestContext(user_id="u", project_id=PROJECT,
                                       request_id="req-abc")


def test_get_reads_the_share_and_its_preferred_export_location(sim, ctx):
    share = sim.add_share(PROJECT, export_paths=("10.0.0.9:/a",
                                                 "10.0.0.8:/b"))
    sim.locations[share["id"]][0]["preferred"] = False
    sim.locations[share["id"]][1]["preferred"] = True
    got = manila.API().get(ctx, share["id"])
    assert (got.id, got.status, got.share_proto, got.export_location) == (
        share["id"], "available", "NFS", "10.0.0.8:/b")
    # Nova's microversion on every call.
    assert {v for _m, _p, v in sim.requests} == {"2.82"}
    assert [p for _m, p, _v in sim.requests] == [
        "/v2/shares/%s" % share["id"],
        "/v2/shares/%s/export_locations" % share["id"]]


def test_first_path_without_a_preferred_one_and_none_without_any(sim, ctx):
    share = sim.add_share(PROJECT, export_paths=("h:/one", "h:/two"))
    sim.locations[share["id"]][0]["preferred"] = False
    assert manila.API().get(ctx, share["id"]).export_location == "h:/one"
    bare = sim.add_share(PROJECT, export_paths=())
    assert manila.API().get(ctx, bare["id"]).export_location is None


def test_unknown_share_is_share_not_found(sim, ctx):
    with pytest.raises(exception.ShareNotFound):
        manila.API().get(ctx, "5d1e4b8c-0000-4000-8000-000000000001")


def test_allow_then_deny(sim, ctx):
    share = sim.add_share(PROJECT)["id"]
    api = manila.API()
    assert api.get_access(ctx, share, "ip", "10.1.1.1") is None
    access = api.allow(ctx, share, "ip", "10.1.1.1", "rw")
    assert (access.access_type, access.access_to, access.access_level) == (
        "ip", "10.1.1.1", "rw")
    [rule] = sim.rules_of(share)
    assert rule["lock_reason"] == "Lock by nova"
    assert api.has_access(ctx, share, "ip", "10.1.1.1")
    # Manila refuses a second identical rule: Nova's grant error.
    with pytest.raises(exception.ShareAccessGrantError):
        api.allow(ctx, share, "ip", "10.1.1.1", "rw")
    api.deny(ctx, share, "ip", "10.1.1.1")
    assert sim.rules_of(share) == []
    with pytest.raises(exception.ShareAccessNotFound):
        api.deny(ctx, share, "ip", "10.1.1.1")


def test_rules_applied_later_are_not_access_yet(sim, ctx):
    share = sim.add_share(PROJECT)["id"]
    sim.apply_rules = False
    manila.API().allow(ctx, share, "cephx", "nova", "rw")
    assert not manila.API().has_access(ctx, share, "cephx", "nova")


def test_no_manila_is_a_connection_failure(ctx):
    CONF.set_override("endpoint_override", "http://127.0.0.1:9/v2",
                      group="manila")
    manila.reset()
    try:
        with pytest.raises(exception.ManilaConnectionFailed):
            manila.API().get(ctx, "5d1e4b8c-0000-4000-8000-000000000001")
    finally:
        CONF.clear_override("endpoint_override", group="manila")
        manila.reset()
