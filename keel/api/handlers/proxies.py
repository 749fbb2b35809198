"""Nova's proxy APIs (nova-network, Cinder, Glance-less, Ironic fronts) that
stop at a microversion: above it they answer 404 ``itemNotFound`` exactly as
Nova does.

Below the cut-off Nova forwards to Neutron, Cinder or Ironic. Keel does not
forward yet: such a request gets 501 ``notImplemented`` saying so, rather
than a made-up answer.
"""
import webob.exc

from keel.api import wsgi

# (path, methods, last microversion) from Nova's routes.
PROXIES = [
    ("/os-baremetal-nodes", ("GET", "POST"), "2.35"),
    ("/os-baremetal-nodes/{id}", ("GET", "DELETE"), "2.35"),
    ("/os-baremetal-nodes/{id}/action", ("POST",), "2.35"),
    ("/os-floating-ip-pools", ("GET",), "2.35"),
    ("/os-floating-ips", ("GET", "POST"), "2.35"),
    ("/os-floating-ips/{id}", ("GET", "DELETE"), "2.35"),
    ("/os-networks", ("GET",), "2.35"),
    ("/os-networks/{id}", ("GET",), "2.35"),
    ("/os-security-group-rules", ("POST",), "2.35"),
    ("/os-security-group-rules/{id}", ("DELETE",), "2.35"),
    ("/os-security-groups", ("GET", "POST"), "2.35"),
    ("/os-security-groups/{id}", ("GET", "PUT", "DELETE"), "2.35"),
    ("/os-snapshots", ("GET", "POST"), "2.35"),
    ("/os-snapshots/detail", ("GET",), "2.35"),
    ("/os-snapshots/{id}", ("GET", "DELETE"), "2.35"),
    ("/os-tenant-networks", ("GET",), "2.35"),
    ("/os-tenant-networks/{id}", ("GET",), "2.35"),
    ("/os-volumes", ("GET", "POST"), "2.35"),
    ("/os-volumes/detail", ("GET",), "2.35"),
    ("/os-volumes/{id}", ("GET", "DELETE"), "2.35"),
]


def _not_forwarded(req, **kwargs):
    raise webob.exc.HTTPNotImplemented(
        explanation="This proxy API is not forwarded by OpenKeel Compute; "
                    "use the owning service's API directly.")


# Tools (schema parity) skip handlers that do not implement the API.
_not_forwarded.not_implemented = True


def route_entries(table):
    """Add the proxy routes to ``table`` without replacing existing ones
    (a path such as /os-networks/{id} also has removed methods)."""
    for path, methods, last in PROXIES:
        handler = wsgi.expose(max_version=last,
                              name=f"{__name__}.{path}.{last}")(
            _not_forwarded)
        entry = table.setdefault(path, {})
        for method in methods:
            entry.setdefault(method, handler)
    return table
