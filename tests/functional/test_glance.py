"""keel's Glance v2 client and image API against the real Glance (file
store, SQLite, no authentication) in a subprocess; transport behaviour
(retries, request ids, api_servers) against small local HTTP servers."""
import http.server
import io
import threading

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
import pytest

from keel.allinone import images as seed_images
from keel.clients import glance as glance_client
from keel import conf as keel_conf
from keel import context as keel_context
from keel import exception
from keel.image import glance as image_glance
from tests.fixtures.glance import glance  # noqa: F401
from tests.unit.api.conftest import call
from tests.unit.api.conftest import conf  # noqa: F401 - fixture

QCOW2 = seed_images.empty_qcow2()


def _conf(**glance_opts):
    conf = cfg.ConfigOpts()
    keel_conf.register_all(conf)
    conf([])
    for name, value in glance_opts.items():
        conf.set_override(name, value, group="glance")
    return conf


def _admin():
    return keel_context.RequestContext(user_id="u", project_id="p",
                                       is_admin=True)


@pytest.fixture(scope="module")
def api(glance):  # noqa: F811
    client = glance_client.GlanceClient(_conf(
        endpoint_override=glance.endpoint + "/v2", num_retries=0))
    return image_glance.GlanceImageAPI(client)


def _meta(**kw):
    meta = {"name": "cirros", "disk_format": "qcow2",
            "container_format": "bare", "visibility": "public",
            "min_ram": 64, "min_disk": 1,
            "properties": {"hw_disk_bus": "virtio", "os_distro": "cirros",
                           "block_device_mapping": [{"boot_index": 0}]}}
    meta.update(kw)
    return meta


def test_create_upload_show_download(api, tmp_path):
    ctx = _admin()
    img = api.create(ctx, _meta(), data=io.BytesIO(QCOW2))
    assert img["status"] == "active" and img["size"] == len(QCOW2)
    assert img["properties"]["os_distro"] == "cirros"
    # Nova JSON-encodes some properties for Glance and decodes them back
    assert img["properties"]["block_device_mapping"] == [{"boot_index": 0}]
    assert "hw_disk_bus" not in img  # flat in Glance, nested for Nova
    got = api.get(ctx, img["id"])
    assert (got["min_ram"], got["min_disk"]) == (64, 1)
    assert got["is_public"] is True and got["checksum"]
    assert got["created_at"].year >= 2024
    assert b"".join(api.download(ctx, img["id"])) == QCOW2
    dst = tmp_path / "copy"
    api.download(ctx, img["id"], dst_path=str(dst))
    assert dst.read_bytes() == QCOW2


def test_snapshot_flow_queued_then_upload_as_stream(api):
    ctx = _admin()
    snap = api.create(ctx, _meta(name="snap", properties={
        "image_type": "snapshot", "instance_uuid": "i-1"}))
    assert snap["status"] == "queued" and snap["size"] == 0
    chunks = iter([QCOW2[:5000], QCOW2[5000:]])  # chunked upload
    done = api.update(ctx, snap["id"], {}, data=chunks, purge_props=False)
    assert done["status"] == "active" and done["size"] == len(QCOW2)
    assert done["properties"]["image_type"] == "snapshot"
    with pytest.raises(exception.ImageUnacceptable):
        api.download(ctx, api.create(ctx, _meta(name="empty"))["id"])


def test_volume_backed_snapshot_is_created_active(api):
    img = api.create(_admin(), {"name": "vol-snap", "size": 0,
                                "properties": {"bdm_v2": "True"}})
    assert img["status"] == "active" and img["size"] == 0


def test_update_purges_properties_with_json_patch(api):
    ctx = _admin()
    img = api.create(ctx, _meta(name="props"))
    img["properties"] = {"os_distro": "ubuntu", "new": "1"}
    img["name"] = "renamed"
    up = api.update(ctx, img["id"], img, purge_props=True)
    assert up["name"] == "renamed"
    assert up["properties"] == {"os_distro": "ubuntu", "new": "1"}
    up = api.update(ctx, img["id"], {"properties": {"x": "2"}},
                    purge_props=False)
    assert up["properties"] == {"os_distro": "ubuntu", "new": "1", "x": "2"}
    assert api.get(ctx, img["id"])["properties"] == up["properties"]


