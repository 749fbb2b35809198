"""Nova's security group proxy (up to 2.35): os-security-groups,
os-security-group-rules, and — at every microversion — a server's groups
(GET /servers/{id}/os-security-groups) and the add/removeSecurityGroup
actions. Backed by Neutron, or by the single 'default' group when there is
no network service (keel.network.security_groups)."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import proxy_common as common
from keel.api.handlers import server_actions
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import security_groups as schema
from keel.api.views import security_groups as view
from keel import exception
from keel.network import security_groups as sg_api
from keel.network import sg_rules
from keel.policies import network_proxies as names
from keel import policy

MAX = common.MAX_PROXY_VERSION


def _authorize(req, action):
    policy.authorize(req.context, names.SECURITY_GROUPS % action,
                     {"project_id": req.context.project_id})


def _get_group(req, api, id):
    try:
        return api.get(req.context, sg_rules.validate_id(id))
    except exception.SecurityGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


def _render(req, api, groups):
    sources = api.groups_by_ids(req.context, view.source_group_ids(groups))
    return view.sorted_groups(groups, sources)


def _name_and_description(data):
    try:
        return (sg_rules.validate_property(data.get("name"), "name"),
                sg_rules.validate_property(data.get("description"),
                                           "description"))
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose(max_version=MAX, name="security_groups.index")
@validation.query_schema(schema.index_query)
def index(req):
    _authorize(req, "get")
    api = sg_api.get_api()
    all_tenants = "all_tenants" in req.GET
    groups = api.list(req.context, project=req.context.project_id,
                      all_tenants=all_tenants)
    return {"security_groups": _render(req, api,
                                       common.limited(groups, req))}


@wsgi.expose(max_version=MAX, name="security_groups.show")
@validation.query_schema(schema.show_query)
def show(req, id):
    _authorize(req, "show")
    api = sg_api.get_api()
    group = _get_group(req, api, id)
    return {"security_group": _render(req, api, [group])[0]}


@wsgi.expose(max_version=MAX, name="security_groups.create")
@validation.schema(schema.create)
def create(req):
    _authorize(req, "create")
    name, description = _name_and_description(
        req.json_body["security_group"])
    api = sg_api.get_api()
    try:
        group = api.create(req.context, name, description)
    except exception.SecurityGroupLimitExceeded as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return {"security_group": _render(req, api, [group])[0]}


@wsgi.expose(max_version=MAX, name="security_groups.update")
@validation.schema(schema.update)
def update(req, id):
    _authorize(req, "update")
    api = sg_api.get_api()
    group = _get_group(req, api, id)
    name, description = _name_and_description(
        req.json_body["security_group"])
    try:
        group = api.update(req.context, group, name, description)
    except exception.SecurityGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return {"security_group": _render(req, api, [group])[0]}


@wsgi.expose(max_version=MAX, status=202, name="security_groups.delete")
def delete(req, id):
    _authorize(req, "delete")
    api = sg_api.get_api()
    group = _get_group(req, api, id)
    try:
        api.destroy(req.context, group)
    except exception.SecurityGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return None


def _new_rule(req, api, body):
    """Rule values from the request, with Nova's checks and messages."""
    group_id = body.get("group_id")
    if group_id is not None:
        sg_rules.validate_id(group_id)
        api.get(req.context, group_id)
        return sg_rules.new_ingress_rule(
            body.get("ip_protocol"), body.get("from_port"),
            body.get("to_port"), group_id=group_id)
    return sg_rules.new_ingress_rule(
        body.get("ip_protocol"), body.get("from_port"), body.get("to_port"),
        cidr=sg_rules.parse_cidr(body.get("cidr")))


@wsgi.expose(max_version=MAX, name="security_group_rules.create")
@validation.schema(schema.create_rules)
def create_rule(req):
    _authorize(req, "rule:create")
    body = req.json_body["security_group_rule"]
    api = sg_api.get_api()
    try:
        group = api.get(req.context,
                        sg_rules.validate_id(body.get("parent_group_id")))
        values = _new_rule(req, api, body)
        if values is None:
            raise webob.exc.HTTPBadRequest(
                explanation="Not enough parameters to build a valid rule.")
        if "cidr" in values:
            sg_rules.check_prefix(values["cidr"])
        if sg_rules.rule_exists(group, values):
            raise exception.Invalid(
                message="This rule already exists in group %s" % group["id"])
        created = api.create_rule(req.context, group, values)
    except exception.SecurityGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.SecurityGroupLimitExceeded as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    sources = api.groups_by_ids(req.context, {created.get("group_id")} -
                                {None})
    return {"security_group_rule": view.rule(created, sources)}


@wsgi.expose(max_version=MAX, status=202,
             name="security_group_rules.delete")
def delete_rule(req, id):
    _authorize(req, "rule:delete")
    api = sg_api.get_api()
    try:
        rule = api.get_rule(req.context, sg_rules.validate_id(id))
        group = api.get(req.context, rule["parent_group_id"])
        api.remove_rule(req.context, group, rule["id"])
    except exception.SecurityGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.NoUniqueMatch as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return None


# -- a server's groups (every microversion) ---------------------------------

@wsgi.expose(name="server_security_groups.index")
@validation.query_schema(schema.index_server_query, "2.1", "2.101")
@validation.query_schema(schema.index_server_query_v2102, "2.102")
def server_index(req, server_id):
    located = servers_handler.locate(req, server_id)
    servers_handler.authorize_server(req, names.SECURITY_GROUPS % "list",
                                     located)
    api = sg_api.get_api()
    try:
        groups = api.get_instance_security_groups(req.context,
                                                  located.instance)
    except exception.SecurityGroupNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return {"security_groups": _render(req, api, groups)}


def _server_action(req, id, key, rule, call):
    located = servers_handler.locate(req, id)
    servers_handler.authorize_server(req, names.SECURITY_GROUPS % rule,
                                     located)
    group_name = req.json_body[key]["name"]
    if not group_name.strip():
        raise webob.exc.HTTPBadRequest(
            explanation="Security group name cannot be empty")
    try:
        call(req.context, located.instance, group_name)
    except (exception.SecurityGroupNotFound,
            exception.InstanceNotFound) as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.NoUniqueMatch as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except (exception.SecurityGroupCannotBeApplied,
            exception.SecurityGroupExistsForInstance,
            exception.SecurityGroupNotExistsForInstance) as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@server_actions.action("addSecurityGroup")
@wsgi.expose(status=202, name="servers.add_security_group")
@validation.schema(schema.add_security_group)
def add_security_group(req, id):
    _server_action(req, id, "addSecurityGroup", "add",
                   sg_api.get_api().add_to_instance)
    return None


@server_actions.action("removeSecurityGroup")
@wsgi.expose(status=202, name="servers.remove_security_group")
@validation.schema(schema.remove_security_group)
def remove_security_group(req, id):
    _server_action(req, id, "removeSecurityGroup", "remove",
                   sg_api.get_api().remove_from_instance)
    return None


def route_entries():
    return {
        "/os-security-groups": {"GET": index, "POST": create},
        "/os-security-groups/{id}": {"GET": show, "PUT": update,
                                     "DELETE": delete},
        "/os-security-group-rules": {"POST": create_rule},
        "/os-security-group-rules/{id}": {"DELETE": delete_rule},
        "/servers/{server_id}/os-security-groups": {"GET": server_index},
    }
