"""Every sample of an implemented route: send it, compare status and shape.

Routes are taken from routes.json; a route counts as implemented when our
table serves it with a real handler (not a 410 stub or a 501 placeholder).
Resources that need state add their own cases; the stateless ones run here.
"""
import pytest

from keel.api import routes
from keel.api import wsgi
from tests.unit.api import samples
from tests.unit.api.conftest import call, routes_json

# routes.json path -> a concrete path to call, for stateless routes.
STATELESS = {"/": "/v2.1/", "/versions/{id}": "/v2.1/versions/v2.1",
             "(unversioned root) /": "/"}


def _implemented(method, path):
    if path == "(unversioned root) /":
        return True
    methods, _ = routes.RouteMap(routes.ROUTES).lookup(
        path.replace("{id}", "x"))
    handler = (methods or {}).get(method)
    if not isinstance(handler, wsgi.VersionedHandler):
        return False
    return not all(f.__name__ == "gone" or getattr(f, "not_implemented",
                                                   False)
                   for _l, _h, f, _s in handler.impls)


CASES = [
    pytest.param(r["method"], r["path"], version, files[0],
                 id=f'{r["method"]} {r["path"]} @{version}')
    for r in routes_json()
    if r.get("samples", {}).get("response") and r["path"] in STATELESS and
    _implemented(r["method"], r["path"])
    for version, files in r["samples"]["response"].items()
]


def test_every_stateless_route_is_covered():
    # Routes that need state (flavors, aggregates, ...) compare their
    # samples in their resources' own tests; the stateless ones run here.
    covered = {c.values[1] for c in CASES}
    assert {"/", "(unversioned root) /"} <= covered <= set(STATELESS)


@pytest.mark.parametrize("method,path,version,sample", CASES)
def test_sample_shape(dev_app, method, path, version, sample):
    resp = call(dev_app, STATELESS[path], method=method,
                headers={"OpenStack-API-Version": f"compute {version}"})
    assert resp.status_int == 200
    assert samples.shape_differences(resp.json, samples.load(sample)) == []


def test_shape_comparison_catches_differences():
    expected = {"a": {"b": [{"c": 1}]}, "d": "x"}
    assert samples.shape_differences(
        {"a": {"b": [{"c": "1"}]}, "e": 1}, expected) == [
        "$.a.b[0].c: str where the sample has number",
        "$.d: missing", "$.e: not in the sample"]
    assert samples.shape_differences(
        {"a": {"b": []}, "d": "y"}, expected) == []
