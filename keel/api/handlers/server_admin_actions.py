"""Admin server actions on POST /servers/{id}/action: os-resetState and
injectNetworkInfo (Nova's os-admin-actions)."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import server_admin_actions as schema
from keel.compute_api import server_admin_actions as admin_api
from keel.policies import admin_actions as names


@server_actions.action("os-resetState")
@wsgi.expose(status=202, name="servers.reset_state")
@validation.schema(schema.reset_state)
def reset_state(req, id):
    state = req.json_body["os-resetState"]["state"]
    found = servers_handler.locate(req, id)
    servers_handler.authorize_server(req, names.RESET_STATE, found)
    if found.cell is None:
        # Only a BuildRequest: no instance record to write yet (Nova's save
        # of such an instance finds no row).
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {id} could not be found.")
    instance = found.instance
    server_power.run("os-resetState", id, admin_api.reset_state,
                     req.context, instance, state)
    return None


@server_actions.action("injectNetworkInfo")
@wsgi.expose(status=202, name="servers.inject_network_info")
@validation.schema(schema.inject_network_info)
def inject_network_info(req, id):
    instance = server_power.located(req, id, names.INJECT_NETWORK_INFO,
                                    in_cell=True)
    server_power.run("injectNetworkInfo", id, admin_api.inject_network_info,
                     req.context, instance)
    return None
