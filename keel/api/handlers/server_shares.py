"""/servers/{server_id}/shares (2.97): list, attach, show and detach the
Manila shares of a server (Nova's server_shares controller).

Nova authorises against the server's project (403 on failure, not a 404)
and shows admins the mapping's uuid and export location too.
"""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_metadata
from keel.api.schemas import server_shares as schema
from keel.compute_api import server_shares as shares_api
from keel.compute_api import servers as servers_api
from keel import exception
from keel import objects
from keel import policy
from keel.policies import server_shares as names

_NOT_FOUND = (exception.ShareNotFound,)
_CONFLICT = (exception.ShareStatusIncorect,
             exception.ShareMissingExportLocation,
             exception.ShareProtocolNotSupported,
             exception.ShareMappingAlreadyExists,
             exception.ForbiddenSharesNotConfiguredCorrectly)


def _instance(req, server_id, action):
    """The server, once the caller may ``action`` in its project: as
    Nova, the instance mapping names the project (404 in Nova's words
    without one) and the policy is checked before the cell is read."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            req.context, server_id)
    except exception.InstanceMappingNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    policy.authorize(req.context, names.POLICY_ROOT % action,
                     {"project_id": mapping.project_id})
    try:
        located = servers_api.get(req.context, server_id,
                                  expected_attrs=["flavor"])
    except exception.InstanceNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    if located.cell is None:  # still building: not in a cell yet
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {server_id} could not be found.")
    return located.instance


def _share_view(req, mapping):
    share = {"share_id": mapping.share_id, "status": mapping.status,
             "tag": mapping.tag}
    if req.context.is_admin:
        share["export_location"] = mapping.export_location
        share["uuid"] = mapping.uuid
    return {"share": share}


def _translated(func, *args):
    try:
        return func(*args)
    except _NOT_FOUND as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except _CONFLICT as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.ForbiddenSharesNotSupported as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.InstanceInvalidState as exc:
        raise server_metadata.conflict(exc, exc.kwargs["method"])


@wsgi.expose("2.97", name="server_shares.index")
@validation.query_schema(schema.index_query)
def index(req, server_id):
    instance = _instance(req, server_id, "index")
    return {"shares": [
        {"share_id": m.share_id, "status": m.status, "tag": m.tag}
        for m in shares_api.list_shares(instance)]}


@wsgi.expose("2.97", status=201, name="server_shares.create")
@validation.schema(schema.create, "2.97")
def create(req, server_id):
    instance = _instance(req, server_id, "create")
    share = req.json_body["share"]
    mapping = _translated(shares_api.allow_share, req.context, instance,
                          share["share_id"], share.get("tag"))
    return _share_view(req, mapping)


@wsgi.expose("2.97", name="server_shares.show")
@validation.query_schema(schema.show_query)
def show(req, server_id, id):
    instance = _instance(req, server_id, "show")
    mapping = _translated(shares_api.get_share, instance, id)
    return _share_view(req, mapping)


@wsgi.expose("2.97", name="server_shares.delete")
def delete(req, server_id, id):
    instance = _instance(req, server_id, "delete")
    _translated(shares_api.deny_share, req.context, instance, id)
    return None


def route_entries():
    return {
        "/servers/{server_id}/shares": {"GET": index, "POST": create},
        "/servers/{server_id}/shares/{id}": {"GET": show, "DELETE": delete},
    }
