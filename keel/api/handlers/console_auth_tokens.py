"""GET /os-console-auth-tokens/{token}: what a console proxy asks to check
a token and learn where the guest's console listens.

Before 2.31 only RDP consoles were answered; RDP is gone from Nova, so
there every request is a 400 (before any policy check, as Nova). From
2.31 every console type is answered; 2.99 adds ``tls_port``. An unknown
or expired token is 404 "Token not found".
"""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import console_auth_tokens as schema
from keel.compute_api import console_auth_tokens as tokens_api
from keel.policies import console_auth_tokens as names
from keel import policy


@wsgi.expose()
@validation.query_schema(schema.show_query, "2.1", "2.98")
@validation.query_schema(schema.show_query_v299, "2.99")
def show(req, id):
    if not req.version_matches("2.31"):
        raise webob.exc.HTTPBadRequest()
    ctx = req.context
    policy.authorize(ctx, names.CONSOLE_AUTH_TOKENS, target={})
    if not id:
        raise webob.exc.HTTPBadRequest(explanation="token not provided")
    found = tokens_api.find_token(ctx, id)
    if found is None:
        raise webob.exc.HTTPNotFound(explanation="Token not found")
    console = {"instance_uuid": found.instance_uuid, "host": found.host,
               "port": found.port,
               "internal_access_path": found.internal_access_path}
    if req.version_matches("2.99"):
        console["tls_port"] = found.tls_port
    return {"console": console}


def route_entries():
    return {"/os-console-auth-tokens/{id}": {"GET": show}}
