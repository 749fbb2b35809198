"""os-migrations: every cell's migrations, newest first; filters, and from
2.59 marker/limit paging with links and changes-since (2.66
changes-before, 2.80 user_id/project_id)."""
from oslo_utils import timeutils
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import migrations as schema
from keel.api.views import links
from keel.api.views import migrations as view
from keel.compute_api import migrations as mig_api
from keel import exception
from keel import policy

_FILTERS = ("status", "host", "source_compute", "migration_type", "hidden",
            "instance_uuid")


def _time(req, name):
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(
            req.GET[name]))
    except ValueError as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))


@wsgi.expose(name="migrations.index")
@validation.query_schema(schema.index_query_v20, "2.1", "2.58")
@validation.query_schema(schema.index_query_v259, "2.59", "2.65")
@validation.query_schema(schema.index_query_v266, "2.66", "2.79")
@validation.query_schema(schema.index_query_v280, "2.80")
def index(req):
    policy.authorize(req.context, "os_compute_api:os-migrations:index",
                     target={})
    filters = {k: req.GET[k] for k in _FILTERS if k in req.GET}
    paged = req.version_matches("2.59")
    limit = marker = None
    if paged:
        limit, marker = paging.limit_and_marker(req)
        if "changes-since" in req.GET:
            filters["changes-since"] = _time(req, "changes-since")
    if req.version_matches("2.66") and "changes-before" in req.GET:
        filters["changes-before"] = _time(req, "changes-before")
        since = filters.get("changes-since")
        if since and filters["changes-before"] < since:
            raise webob.exc.HTTPBadRequest(
                explanation="The value of changes-since must be less than "
                            "or equal to changes-before.")
    if req.version_matches("2.80"):
        for key in ("user_id", "project_id"):
            if key in req.GET:
                filters[key] = req.GET[key]
    try:
        found = mig_api.get_migrations(req.context, filters, limit=limit,
                                       marker=marker)
    except exception.MarkerNotFound as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    items = [view.migration(req, m) for m in found]
    body = {"migrations": items}
    if paged:
        found_links = links.collection_links(req, items, "os-migrations")
        if found_links:
            body["migrations_links"] = found_links
    return body


def route_entries():
    return {"/os-migrations": {"GET": index}}
