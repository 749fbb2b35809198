"""/servers/{server_id}/os-interface: list, show, attach and detach port
interfaces (Nova's attach_interfaces), the device tag shown from 2.70.

Ports are read from the network API (Neutron, or the local API which has
none: lists are empty, a port is a 404 and attaching one fails as Nova
fails for a port or network Neutron does not know)."""
import functools

import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_power
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import interfaces as schema
from keel.compute_api import interfaces as interfaces_api
from keel import exception
from keel.policies import attach_interfaces as names

_BAD_REQUEST = (exception.NetworkInterfaceTaggedAttachNotSupported,
                exception.NetworkDuplicated, exception.NetworkAmbiguous,
                exception.NoMoreFixedIps,
                exception.AttachInterfaceNotSupported,
                exception.PortNotUsable, exception.InvalidInput)
_CONFLICT = (exception.InstanceIsLocked, exception.FixedIpAlreadyInUse,
             exception.PortInUse, exception.InstanceNotReady,
             exception.UnexpectedTaskStateError)


def _errors(action):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(req, **kwargs):
            try:
                return func(req, **kwargs)
            except (exception.PortNotFound,
                    exception.NetworkNotFound) as exc:
                raise webob.exc.HTTPNotFound(
                    explanation=exc.format_message())
            except _BAD_REQUEST as exc:
                raise webob.exc.HTTPBadRequest(
                    explanation=exc.format_message())
            except _CONFLICT as exc:
                raise webob.exc.HTTPConflict(
                    explanation=exc.format_message())
            except exception.InstanceInvalidState as exc:
                raise server_power.conflict(exc, action,
                                            kwargs.get("server_id"))
            except exception.Forbidden as exc:
                raise webob.exc.HTTPForbidden(
                    explanation=exc.format_message())
            except NotImplementedError:
                raise webob.exc.HTTPNotImplemented(
                    explanation="Network driver does not support this "
                                "function.")
            except exception.InterfaceAttachFailed as exc:
                # Nova's answer: the hypervisor failed, not the request.
                raise webob.exc.HTTPInternalServerError(
                    explanation=exc.format_message())
        return wrapper
    return decorator


def _instance(req, server_id, rule):
    found = servers_handler.locate(req, server_id,
                                   attrs=["info_cache", "flavor"])
    servers_handler.authorize_server(req, names.INTERFACES % rule, found)
    if found.cell is None:
        raise webob.exc.HTTPConflict(
            explanation=f"Instance {server_id} is not ready")
    return found.instance


def view(port, tag=None, show_tag=False):
    out = {"net_id": port["network_id"], "port_id": port["id"],
           "mac_addr": port["mac_address"], "port_state": port["status"],
           "fixed_ips": port.get("fixed_ips")}
    if show_tag:
        out["tag"] = tag
    return out


@wsgi.expose(name="interfaces.index")
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
@_errors("list")
def index(req, server_id):
    instance = _instance(req, server_id, "list")
    ports = interfaces_api.network_api().list_ports(
        req.context, device_id=instance.uuid)["ports"]
    show_tag = req.version_matches("2.70")
    tags = interfaces_api.tags_by_port(instance) if show_tag else {}
    return {"interfaceAttachments": [
        view(p, tags.get(p["id"]), show_tag) for p in ports]}


def _show(req, server_id, port_id, instance):
    port = interfaces_api.network_api().show_port(req.context,
                                                  port_id)["port"]
    if port.get("device_id") != server_id:
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {server_id} does not have a port with "
                        f"id {port_id}")
    show_tag = req.version_matches("2.70")
    tag = interfaces_api.tags_by_port(instance).get(port_id) \
        if show_tag else None
    return {"interfaceAttachment": view(port, tag, show_tag)}


@wsgi.expose(name="interfaces.show")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
@_errors("show")
def show(req, server_id, id):
    port_id = id
    instance = _instance(req, server_id, "show")
    return _show(req, server_id, port_id, instance)


@wsgi.expose(name="interfaces.create")
@validation.schema(schema.create, "2.1", "2.48")
@validation.schema(schema.create_v249, "2.49")
@_errors("attach_interface")
def create(req, server_id):
    body = (req.json_body or {}).get("interfaceAttachment") or {}
    network_id, port_id = body.get("net_id"), body.get("port_id")
    requested_ip = (body.get("fixed_ips") or [{}])[0].get("ip_address")
    if network_id and port_id:
        raise webob.exc.HTTPBadRequest(
            explanation="Must not input both network_id and port_id")
    if requested_ip and not network_id:
        raise webob.exc.HTTPBadRequest(
            explanation="Must input network_id when request IP address")
    instance = _instance(req, server_id, "create")
    vif = interfaces_api.attach_interface(
        req.context, instance, network_id, port_id, requested_ip,
        tag=body.get("tag"))
    return _show(req, server_id, vif["id"], instance)


@wsgi.expose(status=202, name="interfaces.delete")
@_errors("detach_interface")
def delete(req, server_id, id):
    port_id = id
    instance = _instance(req, server_id, "delete")
    interfaces_api.detach_interface(req.context, instance, port_id)
    return None


def route_entries():
    base = "/servers/{server_id}/os-interface"
    return {base: {"GET": index, "POST": create},
            base + "/{id}": {"GET": show, "DELETE": delete}}
