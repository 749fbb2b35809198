"""The one route table of the compute API, and the router that serves it.

``ROUTES`` maps a path template (relative to ``/v2.1``) to ``{METHOD:
handler}``. Every path is also served under a leading ``/{project_id}`` (hex
and dashes, as Nova's mapper accepts). A path that matches nothing, or a
known path with a method it does not route, gets webob's plain 404, as from
Nova's router (which has no 405).

Templates are compiled once: literal paths go into a dict, templated ones
into regexes grouped by their first segment, so a lookup is a dict hit or a
handful of regex tries.
"""
import json
import re

import webob
import webob.exc

from keel.api import fault
from keel.api import microversion
from keel.api import wsgi
from keel.api.handlers import flavor_routes
from keel.api.handlers import floating_ips
from keel.api.handlers import proxy_networks
from keel.api.handlers import proxies
from keel.api.handlers import removed
from keel.api.handlers import security_groups
from keel.api.handlers import aggregates
from keel.api.handlers import hypervisors
from keel.api.handlers import images
from keel.api.handlers import instance_actions
from keel.api.handlers import migrations
from keel.api.handlers import server_actions
from keel.api.handlers import server_consoles
from keel.api.handlers import server_delete
from keel.api.handlers import server_create
from keel.api.handlers import server_external_events
from keel.api.handlers import server_groups
from keel.api.handlers import server_ips
from keel.api.handlers import server_metadata
from keel.api.handlers import server_tags
from keel.api.handlers import server_topology
from keel.api.handlers import servers
from keel.api.handlers import services
from keel.api.handlers import simple_tenant_usage
from keel.api.handlers import versions
from keel.api.handlers import volumes
from keel.api.handlers import volume_attachments
from keel.api.handlers import volumes_boot
from keel.api.handlers import extensions
from keel.api.handlers import console_auth_tokens
from keel.api.handlers import hosts
from keel.api.handlers import assisted_volume_snapshots
from keel.api.handlers import instance_usage_audit_log
from keel.api.handlers import interfaces
from keel.api.handlers import server_migrations
from keel.api.handlers import server_diagnostics
from keel.api.handlers import server_password
from keel.api.handlers import server_shares

ROUTES = {
    "/": {"GET": versions.show_version},
    "/versions/{id}": {"GET": versions.show_version},
}
ROUTES.update(flavor_routes.route_entries())
ROUTES.update(removed.route_entries())
ROUTES.update(services.route_entries())
ROUTES.update(hypervisors.route_entries())
ROUTES.update(aggregates.route_entries())
ROUTES.update(server_groups.route_entries())
ROUTES.update(migrations.route_entries())
ROUTES.update(instance_actions.route_entries())
ROUTES.update(simple_tenant_usage.route_entries())
ROUTES.update(server_external_events.route_entries())
ROUTES.update(images.route_entries())
ROUTES.update(server_consoles.route_entries())
ROUTES.update(volume_attachments.route_entries())
ROUTES.update(interfaces.route_entries())
ROUTES.update(server_migrations.route_entries())
ROUTES.update(server_diagnostics.route_entries())
ROUTES.update(server_password.route_entries())
ROUTES.update(server_shares.route_entries())
ROUTES.update(extensions.route_entries())
ROUTES.update(console_auth_tokens.route_entries())
ROUTES.update(hosts.route_entries())
ROUTES.update(assisted_volume_snapshots.route_entries())
ROUTES.update(instance_usage_audit_log.route_entries())
for _module in (servers, server_metadata, server_tags, server_ips,
                server_topology, server_delete, server_actions,
                server_create):
    # Merged per path: other modules add methods to the same paths.
    for _path, _methods in _module.route_entries().items():
        ROUTES.setdefault(_path, {}).update(_methods)
# The servers API again under /os-volumes_boot (2.1-2.102).
ROUTES.update(volumes_boot.route_entries(ROUTES))
for _module in (proxy_networks, security_groups, floating_ips, volumes):
    # Neutron/Cinder proxies; some paths also have removed (410) methods.
    for _path, _methods in _module.route_entries().items():
        ROUTES.setdefault(_path, {}).update(_methods)
