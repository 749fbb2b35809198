"""Nova's Cinder proxies (os-volumes, os-snapshots) through the whole API
stack against the Cinder simulator, and without Cinder. Bodies are
compared with Nova's samples."""
import pytest

from keel.clients import cinder
from keel.conf import CONF
from tests.fixtures import cinder_sim
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.conftest import conf  # noqa: F401

PROJECT = "6f70656e737461636b20342065766572"
V235 = {"X-Auth-Token": "fake:" + PROJECT,
        "OpenStack-API-Version": "compute 2.35"}
V236 = dict(V235, **{"OpenStack-API-Version": "compute 2.36"})


@pytest.fixture
def sim():
    with cinder_sim.configured(CONF) as server:
        yield server


def _shape(body, sample):
    return samples.shape_differences(body, samples.load(sample))


def test_volume_lifecycle(api_env, sim):  # noqa: F811
    made = call(api_env, "/v2.1/os-volumes", "POST", V235,
                samples.load("os-volumes/os-volumes-post-req.json"))
    assert made.status_int == 200
    vol = made.json["volume"]
    assert made.headers["Location"].endswith("/os-volumes/" + vol["id"])
    assert vol["size"] == 100 and vol["availabilityZone"] == "dublin"
    assert vol["attachments"] == [{}]  # Nova's shape when detached
    got = call(api_env, "/v2.1/os-volumes/" + vol["id"], headers=V235).json
    assert got["volume"]["displayName"] == "Volume Name"

    # Attached through the 3.44 flow: the proxy shows the attachment.
    api = cinder.API()
    from keel import context as keel_context
    ctx = keel_context.RequestContext(user_id="u", project_id=PROJECT)
    att = api.attachment_create(ctx, vol["id"], "3912f2b4-c5ba-4aec-9165-"
                                "872876fe202e", {"host": "h"}, "/dev/vdb")
    api.attachment_complete(ctx, att["id"])
    got = call(api_env, "/v2.1/os-volumes/" + vol["id"], headers=V235).json
    assert _shape(got, "os-volumes/os-volumes-get-resp.json") == []
    assert got["volume"]["attachments"][0]["device"] == "/dev/vdb"

    listed = call(api_env, "/v2.1/os-volumes", headers=V235).json
    assert [v["id"] for v in listed["volumes"]] == [vol["id"]]
    assert _shape(listed, "os-volumes/os-volumes-index-resp.json") == []
    detail = call(api_env, "/v2.1/os-volumes/detail?limit=1&offset=1",
                  headers=V235).json
    assert detail == {"volumes": []}
    # In use: Cinder refuses the delete, the proxy says 400.
    assert call(api_env, "/v2.1/os-volumes/" + vol["id"], "DELETE",
                V235).status_int == 400
    api.attachment_delete(ctx, att["id"])
    assert call(api_env, "/v2.1/os-volumes/" + vol["id"], "DELETE",
                V235).status_int == 202
    assert call(api_env, "/v2.1/os-volumes/" + vol["id"],
                headers=V235).status_int == 404
    assert call(api_env, "/v2.1/os-volumes", headers=V236).status_int == 404


def test_volume_bad_input_and_quota(api_env, sim):  # noqa: F811
    bad = call(api_env, "/v2.1/os-volumes", "POST", V235,
               {"volume": {"size": 0}})
    assert bad.status_int == 400
    unknown = call(api_env, "/v2.1/os-volumes", "POST", V235,
                   {"volume": {"size": 1, "color": "red"}})
    assert unknown.status_int == 400
    missing_snap = call(api_env, "/v2.1/os-volumes", "POST", V235,
                        {"volume": {"size": 1, "snapshot_id": "nope"}})
    assert missing_snap.status_int == 404
    sim.volume_quota = 0
    over = call(api_env, "/v2.1/os-volumes", "POST", V235,
                {"volume": {"size": 1}})
    assert over.status_int == 403


def test_snapshots(api_env, sim):  # noqa: F811
    vol = sim.add_volume(PROJECT, size=100)
    req = samples.load("os-snapshots/snapshot-create-req.json")
    req["snapshot"]["volume_id"] = vol["id"]
    made = call(api_env, "/v2.1/os-snapshots", "POST", V235, req)
    assert made.status_int == 200
    snap = made.json["snapshot"]
    assert _shape(made.json, "os-snapshots/snapshot-create-resp.json") == []
    assert snap["volumeId"] == vol["id"] and snap["size"] == 100
    shown = call(api_env, "/v2.1/os-snapshots/" + snap["id"],
                 headers=V235).json
    assert _shape(shown, "os-snapshots/snapshots-show-resp.json") == []
    listed = call(api_env, "/v2.1/os-snapshots/detail", headers=V235).json
    assert _shape(listed, "os-snapshots/snapshots-detail-resp.json") == []
    # An in-use volume needs force=true.
    vol["status"] = "in-use"
    assert call(api_env, "/v2.1/os-snapshots", "POST", V235,
                req).status_int == 400
    req["snapshot"]["force"] = "true"
    assert call(api_env, "/v2.1/os-snapshots", "POST", V235,
                req).status_int == 200
    req["snapshot"]["volume_id"] = "nope"
    assert call(api_env, "/v2.1/os-snapshots", "POST", V235,
                req).status_int == 404
    assert call(api_env, "/v2.1/os-snapshots/" + snap["id"], "DELETE",
                V235).status_int == 202
    assert call(api_env, "/v2.1/os-snapshots/" + snap["id"],
                headers=V235).status_int == 404


def test_without_cinder(api_env):  # noqa: F811
    assert call(api_env, "/v2.1/os-volumes", headers=V235).json == {
        "volumes": []}
    assert call(api_env, "/v2.1/os-snapshots/detail", headers=V235).json == {
        "snapshots": []}
    assert call(api_env, "/v2.1/os-volumes/x", headers=V235).status_int == \
        404
    made = call(api_env, "/v2.1/os-volumes", "POST", V235,
                {"volume": {"size": 1}})
    assert made.status_int == 400
    assert "Cinder" in made.json["badRequest"]["message"]


def test_unreachable_cinder_is_503(api_env):  # noqa: F811
    CONF.set_override("endpoint_template",
                      "http://127.0.0.1:9/v3/%(project_id)s", "cinder")
    CONF.set_override("http_retries", 0, "cinder")
    cinder.reset()
    try:
        resp = call(api_env, "/v2.1/os-volumes", headers=V235)
    finally:
        CONF.clear_override("endpoint_template", "cinder")
        CONF.clear_override("http_retries", "cinder")
        cinder.reset()
    assert resp.status_int == 503
    assert "cinder" in resp.json["serviceUnavailable"]["message"]