def test_list_filters_and_paging(api):
    ctx = _admin()
    made = [api.create(ctx, _meta(name="page", properties={
        "batch": "b1", "n": str(i)}))["id"] for i in range(5)]
    found = api.get_all(ctx, filters={"property-batch": "b1"})
    assert sorted(i["id"] for i in found) == sorted(made)
    few = api.get_all(ctx, filters={"property-batch": "b1"}, limit=2)
    assert len(few) == 2
    # page_size 2 makes the client follow Glance's next links
    paged = api.get_all(ctx, filters={"property-batch": "b1"},
                        page_size=2)
    assert sorted(i["id"] for i in paged) == sorted(made)
    after = api.get_all(ctx, filters={"property-batch": "b1"},
                        marker=few[-1]["id"])
    assert len(after) == 3
    assert api.get_all(ctx, filters={"property-batch": "b1",
                                     "changes-since":
                                     "2999-01-01T00:00:00Z"}) == []
    with pytest.raises(exception.Invalid):
        api.get_all(ctx, marker="00000000-0000-0000-0000-00000000dead")


def test_errors_are_novas(api):
    ctx = _admin()
    missing = "00000000-0000-0000-0000-00000000beef"
    with pytest.raises(exception.ImageNotFound):
        api.get(ctx, missing)
    with pytest.raises(exception.ImageNotFound):
        api.delete(ctx, missing)
    with pytest.raises(exception.ImageBadRequest):
        api.create(ctx, _meta(disk_format="floppy"))
    protected = api.create(ctx, _meta(name="keep", protected=True))
    with pytest.raises(exception.ImageNotAuthorized):
        api.delete(ctx, protected["id"])
    img = api.create(ctx, _meta(name="gone"))
    assert api.delete(ctx, img["id"]) is True
    with pytest.raises(exception.ImageNotFound):
        api.get(ctx, img["id"])


def test_without_a_token_private_images_of_others_are_hidden(api):
    private = api.create(_admin(), _meta(name="priv",
                                         visibility="private",
                                         owner="someone-else"))
    other = keel_context.RequestContext(user_id="u2", project_id="p2")
    with pytest.raises(exception.ImageNotFound):
        api.get(other, private["id"])
    assert private["id"] not in [i["id"] for i in api.get_all(other)]


def test_compute_api_image_proxy_over_glance(glance, api, conf):  # noqa: F811
    """GET /v2.1/images/{id} and the metadata API with [glance] set: the
    same image Glance holds, the alternate link pointing at Glance."""
    from keel.api import deploy
    from keel.conf import CONF
    from keel.image import api as image_api
    img = api.create(_admin(), _meta(name="proxied"),
                     data=io.BytesIO(QCOW2))
    conf.config(auth_strategy="keel-development", group="api")
    conf.config(endpoint_override=glance.endpoint, group="glance")
    conf.config(path="/nonexistent", group="image_catalogue")  # ignored
    # No API database here: quotas off (their check is tested elsewhere).
    conf.config(driver="nova.quota.NoopQuotaDriver", group="quota")
    image_api.reset()
    try:
        app = deploy.deploy(CONF)
        headers = {"OpenStack-API-Version": "compute 2.1"}
        got = call(app, "/v2.1/images/%s" % img["id"], headers=headers)
        assert got.status_int == 200, got.text
        body = got.json["image"]
        assert body["name"] == "proxied" and body["status"] == "ACTIVE"
        assert body["OS-EXT-IMG-SIZE:size"] == len(QCOW2)
        assert body["links"][2]["href"] == \
            "%s/images/%s" % (glance.endpoint, img["id"])
        put = call(app, "/v2.1/images/%s/metadata/os_distro" % img["id"],
                   "PUT", headers, {"meta": {"os_distro": "fedora"}})
        assert put.status_int == 200, put.text
        assert api.get(_admin(), img["id"])["properties"]["os_distro"] == \
            "fedora"
        gone = call(app, "/v2.1/images/%s" % img["id"], "DELETE",
                    headers=headers)
        assert gone.status_int == 204
        with pytest.raises(exception.ImageNotFound):
            api.get(_admin(), img["id"])
    finally:
        image_api.reset()


# --- transport: retries, request ids, api_servers ------------------------

