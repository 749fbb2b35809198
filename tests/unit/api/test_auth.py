"""Authentication modes and the request context they produce."""
import pytest

from keel.api import deploy
from keel.api import wsgi
from keel.conf import CONF
from tests.unit.api.conftest import call


@wsgi.expose(name="test.auth.whoami")
def _whoami(req):
    ctx = req.context
    return {"user_id": ctx.user_id, "project_id": ctx.project_id,
            "roles": sorted(ctx.roles), "is_admin": ctx.is_admin,
            "request_id": ctx.request_id,
            "global_request_id": ctx.global_request_id}


TABLE = {"/whoami": {"GET": _whoami}}


@pytest.fixture
def dev(conf):
    conf.config(auth_strategy="keel-development", group="api")
    return lambda: deploy.deploy(CONF, table=TABLE)


def test_development_mode_without_token(dev, caplog):
    resp = call(dev(), "/v2.1/whoami")
    assert resp.json["user_id"] == "admin"
    assert resp.json["project_id"] == "admin"
    assert resp.json["roles"] == ["admin", "member", "reader"]
    assert resp.json["is_admin"] is True
    assert resp.json["request_id"] == resp.headers["x-openstack-request-id"]
    assert any("NOT validated" in r.getMessage() for r in caplog.records)


def test_development_mode_token_user_project(dev, conf):
    conf.config(development_roles=["member", "reader"], group="api")
    resp = call(dev(), "/v2.1/whoami", headers={
        "X-Auth-Token": "alice:p1", "X-Roles": "admin"})  # forged: ignored
    assert resp.json["user_id"] == "alice"
    assert resp.json["project_id"] == "p1"
    assert resp.json["roles"] == ["member", "reader"]
    assert resp.json["is_admin"] is False
    resp = call(dev(), "/v2.1/whoami", headers={"X-Auth-Token": "bob"})
    assert (resp.json["user_id"], resp.json["project_id"]) == ("bob", "bob")


def test_global_request_id_accepted(dev):
    gid = "req-6f1c2a6e-4cb4-4a1e-9c39-2d9f0e51f2c4"
    resp = call(dev(), "/v2.1/whoami",
                headers={"X-OpenStack-Request-ID": gid})
    assert resp.json["global_request_id"] == gid
    assert resp.headers["x-openstack-request-id"] != gid
    assert resp.headers["x-compute-request-id"] == \
        resp.headers["x-openstack-request-id"]


def test_keystone_is_the_default_and_needs_a_token(conf):
    assert CONF.api.auth_strategy == "keystone"
    conf.config(www_authenticate_uri="http://keystone.example/identity",
                group="keystone_authtoken")
    app = deploy.deploy(CONF, table=TABLE)
    resp = call(app, "/v2.1/whoami")
    assert resp.status_int == 401
    assert "keystone.example" in resp.headers["WWW-Authenticate"]
    # the version documents stay public
    assert call(app, "/").status_int == 200
    assert call(app, "/v2.1").status_int == 200


def test_context_from_identity_headers(conf):
    from keel.api import auth

    app = auth.ContextMiddleware(deploy.routes.Router(TABLE), CONF)
    resp = call(app, "/whoami", headers={
        "X-Identity-Status": "Confirmed", "X-User-Id": "u1",
        "X-Project-Id": "p1", "X-Roles": "reader"})
    assert resp.json["roles"] == ["reader"] and not resp.json["is_admin"]
    resp = call(app, "/whoami", headers={"X-Identity-Status": "Invalid",
                                         "X-User-Id": "u1"})
    assert resp.status_int == 401
    resp = call(app, "/whoami", headers={"X-Identity-Status": "Confirmed"})
    assert resp.status_int == 401
