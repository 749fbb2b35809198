"""The in-process WSGI transport: requests' view of a WSGI app is HTTP's."""
import json

import pytest
import requests
from oslo_context import context as oslo_context

from keel.clients import http_session
from keel.clients import placement as pl
from keel.clients import wsgi_transport
from keel import exception

BASE = "http://127.0.0.1:59999"   # nothing listens there


class EchoApp(object):
    """Answers with what it saw; a few paths misbehave on purpose."""

    def __init__(self):
        self.calls = []

    def __call__(self, environ, start_response):
        body = environ["wsgi.input"].read(
            int(environ.get("CONTENT_LENGTH") or 0))
        self.calls.append(environ)
        # The app's own request context, as Placement's middleware makes.
        oslo_context.RequestContext(request_id="req-app")
        path = environ["PATH_INFO"]
        if path == "/boom":
            raise ValueError("broken")
        if path == "/missing":
            start_response("404 Not Found", [
                ("Content-Type", "application/json"),
                ("x-openstack-request-id", "req-404")])
            return [json.dumps({"errors": [{
                "status": 404, "code": "placement.undefined_code",
                "detail": "No resource provider"}]}).encode()]
        if path == "/empty":
            start_response("204 No Content", [])
            return []
        seen = {"method": environ["REQUEST_METHOD"], "path": path,
                "query": environ["QUERY_STRING"],
                "host": environ["HTTP_HOST"],
                "version": environ.get("HTTP_OPENSTACK_API_VERSION"),
                "type": environ.get("CONTENT_TYPE"),
                "length": environ.get("CONTENT_LENGTH"),
                "body": body.decode()}
        out = json.dumps(seen).encode()
        start_response("200 OK", [
            ("Content-Type", "application/json; charset=UTF-8"),
            ("Content-Length", str(len(out))),
            ("openstack-api-version", "placement 1.39"),
            ("Vary", "openstack-api-version"), ("Vary", "Accept")])
        return iter([out[:5], out[5:]])


@pytest.fixture
def app():
    the_app = EchoApp()
    wsgi_transport.register(BASE, the_app)
    yield the_app
    wsgi_transport.unregister(BASE)


def test_get_with_query_string_and_headers(app):
    sess = http_session.EnvCachingSession()
    resp = sess.get(BASE + "/resource_providers?name=a%20b&in_tree=x",
                    headers={"OpenStack-API-Version": "placement 1.39"})
    assert resp.status_code == 200 and resp.reason == "OK"
    assert resp.json() == {
        "method": "GET", "path": "/resource_providers",
        "query": "name=a%20b&in_tree=x", "host": "127.0.0.1:59999",
        "version": "placement 1.39", "type": None, "length": None,
        "body": ""}
    assert resp.headers["OpenStack-API-Version"] == "placement 1.39"
    assert resp.headers["vary"] == "openstack-api-version, Accept"
    assert resp.encoding == "UTF-8"
    assert resp.url == BASE + "/resource_providers?name=a%20b&in_tree=x"
    assert resp.request.method == "GET"
    assert resp.raw.read() == resp.content


def test_put_json_body(app):
    sess = http_session.EnvCachingSession()
    resp = sess.put(BASE + "/traits/CUSTOM_%41", json={"a": [1, "é"]})
    seen = resp.json()
    assert seen["method"] == "PUT" and seen["path"] == "/traits/CUSTOM_A"
    assert seen["type"] == "application/json"
    assert json.loads(seen["body"]) == {"a": [1, "é"]}
    assert seen["length"] == str(len(seen["body"].encode()))


def test_head_and_no_content_have_no_body(app):
    sess = http_session.EnvCachingSession()
    head = sess.head(BASE + "/x")
    assert head.status_code == 200 and head.content == b""
    assert sess.delete(BASE + "/empty").status_code == 204


def test_app_exception_is_a_500_response(app):
    resp = http_session.EnvCachingSession().get(BASE + "/boom")
    assert resp.status_code == 500
    assert resp.headers["Content-Type"] == "text/plain"


def test_caller_context_survives_the_call(app):
    mine = oslo_context.RequestContext(request_id="req-caller")
    http_session.EnvCachingSession().get(BASE + "/x")
    assert oslo_context.get_current() is mine
    assert app.calls[-1]["PATH_INFO"] == "/x"


def test_other_urls_and_unregistered_base_use_the_network(app):
    assert wsgi_transport.adapter_for(BASE + "0/x") is None
    assert wsgi_transport.adapter_for("http://example.com/") is None
    assert wsgi_transport.adapter_for(BASE.upper() + "/x") is not None
    wsgi_transport.unregister(BASE)
    with pytest.raises(requests.ConnectionError):
        http_session.EnvCachingSession().get(BASE + "/x", timeout=2)


def test_placement_client_gets_answers_and_4xx_as_over_http(app):
    client = pl.PlacementClient(pl.adapter_for_endpoint(BASE))
    resp = client.request(None, "GET", "/resource_providers?name=x", "1.14")
    assert resp.status_code == 200
    assert resp.json()["version"] == "placement 1.14"
    assert resp.json()["query"] == "name=x"
    # A 4xx is a response, handled by the client's own error path.
    resp = client.request(None, "GET", "/missing", "1.14")
    assert resp.status_code == 404
    assert resp.headers["x-openstack-request-id"] == "req-404"
    assert pl.error_text(resp) == "No resource provider"
    with pytest.raises(pl.PlacementError):
        client._checked(None, "GET", "/missing", "1.14")


def test_unregistered_endpoint_is_unreachable_for_the_client():
    client = pl.PlacementClient(pl.adapter_for_endpoint(BASE))
    with pytest.raises(exception.PlacementAPIConnectFailure):
        client.request(None, "GET", "/x", "1.0")
