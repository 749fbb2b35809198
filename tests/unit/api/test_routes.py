"""Routing: the flat table, /{project_id} prefixes, Nova's plain 404s,
and removed APIs answering 410 exactly where routes.json says."""
import pytest

from keel.api import routes
from tests.unit.api.conftest import call, routes_json

REMOVED = [(r["method"], r["path"], r.get("body_action"))
           for r in routes_json() if r.get("removed_in_release")
           and not r["path"].startswith("/servers/{id}/action")]


def _concrete(path):
    return (path.replace("{id}", "1").replace("{domain_id}", "d")
            .replace("{server_id}", "s"))


@pytest.mark.parametrize("method,path,action", REMOVED)
def test_removed_api_is_410(dev_app, method, path, action):
    body = {action: {}} if action else None
    for prefix in ("", "/abc1"):
        resp = call(dev_app, "/v2.1" + prefix + _concrete(path),
                    method=method, body=body,
                    headers={"OpenStack-API-Version": "compute latest",
                             "X-Auth-Token": "me:abc1"})
        assert resp.status_int == 410, (method, path, resp.body)
        assert resp.json == {"computeFault": {
            "code": 410, "message": "This resource is no longer available. "
                                    "No forwarding address is given."}}


def test_every_removed_route_is_in_the_table():
    table = routes.RouteMap(routes.ROUTES)
    for method, path, _action in REMOVED:
        methods, _args = table.lookup(_concrete(path))
        assert methods and method in methods, (method, path)


def test_unknown_action_on_removed_action_route(dev_app):
    resp = call(dev_app, "/v2.1/os-networks/1/action", method="POST",
                body={"bogus": None})
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        "There is no such action: bogus"


def test_unrouted_method_on_known_path_is_plain_404(dev_app):
    resp = call(dev_app, "/v2.1/os-fping", method="DELETE")
    assert resp.status_int == 404
    assert "itemNotFound" not in resp.text
    assert "The resource could not be found." in resp.text


def test_unknown_path_is_plain_404(dev_app):
    resp = call(dev_app, "/v2.1/no-such-thing")
    assert resp.status_int == 404
    assert "itemNotFound" not in resp.text


def test_project_id_in_url_must_match_token(dev_app):
    ok = call(dev_app, "/v2.1/abc-123/os-fping",
              headers={"X-Auth-Token": "me:abc-123"})
    assert ok.status_int == 410
    bad = call(dev_app, "/v2.1/abc-123/os-fping",
               headers={"X-Auth-Token": "me:def456"})
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"] == (
        "Malformed request URL: URL's project_id 'abc-123' doesn't match "
        "Context's project_id 'def456'")


def test_project_id_must_look_like_one(dev_app):
    # Nova's mapper only takes hex and dashes as a project id
    resp = call(dev_app, "/v2.1/not_hex/os-fping",
                headers={"X-Auth-Token": "me:not_hex"})
    assert resp.status_int == 404


def test_lookup_prefers_literal_and_extracts_args():
    m = routes.RouteMap({"/a/detail": {"GET": "d"}, "/a/{id}": {"GET": "s"},
                         "/a/{id}/b/{bid}": {"GET": "b"}})
    assert m.lookup("/a/detail") == ({"GET": "d"}, {})
    assert m.lookup("/a/x") == ({"GET": "s"}, {"id": "x"})
    assert m.lookup("/a/x/b/y") == ({"GET": "b"}, {"id": "x", "bid": "y"})
    assert m.lookup("/ff00/a/x") == ({"GET": "s"},
                                     {"id": "x", "project_id": "ff00"})
    assert m.lookup("/a/x/") == (None, None)


PROXY_ROUTES = [(r["method"], r["path"], r["max_version"])
                for r in routes_json()
                if r.get("max_version") == "2.35"
                and not r.get("removed_in_release")
                and not r["path"].startswith(("/images", "/servers"))]


@pytest.mark.parametrize("method,path,last", PROXY_ROUTES)
def test_proxy_api_is_404_after_its_last_version(dev_app, method, path,
                                                 last):
    minor = int(last.split(".")[1])
    after = call(dev_app, "/v2.1" + _concrete(path), method=method,
                 body={"x": {}} if method in ("POST", "PUT") else None,
                 headers={"OpenStack-API-Version": f"compute 2.{minor + 1}"})
    assert after.status_int == 404, (method, path)
    assert after.json == {"itemNotFound": {
        "code": 404, "message": "The resource could not be found."}}
    before = call(dev_app, "/v2.1" + _concrete(path), method=method,
                  body={"x": {}} if method in ("POST", "PUT") else None,
                  headers={"OpenStack-API-Version": f"compute {last}"})
    # Neutron/Cinder proxies answer (here with no such service configured:
    # empty lists, 404s, 400s); Ironic's is not forwarded and says so.
    # Never a 500.
    if path.startswith("/os-baremetal-nodes"):
        assert before.status_int == 501
        assert "notImplemented" in before.json
    else:
        assert before.status_int in (200, 202, 400, 404), (method, path)
