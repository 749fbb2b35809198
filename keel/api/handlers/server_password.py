"""GET and DELETE /servers/{server_id}/os-server-password (Nova's
os-server-password): the encrypted password the guest stored, and its
removal (which does not change the guest's password)."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import server_password as schema
from keel.compute_api import server_password as password_api
from keel.policies import server_password as names

_ATTRS = ["system_metadata"]


@wsgi.expose(name="server_password.index")
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req, server_id):
    found = servers_handler.locate(req, server_id, attrs=_ATTRS)
    servers_handler.authorize_server(req, names.SHOW, found)
    return {"password": password_api.extract_password(found.instance) or ""}


@wsgi.expose(status=204, name="server_password.clear")
def clear(req, server_id):
    found = servers_handler.locate(req, server_id, attrs=_ATTRS)
    servers_handler.authorize_server(req, names.CLEAR, found)
    if found.cell is None:
        # Only a BuildRequest: no instance record to write yet.
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {server_id} could not be found.")
    password_api.clear_password(req.context, found.instance)
    return None


def route_entries():
    return {"/servers/{server_id}/os-server-password": {"GET": index,
                                                        "DELETE": clear}}
