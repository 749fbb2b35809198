"""APIs Nova removed (nova-network, cells v1, certificates, cloudpipe, fping,
agents, consoles …): every call answers 410 Gone, as Nova's stubs do.

They still sit behind authentication and microversion negotiation, exactly
where Nova's stubs sit, so a client sees the same status and body.
"""
import webob.exc

from keel.api import wsgi


@wsgi.expose()
def gone(req, **kwargs):
    raise webob.exc.HTTPGone()


# (path, methods, release that removed it) — from Nova's removed controllers.
REMOVED = [
    ("/os-agents", ("GET", "POST"), "22.0.0"),
    ("/os-agents/{id}", ("PUT", "DELETE"), "22.0.0"),
    ("/os-cells", ("GET", "POST"), "20.0.0"),
    ("/os-cells/capacities", ("GET",), "20.0.0"),
    ("/os-cells/detail", ("GET",), "20.0.0"),
    ("/os-cells/info", ("GET",), "20.0.0"),
    ("/os-cells/sync_instances", ("POST",), "20.0.0"),
    ("/os-cells/{id}", ("GET", "PUT", "DELETE"), "20.0.0"),
    ("/os-cells/{id}/capacities", ("GET",), "20.0.0"),
    ("/os-certificates", ("POST",), "16.0.0"),
    ("/os-certificates/{id}", ("GET",), "16.0.0"),
    ("/os-cloudpipe", ("GET", "POST"), "16.0.0"),
    ("/os-cloudpipe/{id}", ("PUT",), "16.0.0"),
    ("/os-fixed-ips/{id}", ("GET",), "18.0.0"),
    ("/os-fixed-ips/{id}/action", ("POST",), "18.0.0"),
    ("/os-floating-ip-dns", ("GET",), "18.0.0"),
    ("/os-floating-ip-dns/{id}", ("PUT", "DELETE"), "18.0.0"),
    ("/os-floating-ip-dns/{domain_id}/entries/{id}",
     ("GET", "PUT", "DELETE"), "18.0.0"),
    ("/os-floating-ips-bulk", ("GET", "POST"), "18.0.0"),
    ("/os-floating-ips-bulk/{id}", ("GET", "PUT"), "18.0.0"),
    ("/os-fping", ("GET",), "18.0.0"),
    ("/os-fping/{id}", ("GET",), "18.0.0"),
    ("/os-networks", ("POST",), "21.0.0"),
    ("/os-networks/add", ("POST",), "21.0.0"),
    ("/os-networks/{id}", ("DELETE",), "21.0.0"),
    ("/os-networks/{id}/action", ("POST",), "21.0.0"),
    ("/os-security-group-default-rules", ("GET", "POST"), "21.0.0"),
    ("/os-security-group-default-rules/{id}", ("GET", "DELETE"), "21.0.0"),
    ("/os-tenant-networks", ("POST",), "21.0.0"),
    ("/os-tenant-networks/{id}", ("DELETE",), "21.0.0"),
    ("/servers/{server_id}/consoles", ("GET", "POST"), "21.0.0"),
    ("/servers/{server_id}/consoles/{id}", ("GET", "DELETE"), "21.0.0"),
    ("/servers/{server_id}/os-virtual-interfaces", ("GET",), "18.0.0"),
]


# Body actions of removed ``…/action`` routes; an unknown action is still a
# 400 "There is no such action", as Nova answers.
REMOVED_ACTIONS = {
    "/os-fixed-ips/{id}/action": ("reserve", "unreserve"),
    "/os-networks/{id}/action": ("disassociate", "associate_host",
                                 "disassociate_host", "disassociate_project"),
}


def route_entries():
    """``{path: {method: handler}}`` for the route table."""
    table = {}
    for path, methods, _release in REMOVED:
        handler = gone
        if path in REMOVED_ACTIONS:
            handler = wsgi.ActionDispatcher(
                {name: gone for name in REMOVED_ACTIONS[path]})
        table[path] = {m: handler for m in methods}
    return table
