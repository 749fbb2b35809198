"""/servers/{server_id}/ips: the server's addresses by network, from the
network info cache."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import servers as schema
from keel.api.views import servers as view
from keel.policies import servers as names

POLICY = names.IPS


def _addresses(req, server_id, action):
    located = servers_handler.locate(req, server_id, attrs=["info_cache"])
    servers_handler.authorize_server(req, POLICY % action, located)
    return {label: [{"version": a["version"], "addr": a["addr"]}
                    for a in entries]
            for label, entries in view.addresses(located.instance).items()}


@wsgi.expose(name="server_ips.index")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def index(req, server_id):
    return {"addresses": _addresses(req, server_id, "index")}


@wsgi.expose(name="server_ips.show")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, server_id, id):
    addresses = _addresses(req, server_id, "show")
    if id not in addresses:
        raise webob.exc.HTTPNotFound(
            explanation="Instance is not a member of specified network")
    return {id: addresses[id]}


def route_entries():
    return {"/servers/{server_id}/ips": {"GET": index},
            "/servers/{server_id}/ips/{id}": {"GET": show}}
