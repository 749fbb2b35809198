"""Every error a handler (or a middleware) raises reaches the client as
Nova's fault body; unexpected ones as a 500 computeFault with the traceback
in the log, never in the response."""
import logging

import pytest
import webob.exc

from keel.api import deploy
from keel.api import fault
from keel.api import wsgi
from keel.conf import CONF
from keel import exception
from tests.unit.api.conftest import call


class _Boom(Exception):
    pass


def _raiser(exc):
    @wsgi.expose(name=f"test.raise.{id(exc)}")
    def handler(req):
        raise exc
    return handler


CASES = [
    (exception.NotFound("Flavor 42 could not be found."), 404,
     "itemNotFound", "Flavor 42 could not be found."),
    (exception.Conflict(), 409, "conflictingRequest", "Conflict"),
    (exception.InvalidInput(reason="bad"), 400, "badRequest",
     "Invalid input received: bad"),
    (exception.PolicyNotAuthorized(action="os_compute_api:x"), 403,
     "forbidden", "Policy doesn't allow os_compute_api:x to be performed."),
    # 5xx keel exceptions are not "safe": their text stays in the log
    (exception.ServiceUnavailable(), 503, "serviceUnavailable",
     webob.exc.HTTPServiceUnavailable.explanation),
    (webob.exc.HTTPNotFound(explanation="Image not found."), 404,
     "itemNotFound", "Image not found."),
    (webob.exc.HTTPConflict(), 409, "conflictingRequest",
     webob.exc.HTTPConflict.explanation),
    (webob.exc.HTTPNotImplemented(), 501, "notImplemented",
     webob.exc.HTTPNotImplemented.explanation),
    (webob.exc.HTTPRequestEntityTooLarge(
        explanation="Quota exceeded", headers={"Retry-After": "3"}), 413,
     "overLimit", "Quota exceeded"),
]


@pytest.fixture
def make_app(conf):
    conf.config(auth_strategy="keel-development", group="api")

    def make(handler):
        return deploy.deploy(CONF, table={"/x": {"GET": handler,
                                                 "POST": handler}})
    return make


@pytest.mark.parametrize("exc,status,name,message", CASES)
def test_exceptions_become_nova_faults(make_app, exc, status, name,
                                       message):
    resp = call(make_app(_raiser(exc)), "/v2.1/x")
    assert resp.status_int == status
    expected = {"code": status, "message": message}
    if status == 413:
        expected["retryAfter"] = "3"
    assert resp.json == {name: expected}
    assert resp.content_type == "application/json"
    # faults after negotiation still carry the microversion headers
    assert resp.headers["X-OpenStack-Nova-API-Version"] == "2.1"
    assert resp.headers["x-openstack-request-id"].startswith("req-")


def test_unexpected_error_is_500_computefault_and_logged(make_app, caplog):
    caplog.set_level(logging.ERROR)
    resp = call(make_app(_raiser(_Boom("secret detail"))), "/v2.1/x")
    assert resp.status_int == 500
    assert resp.json == {"computeFault": {
        "code": 500,
        "message": "The server has either erred or is incapable of "
                   "performing the requested operation."}}
    assert "secret detail" not in resp.text
    logged = [r for r in caplog.records if r.exc_info]
    assert logged and "secret detail" in str(logged[0].exc_info[1])


def test_fault_wrapper_catches_middleware_errors(caplog):
    def broken(environ, start_response):
        raise RuntimeError("broken middleware")
    resp = call(fault.FaultWrapper(broken), "/anything")
    assert resp.status_int == 500
    assert "computeFault" in resp.json


def test_malformed_json_and_media_type(make_app):
    app = make_app(_raiser(exception.Conflict()))
    resp = call(app, "/v2.1/x", method="POST", body=b"{not json")
    assert resp.status_int == 400
    assert resp.json == {"badRequest": {"code": 400,
                                        "message": "Malformed request body"}}
    resp = call(app, "/v2.1/x", method="POST", body=b"<a/>",
                content_type="application/xml")
    assert resp.status_int == 415
    assert resp.json == {"badMediaType": {
        "code": 415, "message": "Unsupported Content-Type"}}


def test_oversized_body_refused(conf, make_app):
    conf.config(max_request_body_size=1024, group="oslo_middleware")
    app = make_app(_raiser(exception.Conflict()))
    resp = call(app, "/v2.1/x", method="POST",
                body=b'{"a": "' + b"x" * 4096 + b'"}')
    assert resp.status_int == 413
