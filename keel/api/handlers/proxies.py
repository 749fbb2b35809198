"""Nova's proxy APIs that keel does not forward: the Ironic front
(os-baremetal-nodes), up to 2.35; above it they answer 404 ``itemNotFound``
exactly as Nova does, below it 501 ``notImplemented`` saying so rather than
a made-up answer.

The Neutron and Cinder proxies are forwarded: see proxy_networks.py,
security_groups.py, floating_ips.py and volumes.py.
"""
import webob.exc

from keel.api import wsgi

# (path, methods, last microversion) from Nova's routes.
PROXIES = [
    ("/os-baremetal-nodes", ("GET", "POST"), "2.35"),
    ("/os-baremetal-nodes/{id}", ("GET", "DELETE"), "2.35"),
    ("/os-baremetal-nodes/{id}/action", ("POST",), "2.35"),
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
