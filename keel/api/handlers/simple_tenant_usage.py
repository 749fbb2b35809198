"""os-simple-tenant-usage: hours and resource-hours of servers over a
period, for all tenants (admin) or one; from 2.40 paged by server."""
import datetime
import urllib.parse

from oslo_utils import timeutils
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import simple_tenant_usage as schema
from keel.api.views import links
from keel.api.views import simple_tenant_usage as view
from keel.compute_api import usage as usage_api
from keel.conf import CONF
from keel import exception
from keel import policy

POLICY = "os_compute_api:os-simple-tenant-usage:%s"
_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f",
            "%Y-%m-%d %H:%M:%S.%f")


def _parse(value):
    if not value:
        return timeutils.utcnow()
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise webob.exc.HTTPBadRequest(
        explanation="Invalid datetime string: Datetime is in invalid "
                    "format")


def _period(req):
    # As Nova: read the raw query string (the first value of each name).
    qs = urllib.parse.parse_qs(req.environ.get("QUERY_STRING", ""))
    start = _parse(qs.get("start", [None])[0])
    stop = _parse(qs.get("end", [None])[0])
    if not start < stop:
        raise webob.exc.HTTPBadRequest(
            explanation="Invalid start time. The start time cannot occur "
                        "after the end time.")
    detailed = qs.get("detailed", ["0"])[0] == "1"
    return start, min(stop, timeutils.utcnow()), detailed


def _paging(req, paged):
    if paged:
        return paging.limit_and_marker(req)
    return CONF.api.max_limit, None


def _usages(req, project_id, detailed, paged):
    start, stop, _ = _period(req)
    limit, marker = _paging(req, paged)
    try:
        return usage_api.tenant_usages(
            req.context, start, stop, project_id=project_id,
            detailed=detailed, limit=limit, marker=marker)
    except exception.MarkerNotFound as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


def _links(req, servers, collection):
    return links.collection_links(req, servers, collection,
                                  id_key="instance_id")


@wsgi.expose(name="simple_tenant_usage.index")
@validation.query_schema(schema.index_query, "2.1", "2.39")
@validation.query_schema(schema.index_query_v240, "2.40", "2.74")
@validation.query_schema(schema.index_query_v275, "2.75")
def index(req):
    policy.authorize(req.context, POLICY % "list", target={})
    paged = req.version_matches("2.40")
    summaries, servers = _usages(req, None, _period(req)[2], paged)
    body = {"tenant_usages": view.usages(summaries)}
    if paged:
        found = _links(req, servers, "os-simple-tenant-usage")
        if found:
            body["tenant_usages_links"] = found
    return body


@wsgi.expose(name="simple_tenant_usage.show")
@validation.query_schema(schema.show_query, "2.1", "2.39")
@validation.query_schema(schema.show_query_v240, "2.40", "2.74")
@validation.query_schema(schema.show_query_v275, "2.75")
def show(req, id):
    policy.authorize(req.context, POLICY % "show", target={"project_id": id})
    paged = req.version_matches("2.40")
    summaries, servers = _usages(req, id, True, paged)
    body = {"tenant_usage": view.usages(summaries)[0] if summaries else {}}
    if paged:
        found = _links(req, servers, f"os-simple-tenant-usage/{id}")
        if found:
            body["tenant_usage_links"] = found
    return body


def route_entries():
    return {"/os-simple-tenant-usage": {"GET": index},
            "/os-simple-tenant-usage/{id}": {"GET": show}}