class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers 503 ``fail`` times, then an empty image list; image data
    with a wrong Content-MD5."""

    def do_GET(self):
        srv = self.server
        srv.seen.append(dict(self.headers))
        if self.path.endswith("/file"):
            self.send_response(200)
            self.send_header("Content-MD5", "0" * 32)
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.write(b"data")
            return
        if len(srv.seen) <= srv.fail:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"images": []}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def recorder():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    srv.seen, srv.fail = [], 0
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _dead_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _client(**opts):
    client = glance_client.GlanceClient(_conf(**opts))
    client.retry_interval = 0
    return client


def test_request_id_is_carried_and_503_is_retried(recorder):
    url = "http://127.0.0.1:%d" % recorder.server_address[1]
    recorder.fail = 2
    client = _client(endpoint_override=url, num_retries=2)
    ctx = keel_context.RequestContext(user_id="u", project_id="p",
                                      global_request_id="req-" + "1" * 36)
    assert client.list_images(ctx, {}) == []
    assert len(recorder.seen) == 3
    assert all(h.get("X-OpenStack-Request-ID") == ctx.global_id
               for h in recorder.seen)


def test_gives_up_after_num_retries(recorder):
    url = "http://127.0.0.1:%d" % recorder.server_address[1]
    recorder.fail = 10
    client = _client(endpoint_override=url, num_retries=1)
    with pytest.raises(exception.GlanceConnectionFailed):
        client.list_images(None, {})
    assert len(recorder.seen) == 2
    dead = _client(endpoint_override="http://127.0.0.1:%d" % _dead_port(),
                   num_retries=0)
    with pytest.raises(exception.GlanceConnectionFailed):
        dead.get_image(None, "x")


def test_api_servers_are_tried_in_turn(recorder):
    live = "http://127.0.0.1:%d" % recorder.server_address[1]
    dead = "127.0.0.1:%d" % _dead_port()  # no scheme: http assumed
    for _ in range(3):  # whatever the shuffled order, one retry reaches it
        client = _client(api_servers=[dead, live], num_retries=1)
        assert client.list_images(None, {}) == []


def test_user_token_and_catalog_when_glance_has_no_options(recorder):
    # As Nova: the caller's token, Glance found in the caller's catalog
    # (internal before public, version suffix stripped).
    url = "http://127.0.0.1:%d" % recorder.server_address[1]
    ctx = keel_context.RequestContext(
        user_id="u", project_id="p", auth_token="tok-123",
        service_catalog=[{"type": "image", "endpoints": [
            {"interface": "public", "url": "http://public.invalid:9292",
             "region": "RegionOne"},
            {"interface": "internal", "url": url + "/v2",
             "region": "RegionOne"}]}])
    client = _client(num_retries=0)
    assert client.list_images(ctx, {}) == []
    assert recorder.seen[-1]["X-Auth-Token"] == "tok-123"
    from keel.image import api as image_api
    assert image_api.glance_url(ctx, _conf()) == url


def test_service_token_beside_the_user_token(recorder):
    url = "http://127.0.0.1:%d" % recorder.server_address[1]
    conf = _conf(endpoint_override=url, num_retries=0)
    conf.set_override("send_service_user_token", True, "service_user")
    conf.set_override("auth_type", "admin_token", "service_user")
    # the chosen plugin's own options, as loading them registers them
    conf.register_opts(ks_loading.get_auth_plugin_conf_options(
        "admin_token"), group="service_user")
    conf.set_override("token", "svc-456", "service_user")
    conf.set_override("endpoint", "http://keystone.invalid", "service_user")
    client = glance_client.GlanceClient(conf)
    ctx = keel_context.RequestContext(user_id="u", project_id="p",
                                      auth_token="tok-123")
    client.list_images(ctx, {})
    assert recorder.seen[-1]["X-Auth-Token"] == "tok-123"
    assert recorder.seen[-1]["X-Service-Token"] == "svc-456"


def test_corrupt_download_raises(recorder):
    url = "http://127.0.0.1:%d" % recorder.server_address[1]
    client = _client(endpoint_override=url, num_retries=0)
    with pytest.raises(IOError):
        b"".join(client.download(None, "x"))


def test_no_endpoint_fails_at_once():
    client = glance_client.GlanceClient(_conf(num_retries=3))
    with pytest.raises(exception.GlanceConnectionFailed):
        client.get_image(None, "x")  # no sleep between retries: no retry


def test_glance_is_not_used_without_configuration():
    from keel.image import api as image_api
    conf = _conf()
    assert not glance_client.configured(conf)
    conf.set_override("path", "/tmp/x", group="image_catalogue")
    assert image_api.use_local(conf)
    conf.set_override("endpoint_override", "http://g:9292",
                      group="glance")
    assert not image_api.use_local(conf)
    assert image_api.glance_url(None, conf) == "http://g:9292"
