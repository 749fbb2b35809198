"""/servers/{server_id}/metadata: list, show, merge (POST), replace (PUT),
set one item, delete one item."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import servers as schema
from keel.compute_api import servers as servers_api
from keel import exception
from keel.policies import servers as names

POLICY = names.META


def _located(req, server_id, action):
    located = servers_handler.locate(req, server_id, attrs=["metadata"])
    servers_handler.authorize_server(req, POLICY % action, located)
    return located


def _not_found():
    return webob.exc.HTTPNotFound(explanation="Metadata item was not found")


def _write(req, located, metadata, delete, action):
    try:
        return servers_api.update_metadata(req.context, located, metadata,
                                           delete=delete)
    except exception.InstanceIsLocked as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.InstanceInvalidState as exc:
        raise conflict(exc, action)
    except exception.MetadataLimitExceeded as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())


def conflict(exc, action):
    """Nova's 409 for an action refused in the instance's state."""
    kw = exc.kwargs
    return webob.exc.HTTPConflict(
        explanation=f"Cannot '{action}' instance {kw['instance_uuid']} "
                    f"while it is in {kw['attr']} {kw['state']}")


@wsgi.expose(name="server_metadata.index")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def index(req, server_id):
    located = _located(req, server_id, "index")
    return {"metadata": dict(located.instance.metadata)}


@wsgi.expose(name="server_metadata.create")
@validation.schema(schema.metadata_create)
def create(req, server_id):
    located = _located(req, server_id, "create")
    return {"metadata": _write(req, located, req.json_body["metadata"],
                               False, "update metadata")}


@wsgi.expose(name="server_metadata.update_all")
@validation.schema(schema.metadata_update_all)
def update_all(req, server_id):
    located = _located(req, server_id, "update_all")
    return {"metadata": _write(req, located, req.json_body["metadata"],
                               True, "update metadata")}


@wsgi.expose(name="server_metadata.show")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, server_id, id):
    located = _located(req, server_id, "show")
    metadata = located.instance.metadata
    if id not in metadata:
        raise _not_found()
    return {"meta": {id: metadata[id]}}


@wsgi.expose(name="server_metadata.update")
@validation.schema(schema.metadata_update)
def update(req, server_id, id):
    meta = req.json_body["meta"]
    if id not in meta:
        raise webob.exc.HTTPBadRequest(
            explanation="Request body and URI mismatch")
    located = _located(req, server_id, "update")
    _write(req, located, meta, False, "update metadata")
    return {"meta": meta}


@wsgi.expose(status=204, name="server_metadata.delete")
def delete(req, server_id, id):
    located = _located(req, server_id, "delete")
    if id not in located.instance.metadata:
        raise _not_found()
    try:
        servers_api.delete_metadata_item(req.context, located, id)
    except exception.InstanceIsLocked as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.InstanceInvalidState as exc:
        raise conflict(exc, "delete metadata")
    return None


def route_entries():
    return {
        "/servers/{server_id}/metadata": {
            "GET": index, "POST": create, "PUT": update_all},
        "/servers/{server_id}/metadata/{id}": {
            "GET": show, "PUT": update, "DELETE": delete},
    }