proxies.route_entries(ROUTES)

PROJECT_ID_RE = re.compile(r"^/([0-9a-f\-]+)(/.*)?$")
_VAR_RE = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)\}")
_BODY_METHODS = ("POST", "PUT")


def _compile(template):
    pattern, last = "^", 0
    for match in _VAR_RE.finditer(template):
        pattern += re.escape(template[last:match.start()])
        pattern += f"(?P<{match.group(1)}>[^/]+)"
        last = match.end()
    return re.compile(pattern + re.escape(template[last:]) + "$")


def _first_segment(path):
    return path.lstrip("/").split("/", 1)[0]


class RouteMap:
    """Precompiled lookup of ``path -> (methods, path_args)``."""

    def __init__(self, table):
        self.literal = {}
        self.templated = {}
        for template, methods in table.items():
            if "{" not in template:
                self.literal[template] = methods
            else:
                first = _first_segment(template)
                self.templated.setdefault(first, []).append(
                    (_compile(template), methods))

    def match(self, path):
        methods = self.literal.get(path)
        if methods is not None:
            return methods, {}
        for regex, methods in self.templated.get(_first_segment(path), ()):
            found = regex.match(path)
            if found:
                return methods, found.groupdict()
        return None, None

    def lookup(self, path):
        """Direct match, else the same path after a ``/{project_id}``."""
        methods, args = self.match(path)
        if methods is not None:
            return methods, args
        prefixed = PROJECT_ID_RE.match(path)
        if prefixed:
            methods, args = self.match(prefixed.group(2) or "")
            if methods is not None:
                args["project_id"] = prefixed.group(1)
                return methods, args
        return None, None


class Router:
    """WSGI app: route, negotiate the microversion, parse, call, answer."""

    def __init__(self, table=None):
        self.routes = RouteMap(ROUTES if table is None else table)

    def __call__(self, environ, start_response):
        req = wsgi.Request(environ)
        methods, args = self.routes.lookup(req.path_info)
        handler = methods.get(req.method) if methods else None
        if handler is None:
            return webob.exc.HTTPNotFound()(environ, start_response)
        resp = self._dispatch(req, handler, args)
        return resp(environ, start_response)

    def _dispatch(self, req, handler, args):
        try:
            version = microversion.from_headers(req.headers)
        except microversion.InvalidVersionString as exc:
            return fault.fault_response(400, str(exc))
        except microversion.VersionNotSupported as exc:
            return fault.fault_response(406, str(exc))
        req.environ[wsgi.ENV_VERSION] = version
        resp = self._call(req, handler, args)
        for key, value in microversion.response_headers(version):
            resp.headers[key] = value
        return resp

    def _call(self, req, handler, args):
        try:
            problem = self._check_project(req, args.pop("project_id", None))
            if problem is None:
                problem = self._parse_body(req)
            if problem is not None:
                return problem
            return wsgi.to_response(handler(req, **args), 200)
        except Exception as exc:  # noqa: BLE001 - every error gets a body
            return fault.from_exception(exc, req)

    @staticmethod
    def _check_project(req, project_id):
        ctx = req.context
        if project_id is None or ctx is None or project_id == ctx.project_id:
            return None
        return fault.fault_response(
            400, f"Malformed request URL: URL's project_id '{project_id}' "
                 f"doesn't match Context's project_id '{ctx.project_id}'")

    @staticmethod
    def _parse_body(req):
        if req.method not in _BODY_METHODS:
            return None
        ctype = req.headers.get("Content-Type")
        if ctype is not None:
            media = req.content_type
            if media and media != "text/plain" and \
                    media not in wsgi.JSON_TYPES:
                return fault.fault_response(415, "Unsupported Content-Type")
        raw = req.body
        if not raw:
            return None
        try:
            req.environ[wsgi.ENV_BODY] = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return fault.fault_response(400, "Malformed request body")
        return None


def iter_routes(table=None):
    """``(template, method, handler)`` for tools: OpenAPI, parity tests."""
    for template, methods in (ROUTES if table is None else table).items():
        for method, handler in methods.items():
            yield template, method, handler
