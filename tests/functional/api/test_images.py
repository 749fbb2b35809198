"""Nova's image proxy (/images, /images/{id}/metadata) over the local image
catalogue: sample shapes, filters and paging, 404 from 2.36 (2.39 for
metadata), owners and visibility, the metadata quota."""
import pytest

from keel import context as keel_context
from keel.image import api as image_api
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call

V = "OpenStack-API-Version"
SAMPLE_ID = "70a599e0-31e7-49b7-b260-868f441e862b"
SNAP_SERVER = "6a7d8e2c-1111-4a5b-9c2d-3e4f5a6b7c8d"


def _h(version="2.1", token=None):
    h = {V: f"compute {version}"}
    if token:
        h["X-Auth-Token"] = token
    return h


@pytest.fixture
def catalogue(conf, tmp_path):
    conf.config(path=str(tmp_path / "images"), group="image_catalogue")
    image_api.reset()
    yield image_api.get_api()
    image_api.reset()


def _ctx(project="proj-a", admin=False):
    return keel_context.RequestContext(user_id="u", project_id=project,
                                       is_admin=admin)


def _register(cat, **kw):
    meta = {"name": "fakeimage7", "disk_format": "qcow2",
            "container_format": "bare", "visibility": "public",
            "properties": {"architecture": "x86_64",
                           "auto_disk_config": "True",
                           "kernel_id": "nokernel",
                           "ramdisk_id": "nokernel"}}
    data = kw.pop("data", b"qcow")
    meta.update(kw)
    return cat.create(_ctx(), meta, data=data)


def test_show_list_detail_match_samples(api_env, catalogue):
    _register(catalogue, id=SAMPLE_ID)
    resp = call(api_env, f"/v2.1/images/{SAMPLE_ID}", headers=_h())
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(
        resp.json, samples.load("images/image-get-resp.json")) == []
    image = resp.json["image"]
    assert image["status"] == "ACTIVE" and image["progress"] == 100
    assert image["OS-DCF:diskConfig"] == "AUTO"
    assert image["OS-EXT-IMG-SIZE:size"] == 4
    assert image["links"][0]["href"].endswith("/v2.1/images/" + SAMPLE_ID)
    assert image["links"][2]["href"].endswith(":9292/images/" + SAMPLE_ID)
    listed = call(api_env, "/v2.1/images", headers=_h())
    assert samples.shape_differences(
        listed.json, samples.load("images/images-list-get-resp.json")) == []
    _register(catalogue, properties={"kernel_id": "nokernel"})
    detail = call(api_env, "/v2.1/images/detail", headers=_h()).json
    expected = samples.load("images/images-details-get-resp.json")["images"]
    assert len(detail["images"]) == 2
    for image in detail["images"]:
        # the sample item of the same kind (with or without diskConfig)
        model = next(e for e in expected if ("OS-DCF:diskConfig" in e) ==
                     ("OS-DCF:diskConfig" in image))
        assert samples.shape_differences(image, model,
                                         ignore=("metadata",)) == []


def test_snapshot_names_its_server_and_status_maps(api_env, catalogue):
    snap = catalogue.create(_ctx(), {
        "name": "snap", "visibility": "private",
        "properties": {"instance_uuid": SNAP_SERVER,
                       "image_type": "snapshot"}})
    body = call(api_env, f"/v2.1/images/{snap['id']}",
                headers=_h()).json["image"]
    assert body["status"] == "SAVING" and body["progress"] == 25
    assert body["server"]["id"] == SNAP_SERVER
    assert body["server"]["links"][0]["href"].endswith(
        "/servers/" + SNAP_SERVER)
    assert "OS-DCF:diskConfig" not in body
    # server=, type= filters find it; the plain image is left out
    _register(catalogue)
    for query in (f"server={SNAP_SERVER}", "type=snapshot",
                  f"server=http://x/servers/{SNAP_SERVER}", "status=QUEUED",
                  "property-image_type=snapshot"):
        got = call(api_env, f"/v2.1/images/detail?{query}", headers=_h())
        assert [i["id"] for i in got.json["images"]] == [snap["id"]], query


