"""Production auth mode: keystonemiddleware auth_token validating tokens.

A small identity endpoint stands in for Keystone (the real-Keystone test is
an integration test); keystonemiddleware itself is real: it logs in as the
service user, validates each token with GET /v3/auth/tokens and hands the
roles on, from which the context and policy decide admin-ness.
"""
import contextlib
import datetime
import json
import os
import subprocess
import sys
import types

import pytest
import requests

from keel.api import deploy
from keel.api import routes
from keel.api import wsgi
from tests.fixtures import http_app

NOW = datetime.datetime.now(datetime.timezone.utc)
_FMT = "%Y-%m-%dT%H:%M:%S.000000Z"
FUTURE = (NOW + datetime.timedelta(hours=1)).strftime(_FMT)
PAST = (NOW - datetime.timedelta(hours=1)).strftime(_FMT)

TOKENS = {  # token -> (user, project, roles, expires)
    "service-token": ("nova", "service", ["service", "admin"], FUTURE),
    "member-token": ("alice", "p1", ["member", "reader"], FUTURE),
    "reader-token": ("bob", "p1", ["reader"], FUTURE),
    "admin-token": ("root", "p0", ["admin", "member", "reader"], FUTURE),
    "expired-token": ("carol", "p1", ["member"], PAST),
}


class Identity:
    """Just enough of the Identity v3 API for keystonemiddleware."""

    def __init__(self):
        self.url = None
        self.compute_url = None

    def _token_body(self, token):
        user, project, roles, expires = TOKENS[token]
        dom = {"id": "default", "name": "Default"}
        return {"token": {
            "methods": ["password"], "expires_at": expires,
            "issued_at": NOW.strftime("%Y-%m-%dT%H:%M:%S.000000Z"),
            "user": {"id": user, "name": user, "domain": dom},
            "project": {"id": project, "name": project, "domain": dom},
            "roles": [{"id": r, "name": r} for r in roles],
            "catalog": [
                self._service("identity", "keystone", self.url),
                self._service("compute", "nova", self.compute_url)],
        }}

    @staticmethod
    def _service(kind, name, url):
        return {"type": kind, "name": name, "id": name, "endpoints": [
            {"id": f"{name}-{i}", "interface": i, "region": "RegionOne",
             "region_id": "RegionOne", "url": url}
            for i in ("public", "internal", "admin")] if url else []}

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"].rstrip("/")
        method = environ["REQUEST_METHOD"]
        headers = [("Content-Type", "application/json")]
        if path in ("", "/v3") and method == "GET":
            body = {"version": {"id": "v3.14", "status": "stable",
                                "updated": "2020-01-01T00:00:00Z",
                                "links": [{"rel": "self",
                                           "href": self.url + "/"}],
                                "media-types": []}}
            status = "200 OK"
        elif path == "/v3/auth/tokens" and method == "POST":
            body, status = self._token_body("service-token"), "201 Created"
            headers.append(("X-Subject-Token", "service-token"))
        elif path == "/v3/auth/tokens" and method == "GET":
            token = environ.get("HTTP_X_SUBJECT_TOKEN")
            expired_ok = "allow_expired=1" in environ.get("QUERY_STRING", "")
            if token in TOKENS and (TOKENS[token][3] == FUTURE or
                                    expired_ok):
                body, status = self._token_body(token), "200 OK"
                headers.append(("X-Subject-Token", token))
            else:
                body = {"error": {"code": 404, "message": "not found",
                                  "title": "Not Found"}}
                status = "404 Not Found"
        else:
            body, status = {"error": {"code": 404}}, "404 Not Found"
        data = json.dumps(body).encode()
        start_response(status, headers + [("Content-Length", str(len(data)))])
        return [data]


@wsgi.expose(name="test.keystone.whoami")
def _whoami(req):
    ctx = req.context
    return {"user_id": ctx.user_id, "project_id": ctx.project_id,
            "roles": sorted(ctx.roles), "is_admin": ctx.is_admin}


def _private_conf():
    """A ConfigOpts of this test's own: keystonemiddleware and the password
    plugin register options (a required auth_url among them) that must not
    stay on the process's CONF for the tests that run after this one."""
    from oslo_config import cfg
    from keel import conf as keel_conf
    from keel.conf import defaults
    private = cfg.ConfigOpts()
    keel_conf.register_all(private)
    defaults.set_library_defaults(private)
    from keystonemiddleware import auth_token
    for group, opts in auth_token.list_opts():
        private.register_opts(opts, group=group)
    private([], project="nova", default_config_files=[])
    return private


