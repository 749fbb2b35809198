"""addFixedIp / removeFixedIp on POST /servers/{id}/action (Nova's
deprecated os-multinic, 2.1-2.43): 202 once the compute has the request;
the network service's answer reaches the server's faults, not the user."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power
from keel.api.schemas import server_multinic as schema
from keel.compute_api import server_multinic as multinic_api
from keel import exception
from keel.policies import multinic as names


@server_actions.action("addFixedIp")
@wsgi.expose(status=202, max_version="2.43", name="servers.add_fixed_ip")
@validation.schema(schema.add_fixed_ip)
def add_fixed_ip(req, id):
    instance = server_power.located(req, id, names.ADD, in_cell=True)
    network_id = req.json_body["addFixedIp"]["networkId"]
    try:
        server_power.run("addFixedIp", id, multinic_api.add_fixed_ip,
                         req.context, instance, network_id)
    except exception.NoMoreFixedIps as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return None


@server_actions.action("removeFixedIp")
@wsgi.expose(status=202, max_version="2.43",
             name="servers.remove_fixed_ip")
@validation.schema(schema.remove_fixed_ip)
def remove_fixed_ip(req, id):
    instance = server_power.located(req, id, names.REMOVE, in_cell=True)
    address = req.json_body["removeFixedIp"]["address"]
    try:
        server_power.run("removeFixedIp", id, multinic_api.remove_fixed_ip,
                         req.context, instance, address)
    except exception.FixedIpNotFoundForInstance as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return None
