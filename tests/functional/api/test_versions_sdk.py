"""openstacksdk/keystoneauth discover the API and meet its errors over HTTP."""
import json
import pathlib

import openstack
from openstack import exceptions as sdk_exc
import pytest
import requests

SAMPLES = pathlib.Path(__file__).resolve().parents[4] / "shared" / \
    "reference" / "compute-api" / "samples" / "versions"


@pytest.fixture
def conn(api_url):
    c = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=f"{api_url}/v2.1/",
        compute_api_version="2")
    yield c
    c.close()


def test_sdk_discovers_microversion_range(conn):
    data = conn.compute.get_endpoint_data()
    assert str(data.min_microversion) in ("(2, 1)", "2.1")
    assert tuple(data.max_microversion) == (2, 104)
    assert data.url.rstrip("/").endswith("/v2.1")


def test_sdk_version_document_matches_sample(conn, api_url):
    resp = conn.compute.get("/")
    expected = json.loads((SAMPLES / "v21-version-get-resp.json").read_text()
                          .replace("http://openstack.example.com", api_url))
    assert resp.status_code == 200
    assert resp.json() == expected


def test_sdk_microversion_negotiated_and_echoed(conn):
    resp = conn.compute.get("/", microversion="2.79")
    assert resp.headers["OpenStack-API-Version"] == "compute 2.79"
    assert resp.headers["X-OpenStack-Nova-API-Version"] == "2.79"
    assert "OpenStack-API-Version" in resp.headers["Vary"]


def test_sdk_sees_novas_406(conn):
    resp = conn.compute.get("/", microversion="2.105")
    assert resp.status_code == 406
    with pytest.raises(sdk_exc.HttpException) as err:
        sdk_exc.raise_from_response(resp)
    assert err.value.status_code == 406
    assert "Version 2.105 is not supported by the API. Minimum is 2.1 and " \
           "maximum is 2.104." in str(err.value)


def test_sdk_sees_removed_api_as_gone(conn):
    resp = conn.compute.get("/os-cloudpipe", microversion="2.1")
    assert resp.status_code == 410
    with pytest.raises(sdk_exc.HttpException) as err:
        sdk_exc.raise_from_response(resp)
    assert "no longer available" in str(err.value)


def test_root_versions_over_http(api_url):
    resp = requests.get(api_url + "/", timeout=5)
    expected = json.loads((SAMPLES / "versions-get-resp.json").read_text()
                          .replace("http://openstack.example.com", api_url))
    assert resp.json() == expected
    assert resp.headers["x-openstack-request-id"] == \
        resp.headers["x-compute-request-id"]


def test_malformed_version_over_http(api_url):
    resp = requests.get(api_url + "/v2.1/", timeout=5, headers={
        "OpenStack-API-Version": "compute 2.x"})
    assert resp.status_code == 400
    assert resp.json()["badRequest"]["code"] == 400
