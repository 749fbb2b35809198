"""Nova's floating IP proxies: os-floating-ips and os-floating-ip-pools (up
to 2.35) and the addFloatingIp/removeFloatingIp server actions (up to
2.43), backed by Neutron's floating IPs (keel.network.floating_ips).
Without a network service there are no pools and no floating IPs."""
import ipaddress

import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import proxy_common as common
from keel.api.handlers import server_actions
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import floating_ips as schema
from keel import context as keel_context
from keel import exception
from keel.network import api as network_api
from keel.network import base as network_base
from keel.network import floating_ips as fip_api
from keel.policies import network_proxies as names
from keel import policy

MAX = common.MAX_PROXY_VERSION
MAX_ACTIONS = "2.43"


def _view(fip):
    port = fip.get("port_details") or {}
    network = fip.get("network_details") or {}
    return {"id": fip["id"], "ip": fip["floating_ip_address"],
            "pool": network.get("name") or network.get("id"),
            "fixed_ip": fip.get("fixed_ip_address"),
            "instance_id": port.get("device_id") or None}


def _authorize(req, action):
    policy.authorize(req.context, names.FLOATING_IPS % action,
                     {"project_id": req.context.project_id})


def _get(req, id):
    try:
        return fip_api.get_api().get_floating_ip(req.context, id)
    except exception.FloatingIpNotFound:
        raise webob.exc.HTTPNotFound(
            explanation="Floating IP not found for ID %s" % id)
    except exception.InvalidID as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose(max_version=MAX, name="floating_ips.index")
def index(req):
    _authorize(req, "list")
    fips = fip_api.get_api().get_floating_ips_by_project(req.context)
    return {"floating_ips": [_view(f) for f in fips]}


@wsgi.expose(max_version=MAX, name="floating_ips.show")
def show(req, id):
    _authorize(req, "show")
    return {"floating_ip": _view(_get(req, id))}


@wsgi.expose(max_version=MAX, name="floating_ips.create")
@validation.schema(schema.create)
def create(req):
    _authorize(req, "create")
    body = req.json_body
    pool = body.get("pool") if isinstance(body, dict) else None
    api = fip_api.get_api()
    try:
        address = api.allocate_floating_ip(req.context, pool)
        fip = api.get_floating_ip_by_address(req.context, address)
    except exception.NoMoreFloatingIps:
        raise webob.exc.HTTPNotFound(
            explanation=("No more floating IPs in pool %s." % pool) if pool
            else "No more floating IPs available.")
    except exception.FloatingIpLimitExceeded:
        raise webob.exc.HTTPForbidden(
            explanation=("IP allocation over quota in pool %s." % pool)
            if pool else "IP allocation over quota.")
    except exception.FloatingIpPoolNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.FloatingIpBadRequest as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return {"floating_ip": _view(fip)}


def _refresh_cache(req, server_id):
    """Re-read the server's network info so its addresses show the change
    (Nova refreshes the info cache after every floating IP change)."""
    if not server_id or not network_api.is_neutron():
        return
    try:
        located = servers_handler.locate(req, server_id,
                                         attrs=["info_cache"])
    except webob.exc.HTTPNotFound:
        return
    if located.cell is None:
        return
    with keel_context.target_cell(req.context, located.cell) as cctxt:
        network_api.get_api().get_instance_nw_info(cctxt, located.instance)


@wsgi.expose(max_version=MAX, status=202, name="floating_ips.delete")
def delete(req, id):
    _authorize(req, "delete")
    fip = _get(req, id)
    server_id = (fip.get("port_details") or {}).get("device_id")
    try:
        fip_api.get_api().release_floating_ip(req.context, fip)
    except exception.FloatingIpNotFoundForAddress as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    _refresh_cache(req, server_id)
    return None


@wsgi.expose(max_version=MAX, name="floating_ip_pools.index")
@validation.query_schema(schema.pools_index_query)
def pools(req):
    policy.authorize(req.context, names.FLOATING_IP_POOLS,
                     {"project_id": req.context.project_id})
    found = fip_api.get_api().get_floating_ip_pools(req.context)
    return {"floating_ip_pools": [{"name": p.get("name") or p["id"]}
                                  for p in found]}


def _fixed_address(instance, id, address, wanted):
    """The fixed IP to NAT to: the one asked for, else the first IPv4."""
    fixed = network_base.cached_nw_info(instance).fixed_ips()
    if not fixed:
        if not network_base.cached_nw_info(instance):
            raise webob.exc.HTTPBadRequest(
                explanation="Instance network is not ready yet")
        raise webob.exc.HTTPBadRequest(
            explanation="No fixed IPs associated to instance")
    if wanted:
        if wanted not in [ip["address"] for ip in fixed]:
            raise webob.exc.HTTPBadRequest(
                explanation="Specified fixed address not assigned to "
                            "instance")
        return wanted
    for ip in fixed:
        if ipaddress.ip_address(ip["address"]).version == 4:
            return ip["address"]
    raise webob.exc.HTTPBadRequest(
        explanation="Unable to associate floating IP %s to any fixed IPs "
                    "for instance %s. Instance has no fixed IPv4 addresses "
                    "to associate." % (address, id))


@server_actions.action("addFloatingIp")
@wsgi.expose(max_version=MAX_ACTIONS, status=202,
             name="servers.add_floating_ip")
@validation.schema(schema.add_floating_ip)
def add_floating_ip(req, id):
    body = req.json_body["addFloatingIp"]
    address = body["address"]
    located = servers_handler.locate(req, id, attrs=["info_cache"])
    servers_handler.authorize_server(req, names.FLOATING_IPS % "add",
                                     located)
    fixed = _fixed_address(located.instance, id, address,
                           body.get("fixed_address"))
    try:
        fip_api.get_api().associate_floating_ip(
            req.context, located.instance, address, fixed)
    except exception.FloatingIpNotFoundForAddress:
        raise webob.exc.HTTPNotFound(explanation="floating IP not found")
    except exception.FloatingIpAssociated:
        raise webob.exc.HTTPBadRequest(
            explanation="floating IP is already associated")
    except exception.Forbidden as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.NovaException as exc:
        raise webob.exc.HTTPBadRequest(
            explanation="Unable to associate floating IP %s to fixed IP %s "
                        "for instance %s. Error: %s" % (
                            address, fixed, id, exc.format_message()))
    _refresh_cache(req, id)
    return None


@server_actions.action("removeFloatingIp")
@wsgi.expose(max_version=MAX_ACTIONS, status=202,
             name="servers.remove_floating_ip")
@validation.schema(schema.remove_floating_ip)
def remove_floating_ip(req, id):
    address = req.json_body["removeFloatingIp"]["address"]
    located = servers_handler.locate(req, id)
    servers_handler.authorize_server(req, names.FLOATING_IPS % "remove",
                                     located)
    api = fip_api.get_api()
    try:
        fip = api.get_floating_ip_by_address(req.context, address)
    except exception.FloatingIpNotFoundForAddress:
        raise webob.exc.HTTPNotFound(explanation="floating IP not found")
    attached_to = (fip.get("port_details") or {}).get("device_id")
    if not fip.get("port_id") or attached_to != located.instance.uuid:
        raise webob.exc.HTTPConflict(
            explanation="Floating IP %s is not associated with instance %s."
                        % (address, id))
    api.disassociate_floating_ip(req.context, located.instance, address)
    _refresh_cache(req, id)
    return None


def route_entries():
    return {
        "/os-floating-ips": {"GET": index, "POST": create},
        "/os-floating-ips/{id}": {"GET": show, "DELETE": delete},
        "/os-floating-ip-pools": {"GET": pools},
    }