@pytest.fixture
def stack(conf):
    # ``conf`` (the shared fixture) parses the process's CONF and resets
    # policy, which reads it; the middleware gets a private configuration.
    conf = _private_conf()
    identity = Identity()
    running = contextlib.ExitStack()
    iurl = running.enter_context(http_app.served(identity))
    identity.url = iurl + "/v3"
    conf.set_override("www_authenticate_uri", iurl, group="keystone_authtoken")
    conf.set_override("memcached_servers", None, group="keystone_authtoken")
    table = dict(routes.ROUTES, **{"/whoami": {"GET": _whoami}})
    # building once makes keystonemiddleware register [keystone_authtoken]
    deploy.deploy(conf, table=table)
    from keystoneauth1 import loading
    # the service credentials keystonemiddleware logs in with
    loading.register_auth_conf_options(conf, "keystone_authtoken")
    for opt in loading.get_auth_plugin_conf_options("password"):
        try:
            conf.register_opt(opt, group="keystone_authtoken")
        except Exception:  # noqa: BLE001 - already registered
            pass
    for name, value in dict(
            auth_type="password", auth_url=iurl + "/v3", username="nova",
            password="pw", project_name="service",
            user_domain_name="Default",
            project_domain_name="Default").items():
        conf.set_override(name, value, group="keystone_authtoken")
    app = deploy.deploy(conf, table=table)
    aurl = running.enter_context(http_app.served(app))
    identity.compute_url = aurl + "/v2.1"
    with running:
        yield types.SimpleNamespace(api=aurl, identity=iurl + "/v3")


def _get(url, token=None, path="/v2.1/whoami", service_token=None):
    headers = {"X-Auth-Token": token} if token else {}
    if service_token:
        headers["X-Service-Token"] = service_token
    return requests.get(url + path, headers=headers, timeout=10)


def test_valid_tokens_give_their_roles(stack):
    member = _get(stack.api, "member-token").json()
    assert (member["user_id"], member["project_id"]) == ("alice", "p1")
    assert member["roles"] == ["member", "reader"]
    assert member["is_admin"] is False
    assert _get(stack.api, "reader-token").json()["roles"] == ["reader"]
    assert _get(stack.api, "admin-token").json()["is_admin"] is True


@pytest.mark.parametrize("token", [None, "expired-token", "bogus"])
def test_missing_expired_or_unknown_token_is_401(stack, token):
    resp = _get(stack.api, token)
    assert resp.status_code == 401
    assert "WWW-Authenticate" in resp.headers


def test_public_documents_need_no_token(stack):
    assert _get(stack.api, path="/").status_code == 200
    assert _get(stack.api, path="/v2.1").status_code == 200
    assert _get(stack.api, path="/v2.1/").status_code == 200
    assert _get(stack.api, path="/v2.1/versions/v2.1").status_code == 401


def test_service_token_carries_an_expired_user_token(stack):
    """A long operation finishing on behalf of a user ([service_user])."""
    resp = _get(stack.api, "expired-token", service_token="service-token")
    assert resp.status_code == 200
    assert resp.json()["user_id"] == "carol"
    # a service token without the service role does not
    assert _get(stack.api, "expired-token",
                service_token="member-token").status_code == 401


def test_openstack_client_versions_show(stack):
    """``openstack versions show`` finds the compute API in the catalog."""
    env = dict(os.environ, OS_AUTH_URL=stack.identity, OS_USERNAME="nova",
               OS_PASSWORD="pw", OS_PROJECT_NAME="service",
               OS_USER_DOMAIN_NAME="Default",
               OS_PROJECT_DOMAIN_NAME="Default", OS_IDENTITY_API_VERSION="3")
    out = subprocess.run(
        [sys.executable, "-m", "openstackclient.shell", "versions", "show",
         "--service", "compute", "-f", "json"],
        env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    current = [r for r in rows if r["Status"] == "CURRENT"]
    assert current and current[0]["Version"] == "2.1"
    assert current[0]["Max Microversion"] == "2.104"
    assert current[0]["Min Microversion"] == "2.1"
