"""GET /os-instance_usage_audit_log (the last completed audit period) and
/os-instance_usage_audit_log/{before} (the period last completed before a
"YYYY-MM-DD HH:MM:SS[.ffffff]" time): how far the computes' instance usage
audits went. A time in another format is 400, as Nova answers."""
import datetime

import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import instance_usage_audit_log as schema
from keel.compute_api import instance_usage_audit_log as audit_api
from keel.policies import instance_usage_audit_log as names
from keel import policy


@wsgi.expose()
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req):
    policy.authorize(req.context, names.AUDIT_LOG % "list", target={})
    return {"instance_usage_audit_logs": audit_api.audit_log(req.context)}


def _before(value):
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in value else "%Y-%m-%d %H:%M:%S"
    try:
        return datetime.datetime.strptime(value, fmt)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f"Invalid timestamp for date {value}")


@wsgi.expose()
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, id):
    policy.authorize(req.context, names.AUDIT_LOG % "show", target={})
    return {"instance_usage_audit_log": audit_api.audit_log(
        req.context, before=_before(id))}


def route_entries():
    return {"/os-instance_usage_audit_log": {"GET": index},
            "/os-instance_usage_audit_log/{id}": {"GET": show}}