def test_filters_and_paging(api_env, catalogue):
    ids = [_register(catalogue, name=f"img{i}", min_ram=i * 64,
                     min_disk=i)["id"] for i in range(4)]
    got = call(api_env, "/v2.1/images?name=img2", headers=_h()).json
    assert [i["id"] for i in got["images"]] == [ids[2]]
    got = call(api_env, "/v2.1/images/detail?minRam=128&minDisk=2",
               headers=_h()).json
    assert [i["id"] for i in got["images"]] == [ids[2]]
    page = call(api_env, "/v2.1/images?limit=3", headers=_h()).json
    assert len(page["images"]) == 3
    nxt = page["images_links"][0]
    assert nxt["rel"] == "next" and "marker=" in nxt["href"]
    marker = page["images"][-1]["id"]
    rest = call(api_env, f"/v2.1/images?limit=3&marker={marker}",
                headers=_h()).json
    assert len(rest["images"]) == 1 and "images_links" not in rest
    seen = {i["id"] for i in page["images"] + rest["images"]}
    assert seen == set(ids)
    future = call(api_env, "/v2.1/images?changes-since=2999-01-01T00:00:00Z",
                  headers=_h()).json
    assert future["images"] == []


@pytest.mark.parametrize("query", ["limit=-1", "limit=abc", "page_size=x",
                                   "marker=nope",
                                   "changes-since=notadate"])
def test_bad_list_queries_are_400(api_env, catalogue, query):
    _register(catalogue)
    resp = call(api_env, f"/v2.1/images?{query}", headers=_h())
    assert resp.status_int == 400, resp.text
    assert "badRequest" in resp.json


def test_gone_from_236_and_metadata_from_239(api_env, catalogue):
    img = _register(catalogue)["id"]
    for path in ("/v2.1/images", "/v2.1/images/detail",
                 f"/v2.1/images/{img}"):
        assert call(api_env, path, headers=_h("2.35")).status_int == 200
        resp = call(api_env, path, headers=_h("2.36"))
        assert resp.status_int == 404 and "itemNotFound" in resp.json
    meta = f"/v2.1/images/{img}/metadata"
    assert call(api_env, meta, headers=_h("2.38")).status_int == 200
    assert call(api_env, meta, headers=_h("2.39")).status_int == 404
    assert call(api_env, f"/v2.1/images/{img}", "DELETE",
                headers=_h("2.36")).status_int == 404


def test_show_and_delete_unknown_is_404(api_env, catalogue):
    resp = call(api_env, "/v2.1/images/" + SAMPLE_ID, headers=_h())
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == "Image not found."
    resp = call(api_env, "/v2.1/images/" + SAMPLE_ID, "DELETE",
                headers=_h())
    assert resp.status_int == 404


def test_admin_deletes_any_image(api_env, catalogue):
    img = _register(catalogue, visibility="private")["id"]  # proj-a's
    assert call(api_env, f"/v2.1/images/{img}", "DELETE",
                headers=_h(token="root:admin-proj")).status_int == 204
    assert call(api_env, f"/v2.1/images/{img}",
                headers=_h()).status_int == 404


def test_members_see_public_and_own_images_only(member_env, catalogue):
    public = _register(catalogue, visibility="public")["id"]
    private = _register(catalogue, visibility="private")["id"]
    other = call(member_env, "/v2.1/images", headers=_h(token="bob:proj-b"))
    assert [i["id"] for i in other.json["images"]] == [public]
    assert call(member_env, f"/v2.1/images/{private}",
                headers=_h(token="bob:proj-b")).status_int == 404
    resp = call(member_env, f"/v2.1/images/{public}", "DELETE",
                headers=_h(token="bob:proj-b"))
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == \
        "You are not allowed to delete the image."
    resp = call(member_env, f"/v2.1/images/{public}/metadata", "POST",
                headers=_h(token="bob:proj-b"),
                body={"metadata": {"k": "v"}})
    assert resp.status_int == 403
    owner = call(member_env, "/v2.1/images", headers=_h(token="al:proj-a"))
    assert {i["id"] for i in owner.json["images"]} == {public, private}
    assert call(member_env, f"/v2.1/images/{private}", "DELETE",
                headers=_h(token="al:proj-a")).status_int == 204


