"""/servers/{server_id}/tags (2.26+): list, replace, delete all; check,
add and delete one tag."""
import webob
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_metadata
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import servers as schema
from keel.api.views import links
from keel.compute_api import servers as servers_api
from keel import exception
from keel.policies import servers as names

POLICY = names.TAGS
_TAG = validation.SchemaValidator(schema.tag, is_body=False)


def _located(req, server_id, action):
    located = servers_handler.locate(req, server_id, attrs=["tags"])
    servers_handler.authorize_server(req, POLICY % action, located)
    return located


def _change(func, action, *args):
    try:
        return func(*args)
    except exception.InstanceInvalidState as exc:
        raise server_metadata.conflict(exc, action)
    except exception.InstanceTagNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.InvalidInput as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose("2.26", name="server_tags.index")
@validation.query_schema(schema.show_query)
def index(req, server_id):
    located = _located(req, server_id, "index")
    return {"tags": servers_api.get_tags(req.context, located)}


@wsgi.expose("2.26", name="server_tags.update_all")
@validation.schema(schema.tags_update_all)
def update_all(req, server_id):
    located = _located(req, server_id, "update_all")
    tags = _change(servers_api.set_tags, "update tags", req.context,
                   located, req.json_body["tags"])
    return {"tags": tags}


@wsgi.expose("2.26", status=204, name="server_tags.delete_all")
def delete_all(req, server_id):
    located = _located(req, server_id, "delete_all")
    _change(servers_api.delete_tags, "delete tags", req.context, located)
    return None


@wsgi.expose("2.26", status=204, name="server_tags.show")
@validation.query_schema(schema.show_query)
def show(req, server_id, id):
    located = _located(req, server_id, "show")
    if id not in servers_api.get_tags(req.context, located):
        raise webob.exc.HTTPNotFound(
            explanation=f"Server {server_id} has no tag '{id}'")
    return None


@wsgi.expose("2.26", name="server_tags.update")
@validation.schema(schema.tags_update)
def update(req, server_id, id):
    located = _located(req, server_id, "update")
    _change(servers_api.check_tag_state, "update tag", req.context, located)
    try:
        _TAG.validate(id)
    except exception.ValidationError as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=f"Tag '{id}' is invalid. It must be a non empty "
                        f"string without characters '/' and ','. "
                        f"Validation error message: {exc.kwargs['detail']}")
    added = _change(servers_api.add_tag, "update tag", req.context, located,
                    id)
    resp = webob.Response(status=201 if added else 204)
    resp.headers["Content-Type"] = "application/json"
    if added:
        resp.headers["Location"] = links.url_join(
            links.href(req, "servers", server_id), "tags", id)
    return resp


@wsgi.expose("2.26", status=204, name="server_tags.delete")
def delete(req, server_id, id):
    located = _located(req, server_id, "delete")
    _change(servers_api.delete_tag, "delete tag", req.context, located, id)
    return None


def route_entries():
    return {
        "/servers/{server_id}/tags": {
            "GET": index, "PUT": update_all, "DELETE": delete_all},
        "/servers/{server_id}/tags/{id}": {
            "GET": show, "PUT": update, "DELETE": delete},
    }
