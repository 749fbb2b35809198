"""os-server-groups: list (own project; all projects for admins with
``all_projects``; offset/limit paging), show, create (quota counted from
the API database), delete."""
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import server_groups as schema
from keel.api.views import server_groups as view
from keel.compute_api import server_groups as sg_api
from keel.conf import CONF
from keel import exception
from keel.objects import service as service_obj
from keel import policy

POLICY = "os_compute_api:os-server-groups:%s"
# Computes older than this cannot honour max_server_per_host > 1.
_MIN_COMPUTE_FOR_RULES = 33


def _one(req, group):
    live = sg_api.live_members(req.context, [group])
    return {"server_group": view.server_group(req, group, live)}


def _get(req, id):
    try:
        return sg_api.get(req.context, id)
    except exception.InstanceGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


@wsgi.expose(name="server_groups.index")
@validation.query_schema(schema.index_query, "2.1", "2.74")
@validation.query_schema(schema.index_query_v275, "2.75")
def index(req):
    ctx = req.context
    target = {"project_id": ctx.project_id}
    policy.authorize(ctx, POLICY % "index", target=target)
    every = "all_projects" in req.GET and policy.authorize(
        ctx, POLICY % "index:all_projects", target=target, do_raise=False)
    groups = sg_api.list_groups(ctx, None if every else ctx.project_id)
    params = paging.pagination_params(req)
    offset = params.get("offset", 0)
    limit = min(CONF.api.max_limit, params.get("limit") or
                CONF.api.max_limit)
    page = groups[offset:offset + limit]
    live = sg_api.live_members(ctx, page)
    return {"server_groups": [view.server_group(req, g, live)
                              for g in page]}


@wsgi.expose(name="server_groups.show")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, id):
    group = _get(req, id)
    policy.authorize(req.context, POLICY % "show",
                     target={"project_id": group.project_id})
    return _one(req, group)


@wsgi.expose(status=204, name="server_groups.delete")
def delete(req, id):
    group = _get(req, id)
    policy.authorize(req.context, POLICY % "delete",
                     target={"project_id": group.project_id})
    try:
        sg_api.delete(req.context, group)
    except exception.InstanceGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return None


def _rules_supported(ctx, rules):
    if rules and int(rules.get("max_server_per_host", 1)) > 1:
        minimum = service_obj.get_minimum_version_all_cells(
            ctx, ["nova-compute"])["nova-compute"]
        return minimum >= _MIN_COMPUTE_FOR_RULES
    return True


@wsgi.expose(name="server_groups.create")
@validation.schema(schema.create, "2.1", "2.14")
@validation.schema(schema.create_v215, "2.15", "2.63")
@validation.schema(schema.create_v264, "2.64")
def create(req):
    ctx = req.context
    policy.authorize(ctx, POLICY % "create",
                     target={"project_id": ctx.project_id})
    vals = req.json_body["server_group"]
    rules = None
    if req.version_matches("2.64"):
        group_policy = vals["policy"]
        rules = vals.get("rules") or {}
        if group_policy != "anti-affinity" and rules:
            raise webob.exc.HTTPBadRequest(
                explanation="Only anti-affinity policy supports rules.")
        if not _rules_supported(ctx, rules):
            raise webob.exc.HTTPConflict(
                explanation="Creating an anti-affinity group with rule "
                            "max_server_per_host > 1 is not yet supported.")
    else:
        group_policy = vals["policies"][0]
    try:
        group = sg_api.create(ctx, vals["name"], group_policy, rules)
    except exception.Forbidden as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    return _one(req, group)


def route_entries():
    return {
        "/os-server-groups": {"GET": index, "POST": create},
        "/os-server-groups/{id}": {"GET": show, "DELETE": delete},
    }
