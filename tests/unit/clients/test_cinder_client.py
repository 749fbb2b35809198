"""keel's Cinder client (Nova's volume API) against the Cinder simulator."""
import pytest

from keel.clients import cinder
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from tests.fixtures import cinder_sim

PROJECT = "6f70656e-6b65-656c-0000-0000000000c1"
CONNECTOR = {"host": "host1", "initiator": "iqn.1993-08.org.debian:01:abc",
             "platform": "x86_64", "os_type": "linux", "multipath": False}


@pytest.fixture
def sim():
    with cinder_sim.configured(CONF) as server:
        yield server


@pytest.fixture
def ctx():
    return keel_context.RequestContext(user_id="u", project_id=PROJECT,
                                       request_id="req-abc")


def test_not_configured_by_default():
    assert not cinder.is_configured(CONF)


def test_get_translates_the_volume(sim, ctx):
    vol = sim.add_volume(PROJECT, size=2, name="data")
    got = cinder.API().get(ctx, vol["id"])
    assert got["id"] == vol["id"] and got["size"] == 2
    assert got["display_name"] == "data"
    assert got["attach_status"] == "detached" and got["attachments"] == {}
    assert got["bootable"] is False
    # Project-scoped URL, and the request id travels.
    method, path, version = sim.requests[-1]
    assert path == "/v3/%s/volumes/%s" % (PROJECT, vol["id"])


def test_missing_volume_is_volume_not_found(sim, ctx):
    with pytest.raises(exception.VolumeNotFound):
        cinder.API().get(ctx, "8d4a6f0e-0000-4000-8000-000000000000")


def test_attachment_flow_344(sim, ctx):
    api = cinder.API()
    vol = sim.add_volume(PROJECT)
    att = api.attachment_create(ctx, vol["id"], "inst-1")
    assert att["status"] == "reserved" and att["connection_info"] == {}
    assert sim.volumes[vol["id"]]["status"] == "reserved"
    assert sim.requests[-1][2] == (3, 44)

    att = api.attachment_update(ctx, att["id"], CONNECTOR, "/dev/vdb")
    assert att["connection_info"]["driver_volume_type"] == "iscsi"
    api.attachment_complete(ctx, att["id"])
    got = api.get(ctx, vol["id"])
    assert got["status"] == "in-use" and got["attach_status"] == "attached"
    assert got["attachments"]["inst-1"] == {"attachment_id": att["id"],
                                            "mountpoint": "/dev/vdb"}
    # A second attachment of a single-attach volume is refused (400).
    with pytest.raises(exception.InvalidInput):
        api.attachment_create(ctx, vol["id"], "inst-2")

    api.attachment_delete(ctx, att["id"])
    assert api.get(ctx, vol["id"])["status"] == "available"
    api.attachment_delete(ctx, att["id"])  # already gone: fine
    with pytest.raises(exception.VolumeAttachmentNotFound):
        api.attachment_get(ctx, att["id"])


def test_create_delete_and_snapshots(sim, ctx):
    api = cinder.API()
    vol = api.create(ctx, 1, "v", "desc")
    assert vol["status"] == "available" and vol["display_description"] == \
        "desc"
    snap = api.create_snapshot(ctx, vol["id"], "s", None)
    assert api.get_snapshot(ctx, snap["id"])["volume_id"] == vol["id"]
    assert [s["id"] for s in api.get_all_snapshots(ctx)] == [snap["id"]]
    api.delete_snapshot(ctx, snap["id"])
    with pytest.raises(exception.SnapshotNotFound):
        api.get_snapshot(ctx, snap["id"])
    api.delete(ctx, vol["id"])
    assert api.get_all(ctx) == []
    sim.volume_quota = 0
    with pytest.raises(exception.VolumeLimitExceeded):
        api.create(ctx, 1, "v", None)


def test_unreachable_cinder(ctx):
    CONF.set_override("endpoint_template",
                      "http://127.0.0.1:9/v3/%(project_id)s", "cinder")
    CONF.set_override("http_retries", 0, "cinder")
    cinder.reset()
    try:
        with pytest.raises(exception.CinderConnectionFailed):
            cinder.API().get(ctx, "x")
    finally:
        CONF.clear_override("endpoint_template", "cinder")
        CONF.clear_override("http_retries", "cinder")
        cinder.reset()


def test_attachments_listed_and_zone_check(sim, ctx):
    api = cinder.API()
    vol = sim.add_volume(PROJECT, availability_zone="az1")
    att = api.attachment_create(ctx, vol["id"], "inst-1")
    assert [a["id"] for a in api.attachment_get_all(
        ctx, instance_id="inst-1")] == [att["id"]]
    assert api.attachment_get_all(ctx, instance_id="other") == []

    class Inst(object):
        uuid = "inst-1"
        availability_zone = "az2"
    volume = api.get(ctx, vol["id"])
    api.check_availability_zone(ctx, volume, Inst())  # cross_az_attach
    CONF.set_override("cross_az_attach", False, "cinder")
    try:
        with pytest.raises(exception.InvalidVolume):
            api.check_availability_zone(ctx, volume, Inst())
    finally:
        CONF.clear_override("cross_az_attach", "cinder")