def test_metadata_samples(api_env, catalogue):
    img = _register(catalogue, id=SAMPLE_ID)["id"]
    base = f"/v2.1/images/{img}/metadata"
    got = call(api_env, base, headers=_h())
    assert got.json == samples.load("images/image-metadata-get-resp.json")
    key = call(api_env, base + "/kernel_id", headers=_h())
    assert key.json == samples.load("images/image-meta-key-get.json")
    post = call(api_env, base, "POST", _h(),
                samples.load("images/image-metadata-post-req.json"))
    assert post.status_int == 200
    assert post.json == samples.load("images/image-metadata-post-resp.json")
    put = call(api_env, base, "PUT", _h(),
               samples.load("images/image-metadata-put-req.json"))
    assert put.json == samples.load("images/image-metadata-put-resp.json")
    assert call(api_env, base, headers=_h()).json == put.json
    one = call(api_env, base + "/auto_disk_config", "PUT", _h(),
               samples.load("images/image-meta-key-put-req.json"))
    assert one.json == samples.load("images/image-meta-key-put-resp.json")
    assert call(api_env, base + "/Label", "DELETE",
                headers=_h()).status_int == 204
    assert call(api_env, base, headers=_h()).json == {
        "metadata": {"auto_disk_config": "False"}}


def test_metadata_errors(api_env, catalogue):
    img = _register(catalogue)["id"]
    base = f"/v2.1/images/{img}/metadata"
    missing = call(api_env, base + "/nope", headers=_h())
    assert missing.status_int == 404
    gone = call(api_env, base + "/nope", "DELETE", headers=_h())
    assert gone.status_int == 404
    assert gone.json["itemNotFound"]["message"] == "Invalid metadata key"
    mismatch = call(api_env, base + "/a", "PUT", _h(), {"meta": {"b": "1"}})
    assert mismatch.status_int == 400
    assert mismatch.json["badRequest"]["message"] == \
        "Request body and URI mismatch"
    for body in ({"metadata": {"k": 1}}, {"metadata": {"bad/key": "v"}},
                 {"meta": {"k": "v"}}, {"metadata": {"k": "x" * 256}}):
        assert call(api_env, base, "POST", _h(), body).status_int == 400
    assert call(api_env, "/v2.1/images/%s/metadata" % SAMPLE_ID,
                headers=_h()).status_int == 404


def test_metadata_quota_is_403(api_env, catalogue, conf):
    conf.config(metadata_items=5, group="quota")
    img = _register(catalogue)["id"]  # four properties already
    base = f"/v2.1/images/{img}/metadata"
    ok = call(api_env, base, "POST", _h(), {"metadata": {"five": "5"}})
    assert ok.status_int == 200
    over = call(api_env, base, "POST", _h(), {"metadata": {"six": "6"}})
    assert over.status_int == 403
    assert over.json["forbidden"]["message"] == \
        "Image metadata limit exceeded"
    over = call(api_env, base + "/six", "PUT", _h(), {"meta": {"six": "6"}})
    assert over.status_int == 403
    many = {f"k{i}": "v" for i in range(6)}
    assert call(api_env, base, "PUT", _h(),
                {"metadata": many}).status_int == 403
    assert len(call(api_env, base, headers=_h()).json["metadata"]) == 5


def test_without_any_image_service_answers_503(api_env, conf):
    # Neither [image_catalogue]/path nor [glance]: no endpoint to ask.
    image_api.reset()
    for path in ("/v2.1/images", f"/v2.1/images/{SAMPLE_ID}",
                 f"/v2.1/images/{SAMPLE_ID}/metadata"):
        resp = call(api_env, path, headers=_h())
        assert resp.status_int == 503, resp.text
        assert "serviceUnavailable" in resp.json
