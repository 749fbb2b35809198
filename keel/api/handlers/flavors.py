"""GET /flavors, /flavors/detail, /flavors/{id}.

Admins choose the public/private listing with ``is_public`` (``none`` for
both); everyone else sees enabled public flavors plus private ones shared
with their project.
"""
from oslo_utils import strutils
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import flavors as schema
from keel.api.views import flavors as view
from keel.compute_api import flavors as flavors_api
from keel import exception
from keel.policies import flavors as fl_policies
from keel import policy


def can_read_extra_specs(req):
    if not req.version_matches("2.61"):
        return False
    ctx = req.context
    return bool(policy.authorize(
        ctx, fl_policies.EXTRA_SPECS % "index",
        {"project_id": ctx.project_id}, do_raise=False))


def _is_public(raw):
    if raw is None:
        return True  # the default listing: public ones only
    if raw.strip().lower() == "none":
        return None
    try:
        return strutils.bool_from_string(raw, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f"Invalid is_public filter [{raw}]")


def _int_filter(req, param):
    try:
        return int(req.params[param])
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f"Invalid {param} filter [{req.params[param]}]")


def _list(req):
    ctx = req.context
    filters = {}
    if ctx.is_admin:
        filters["is_public"] = _is_public(req.params.get("is_public"))
    else:
        filters["is_public"] = True
        filters["disabled"] = False
    for param, key in (("minRam", "min_memory_mb"),
                       ("minDisk", "min_root_gb")):
        if param in req.params:
            filters[key] = _int_filter(req, param)
    if req.version_matches("2.102") and req.params.get("name"):
        filters["name"] = req.params["name"]
    limit, marker = paging.limit_and_marker(req)
    try:
        return flavors_api.get_all(
            ctx, filters, req.params.get("sort_key") or "flavorid",
            req.params.get("sort_dir") or "asc", limit, marker)
    except exception.MarkerNotFound:
        raise webob.exc.HTTPBadRequest(
            explanation=f"marker [{marker}] not found")


def _query(func):
    func = validation.query_schema(schema.index_query, "2.1", "2.74")(func)
    func = validation.query_schema(schema.index_query_v275, "2.75",
                                   "2.101")(func)
    return validation.query_schema(schema.index_query_v2102, "2.102")(func)


@wsgi.expose()
@_query
def index(req):
    return view.index(req, _list(req))


@wsgi.expose()
@_query
def detail(req):
    flavors = _list(req)
    return view.detail(req, flavors, can_read_extra_specs(req))


@wsgi.expose()
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, id):
    try:
        flavor = flavors_api.get(req.context, id)
    except exception.FlavorNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return view.show(req, flavor, can_read_extra_specs(req))
