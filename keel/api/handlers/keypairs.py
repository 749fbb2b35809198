"""os-keypairs: per-user key pairs.

2.2 adds ``type`` (ssh/x509) and answers create with 201 and delete with
204; 2.10 lets admins act for another user (``user_id``); 2.35 pages the
list; 2.92 only imports (``public_key`` required, no private key back).
"""
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import keypairs as schema
from keel.api.views import keypairs as view
from keel.compute_api import keypairs as keypairs_api
from keel import exception
from keel.policies import keypairs as kp_policies
from keel import policy


def _user_id(req):
    """The target user: ``?user_id=`` from 2.10, else the caller."""
    if req.version_matches("2.10") and "user_id" in req.GET:
        return req.GET.getall("user_id")[0]
    return req.context.user_id


def _authorize(req, action, user_id):
    policy.authorize(req.context, kp_policies.ROOT % action,
                     target={"user_id": user_id,
                             "project_id": req.context.project_id})


def _create(req):
    ctx = req.context
    params = req.json_body["keypair"]
    user_id = (params.get("user_id") if req.version_matches("2.10")
               else None) or ctx.user_id
    _authorize(req, "create", user_id)
    key_type = params.get("type", keypairs_api.SSH)
    try:
        if "public_key" in params:
            keypair = keypairs_api.import_key_pair(
                ctx, user_id, params["name"], params["public_key"], key_type)
            return view.created(req, keypair)
        keypair, private = keypairs_api.create_key_pair(
            ctx, user_id, params["name"], key_type)
        return view.created(req, keypair, private)
    except exception.KeypairLimitExceeded as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.InvalidKeypair as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    except exception.KeyPairExists as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())


_CREATE = f"{__name__}.create"
_DELETE = f"{__name__}.delete"


@wsgi.expose(max_version="2.1", name=_CREATE)
@validation.schema(schema.create)
def create(req):
    return _create(req)


@wsgi.expose(min_version="2.2", status=201, name=_CREATE)
@validation.schema(schema.create_v22, "2.2", "2.9")
@validation.schema(schema.create_v210, "2.10", "2.91")
@validation.schema(schema.create_v292, "2.92")
def create_v22(req):
    return _create(req)


def _queries(kind, v210_max, paged=False):
    def decorate(func):
        func = validation.query_schema(getattr(schema, f"{kind}_query"),
                                       "2.1", "2.9")(func)
        if paged:
            func = validation.query_schema(schema.index_query_v210,
                                           "2.10", "2.34")(func)
            func = validation.query_schema(schema.index_query_v235,
                                           "2.35", "2.74")(func)
        else:
            func = validation.query_schema(
                getattr(schema, f"{kind}_query_v210"), "2.10",
                v210_max)(func)
        return validation.query_schema(
            getattr(schema, f"{kind}_query_v275"), "2.75")(func)
    return decorate


@wsgi.expose()
@_queries("index", "2.74", paged=True)
def index(req):
    ctx = req.context
    user_id = _user_id(req)
    _authorize(req, "index", user_id)
    paged = req.version_matches("2.35")
    limit = marker = None
    if paged:
        limit, marker = paging.limit_and_marker(req)
    try:
        keypairs = keypairs_api.get_key_pairs(ctx, user_id, limit, marker)
    except exception.MarkerNotFound as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return view.index(req, keypairs, paged=paged)


@wsgi.expose()
@_queries("show", "2.74")
def show(req, id):
    user_id = _user_id(req)
    _authorize(req, "show", user_id)
    try:
        keypair = keypairs_api.get_key_pair(req.context, user_id, id)
    except exception.KeypairNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return view.show(req, keypair)


def _delete(req, id):
    user_id = _user_id(req)
    _authorize(req, "delete", user_id)
    try:
        keypairs_api.delete_key_pair(req.context, user_id, id)
    except exception.KeypairNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


@wsgi.expose(max_version="2.1", status=202, name=_DELETE)
@_queries("delete", "2.74")
def delete(req, id):
    _delete(req, id)


@wsgi.expose(min_version="2.2", status=204, name=_DELETE)
@_queries("delete", "2.74")
def delete_v22(req, id):
    _delete(req, id)
