"""Version documents match Nova's samples byte for byte (after the host)."""
import json

import pytest

from tests.unit.api.conftest import call, sample

SAMPLE_HOST = "http://openstack.example.com"


def _expected(name, host="http://localhost"):
    text = json.dumps(sample(name)).replace(SAMPLE_HOST, host)
    return json.loads(text)


@pytest.mark.parametrize("path", ["/", ])
def test_root_lists_versions_as_sample(dev_app, path):
    resp = call(dev_app, path)
    assert resp.status_int == 200
    assert resp.json == _expected("versions/versions-get-resp.json")
    # the root document is outside microversion control
    assert "OpenStack-API-Version" not in resp.headers
    assert resp.headers["x-compute-request-id"].startswith("req-")


@pytest.mark.parametrize("path", ["/v2.1", "/v2.1/", "/v2.1/versions/v2.1"])
def test_v21_document_as_sample(dev_app, path):
    resp = call(dev_app, path)
    assert resp.status_int == 200, resp.body
    assert resp.json == _expected("versions/v21-version-get-resp.json")
    assert resp.headers["OpenStack-API-Version"] == "compute 2.1"
    assert resp.headers["X-OpenStack-Nova-API-Version"] == "2.1"


@pytest.mark.parametrize("path", ["/v2", "/v2/", "/v2/versions/v2.1"])
def test_v2_alias_document_as_sample(dev_app, path):
    resp = call(dev_app, path,
                headers={"OpenStack-API-Version": "compute 2.50"})
    assert resp.status_int == 200, resp.body
    assert resp.json == _expected("versions/v2-version-get-resp.json")
    # /v2 knows no microversions: request headers ignored, none echoed
    assert "OpenStack-API-Version" not in resp.headers
    assert "Vary" not in resp.headers


def test_unknown_root_path_gets_multiple_choices(dev_app):
    resp = call(dev_app, "/servers/detail")
    assert resp.status_int == 300
    hrefs = [c["links"][0]["href"] for c in resp.json["choices"]]
    assert hrefs == ["http://localhost/v2/servers/detail",
                     "http://localhost/v2.1/servers/detail"]
    assert [c["media-types"][0]["base"] for c in resp.json["choices"]] == \
        ["application/json"] * 2


def test_unknown_version_id_is_404(dev_app):
    resp = call(dev_app, "/v2.1/versions/v3.0")
    assert resp.status_int == 404
    assert resp.json == {"itemNotFound": {
        "code": 404, "message": "The resource could not be found."}}


def test_links_follow_request_host_and_script_name(dev_app):
    resp = call(dev_app, "/v2.1/", base_url="https://api.example.org:8443",
                environ={"SCRIPT_NAME": "/compute"})
    assert resp.json["version"]["links"][0]["href"] == \
        "https://api.example.org:8443/compute/v2.1/"


def test_compute_link_prefix(conf, dev_app):
    conf.config(compute_link_prefix="https://cloud.example.net/nova",
                group="api")
    resp = call(dev_app, "/")
    assert [v["links"][0]["href"] for v in resp.json["versions"]] == [
        "https://cloud.example.net/nova/v2/",
        "https://cloud.example.net/nova/v2.1/"]
    resp = call(dev_app, "/v2.1/")
    assert resp.json["version"]["links"][0]["href"] == \
        "https://cloud.example.net/nova/v2.1/"


def test_forwarded_proxy_headers(conf, dev_app):
    conf.config(enable_proxy_headers_parsing=True, group="oslo_middleware")
    resp = call(dev_app, "/", headers={
        "X-Forwarded-Proto": "https", "X-Forwarded-Host": "public.example"})
    assert resp.json["versions"][1]["links"][0]["href"] == \
        "https://public.example/v2.1/"


def test_cors_preflight_and_simple_request(conf, dev_app):
    conf.config(allowed_origin=["https://horizon.example"], group="cors")
    from keel.api import deploy
    from keel.conf import CONF
    app = deploy.deploy(CONF)
    pre = call(app, "/v2.1/", method="OPTIONS", headers={
        "Origin": "https://horizon.example",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "OpenStack-API-Version"})
    assert pre.headers["Access-Control-Allow-Origin"] == \
        "https://horizon.example"
    got = call(app, "/", headers={"Origin": "https://horizon.example"})
    assert got.headers["Access-Control-Allow-Origin"] == \
        "https://horizon.example"
    other = call(app, "/", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
