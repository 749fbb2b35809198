"""Microversion negotiation as a client sees it."""
import pytest

from keel.api import deploy
from keel.api import microversion
from keel.api import wsgi
from keel.conf import CONF
from tests.unit.api.conftest import call


@wsgi.expose(max_version="2.9", name="test.thing")
def _thing_old(req):
    return {"shape": "old", "version": str(req.api_version)}


@wsgi.expose(min_version="2.10", max_version="2.20", name="test.thing")
def _thing_new(req):
    return {"shape": "new", "version": str(req.api_version)}


@pytest.fixture
def app(conf):
    conf.config(auth_strategy="keel-development", group="api")
    return deploy.deploy(CONF, table={"/thing": {"GET": _thing_new}})


@pytest.mark.parametrize("headers,expected", [
    ({}, "2.1"),
    ({"OpenStack-API-Version": "compute 2.15"}, "2.15"),
    ({"X-OpenStack-Nova-API-Version": "2.12"}, "2.12"),
    ({"OpenStack-API-Version": "compute 2.11",
      "X-OpenStack-Nova-API-Version": "2.3"}, "2.11"),
    ({"OpenStack-API-Version": "volume 3.0, compute 2.19"}, "2.19"),
    ({"OpenStack-API-Version": "network 2.19"}, "2.1"),
])
def test_version_chosen_and_echoed(app, headers, expected):
    resp = call(app, "/v2.1/thing", headers=headers)
    assert resp.status_int == 200
    assert resp.json["version"] == expected
    assert resp.headers["OpenStack-API-Version"] == f"compute {expected}"
    assert resp.headers["X-OpenStack-Nova-API-Version"] == expected
    assert resp.headers["Vary"] == \
        "OpenStack-API-Version, X-OpenStack-Nova-API-Version"


def test_latest_is_the_maximum(app):
    resp = call(app, "/v2.1/", headers={"OpenStack-API-Version":
                                        "compute latest"})
    assert resp.headers["OpenStack-API-Version"] == "compute 2.104"
    resp = call(app, "/v2.1/", headers={"X-OpenStack-Nova-API-Version":
                                        "latest"})
    assert resp.headers["X-OpenStack-Nova-API-Version"] == "2.104"


def test_handler_picked_by_range_and_404_outside(app):
    assert call(app, "/v2.1/thing", headers={
        "OpenStack-API-Version": "compute 2.20"}).json["shape"] == "new"
    resp = call(app, "/v2.1/thing", headers={
        "OpenStack-API-Version": "compute 2.21"})
    assert resp.status_int == 404
    assert resp.json == {"itemNotFound": {
        "code": 404, "message": "The resource could not be found."}}
    assert resp.headers["OpenStack-API-Version"] == "compute 2.21"


@pytest.mark.parametrize("value,shown", [
    ("2.105", "2.105"), ("2.0", "2.0"), ("3.1", "3.1"), ("1.9", "1.9")])
def test_out_of_range_is_406_with_novas_body(app, value, shown):
    resp = call(app, "/v2.1/thing",
                headers={"OpenStack-API-Version": f"compute {value}"})
    assert resp.status_int == 406
    assert resp.json == {"computeFault": {
        "code": 406,
        "message": f"Version {shown} is not supported by the API. "
                   f"Minimum is 2.1 and maximum is 2.104."}}
    assert "OpenStack-API-Version" not in resp.headers


@pytest.mark.parametrize("value", ["2.a", "two", "2", "2.01", "02.1", ""])
def test_malformed_is_400(app, value):
    resp = call(app, "/v2.1/thing",
                headers={"X-OpenStack-Nova-API-Version": value})
    assert resp.status_int == 400
    assert resp.json == {"badRequest": {
        "code": 400,
        "message": f"API Version String {value} is of invalid format. "
                   f"Must be of format MajorNum.MinorNum."}}


def test_version_ordering_and_matching():
    v = microversion.Version.parse("2.10")
    assert microversion.Version.parse("2.9") < v < microversion.MAX_VERSION
    assert v.matches("2.10", "2.10") and not v.matches("2.11")
    assert v.matches(None, None)


def test_overlapping_ranges_refused():
    @wsgi.expose(max_version="2.5", name="test.overlap")
    def one(req):
        return {}

    with pytest.raises(ValueError):
        @wsgi.expose(min_version="2.5", name="test.overlap")
        def two(req):
            return {}
