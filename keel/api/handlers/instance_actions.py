"""os-instance-actions: the actions recorded on a server and (for those
allowed) their events. From 2.21 a deleted server's actions stay visible;
2.58 pages by request id with changes-since (2.66 changes-before)."""
from oslo_utils import timeutils
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import instance_actions as schema
from keel.api.views import instance_actions as view
from keel.api.views import links
from keel.compute_api import instance_actions as actions_api
from keel import exception
from keel import policy

POLICY = "os_compute_api:os-instance-actions:%s"


def _instance(req, server_id, action):
    try:
        instance, cctxt = actions_api.get_instance(
            req.context, server_id,
            read_deleted=req.version_matches("2.21"))
    except exception.InstanceNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    policy.authorize_or_not_found(
        req.context, POLICY % action, {"project_id": instance.project_id},
        webob.exc.HTTPNotFound(explanation=f"Instance {server_id} could "
                                           f"not be found."))
    return instance, cctxt


def _time(req, name):
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(
            req.GET[name]))
    except ValueError as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))


@wsgi.expose(max_version="2.57", name="instance_actions.index")
@validation.query_schema(schema.index_query)
def index_legacy(req, server_id):
    instance, cctxt = _instance(req, server_id, "list")
    return {"instanceActions": [
        view.action(req, a)
        for a in actions_api.list_actions(cctxt, instance)]}


@wsgi.expose(min_version="2.58", name="instance_actions.index")
@validation.query_schema(schema.index_query_v258, "2.58", "2.65")
@validation.query_schema(schema.index_query_v266, "2.66")
def index(req, server_id):
    instance, cctxt = _instance(req, server_id, "list")
    filters = {}
    for name in ("changes-since", "changes-before"):
        if name in req.GET:
            filters[name] = _time(req, name)
    since, before = filters.get("changes-since"), \
        filters.get("changes-before")
    if since and before and before < since:
        raise webob.exc.HTTPBadRequest(
            explanation="The value of changes-since must be less than or "
                        "equal to changes-before.")
    limit, marker = paging.limit_and_marker(req)
    try:
        found = actions_api.list_actions(cctxt, instance, limit=limit,
                                         marker=marker, filters=filters)
    except exception.MarkerNotFound as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    items = [view.action(req, a) for a in found]
    body = {"instanceActions": items}
    next_links = links.collection_links(
        req, items, f"servers/{server_id}/os-instance-actions",
        id_key="request_id")
    if next_links:
        body["links"] = next_links
    return body


@wsgi.expose(name="instance_actions.show")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, server_id, id):
    instance, cctxt = _instance(req, server_id, "show")
    act = actions_api.get_action(cctxt, instance, id)
    if act is None:
        raise webob.exc.HTTPNotFound(explanation=f"Action {id} not found")
    body = view.action(req, act)
    target = {"project_id": instance.project_id}
    full = policy.authorize(req.context, POLICY % "events", target,
                            do_raise=False)
    if full or req.version_matches("2.51"):
        details = req.version_matches("2.84") and policy.authorize(
            req.context, POLICY % "events:details", target, do_raise=False)
        project_id = act.project_id or ""
        body["events"] = [
            view.event(evt, project_id, traceback=bool(full),
                       host=bool(full) and req.version_matches("2.62"),
                       host_id=req.version_matches("2.62"),
                       details=bool(details))
            for evt in actions_api.list_events(cctxt, act.id)]
    return {"instanceAction": body}


def route_entries():
    return {
        "/servers/{server_id}/os-instance-actions": {"GET": index},
        "/servers/{server_id}/os-instance-actions/{id}": {"GET": show},
    }
