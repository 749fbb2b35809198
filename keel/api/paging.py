"""Paging and sorting parameters of list requests, with Nova's messages."""
import webob.exc

from keel.conf import CONF


def _non_negative_int(req, name):
    raw = req.GET[name]
    try:
        value = int(str(raw))
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f"{name} must be an integer")
    if value < 0:
        raise webob.exc.HTTPBadRequest(explanation=f"{name} must be >= 0")
    return value


def pagination_params(req):
    """``{"limit", "marker", "page_size", "offset"}`` present in the query."""
    params = {}
    for name in ("limit", "page_size", "offset"):
        if name in req.GET:
            params[name] = _non_negative_int(req, name)
    if "marker" in req.GET:
        params["marker"] = req.GET["marker"]
    return params


def limit_and_marker(req):
    """The page size (capped at ``[api]/max_limit``) and marker."""
    params = pagination_params(req)
    max_limit = CONF.api.max_limit
    return min(max_limit, params.get("limit", max_limit)), \
        params.get("marker")


def sort_params(params, default_key="created_at", default_dir="desc"):
    """``sort_key``/``sort_dir`` lists from a query MultiDict (unchanged).

    As Nova: each list defaults to one default entry when absent; pairing
    keys with directions is the database layer's job.
    """
    keys = [k.strip() for k in params.getall("sort_key")]
    dirs = [d.strip() for d in params.getall("sort_dir")]
    if not keys and default_key:
        keys = [default_key]
    if not dirs and default_dir:
        dirs = [default_dir]
    return keys, dirs
