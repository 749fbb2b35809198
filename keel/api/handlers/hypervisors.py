"""os-hypervisors: compute nodes of all cells with their service's state.

Before 2.53: integer ids, ``/{pattern}/search`` and ``/{pattern}/servers``
paths; from 2.53 uuids and the ``hypervisor_hostname_pattern`` and
``with_servers`` query parameters. ``/statistics`` and ``/{id}/uptime``
end at 2.87; from 2.88 the detailed view carries ``uptime``.
"""
from oslo_log import log as logging
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import hypervisors as schema
from keel.api.views import hypervisors as view
from keel.api.views import links
from keel.compute_api import host_api
from keel import exception
from keel import policy

LOG = logging.getLogger(__name__)
POLICY = "os_compute_api:os-hypervisors:%s"


def _authorize(req, action):
    policy.authorize(req.context, POLICY % action, target={})


def _not_found(id):
    return webob.exc.HTTPNotFound(
        explanation=f"Hypervisor with ID '{id}' could not be found.")


def _no_match(pattern):
    return webob.exc.HTTPNotFound(
        explanation=f"No hypervisor matching '{pattern}' could be found.")


def _search(ctx, pattern):
    nodes = host_api.compute_node_search(ctx, pattern)
    if not nodes:
        raise _no_match(pattern)
    return nodes


def _render(req, nodes, detail, with_servers=False):
    """Views of ``[(node, cell_ctx)]``: services (and servers) fetched in
    one query per cell; nodes whose service is gone are left out."""
    ctx = req.context
    services = host_api.services_for_nodes(ctx, nodes)
    servers = host_api.servers_for_nodes(ctx, nodes) if with_servers \
        else {}
    uptimes = {}
    if detail and req.version_matches("2.88"):
        uptimes = host_api.uptimes(ctx, list(services.values()))
    out = []
    for node, cctxt in nodes:
        key = (cctxt.cell_uuid, node.host)
        svc = services.get(key)
        if svc is None:
            LOG.debug("No service for compute node %s; skipped", node.uuid)
            continue
        extra = {"uptime": uptimes.get(node.host)} \
            if detail and req.version_matches("2.88") else {}
        out.append(view.hypervisor(req, node, svc, detail,
                                   servers=servers.get(key),
                                   with_servers=with_servers, **extra))
    return out


def _list(req, detail):
    _authorize(req, "list-detail" if detail else "list")
    ctx = req.context
    limit = marker = None
    pattern, with_servers, paged = None, False, req.version_matches("2.33")
    if paged:
        limit, marker = paging.limit_and_marker(req)
    if req.version_matches("2.53"):
        pattern = req.GET.get("hypervisor_hostname_pattern")
        with_servers = strutils.bool_from_string(
            req.GET.get("with_servers", False), strict=True)
    if pattern is not None:
        if "limit" in req.GET or marker:
            raise webob.exc.HTTPBadRequest(
                explanation="Paging over hypervisors with the "
                            "hypervisor_hostname_pattern query parameter "
                            "is not supported.")
        nodes, paged = _search(ctx, pattern), False
    else:
        try:
            nodes = host_api.compute_node_get_all(ctx, limit=limit,
                                                  marker=marker)
        except exception.MarkerNotFound:
            raise webob.exc.HTTPBadRequest(
                explanation=f"marker [{marker}] not found")
    items = _render(req, nodes, detail, with_servers)
    body = {"hypervisors": items}
    if paged:
        collection = "os-hypervisors/detail" if detail else "os-hypervisors"
        found = links.collection_links(req, items, collection, id_key="id")
        if found:
            body["hypervisors_links"] = found
    return body


@wsgi.expose(name="hypervisors.index")
@validation.query_schema(schema.index_query, "2.1", "2.32")
@validation.query_schema(schema.index_query_v233, "2.33", "2.52")
@validation.query_schema(schema.index_query_v253, "2.53")
def index(req):
    return _list(req, detail=False)


@wsgi.expose(name="hypervisors.detail")
@validation.query_schema(schema.index_query, "2.1", "2.32")
@validation.query_schema(schema.index_query_v233, "2.33", "2.52")
@validation.query_schema(schema.index_query_v253, "2.53")
def detail(req):
    return _list(req, detail=True)


def _check_id(req, id):
    if req.version_matches("2.53"):
        if not uuidutils.is_uuid_like(id):
            raise webob.exc.HTTPBadRequest(explanation=f"Invalid uuid {id}")
    else:
        try:
            int(id)
        except ValueError:
            raise _not_found(id)


def _get_node(req, id):
    _check_id(req, id)
    try:
        return host_api.compute_node_get(req.context, id)
    except exception.ComputeHostNotFound:
        raise _not_found(id)


@wsgi.expose(name="hypervisors.show")
@validation.query_schema(schema.show_query, "2.1", "2.52")
@validation.query_schema(schema.show_query_v253, "2.53")
def show(req, id):
    _authorize(req, "show")
    with_servers = req.version_matches("2.53") and \
        strutils.bool_from_string(req.GET.get("with_servers", False),
                                  strict=True)
    node = _get_node(req, id)
    found = _render(req, [node], True, with_servers)
    if not found:
        raise _not_found(id)
    return {"hypervisor": found[0]}


@wsgi.expose(max_version="2.87", name="hypervisors.uptime")
def uptime(req, id):
    _authorize(req, "uptime")
    node, cctxt = _get_node(req, id)
    try:
        text = host_api.get_host_uptime(req.context, node.host)
    except exception.ComputeServiceUnavailable as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    except (exception.HostMappingNotFound, exception.ComputeHostNotFound):
        raise _not_found(id)
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(
            explanation="Feature not supported.")
    svc = host_api.services_for_nodes(req.context, [(node, cctxt)]).get(
        (cctxt.cell_uuid, node.host))
    if svc is None:
        raise _not_found(id)
    return {"hypervisor": view.hypervisor(req, node, svc, False,
                                          uptime=text)}


@wsgi.expose(max_version="2.52", name="hypervisors.search")
def search(req, id):
    _authorize(req, "search")
    return {"hypervisors": _render(req, _search(req.context, id), False)}


@wsgi.expose(max_version="2.52", name="hypervisors.servers")
def servers(req, id):
    _authorize(req, "servers")
    return {"hypervisors": _render(req, _search(req.context, id), False,
                                   with_servers=True)}


@wsgi.expose(max_version="2.87", name="hypervisors.statistics")
def statistics(req):
    _authorize(req, "statistics")
    return view.statistics(host_api.compute_node_statistics(req.context))


def route_entries():
    return {
        "/os-hypervisors": {"GET": index},
        "/os-hypervisors/detail": {"GET": detail},
        "/os-hypervisors/statistics": {"GET": statistics},
        "/os-hypervisors/{id}": {"GET": show},
        "/os-hypervisors/{id}/uptime": {"GET": uptime},
        "/os-hypervisors/{id}/search": {"GET": search},
        "/os-hypervisors/{id}/servers": {"GET": servers},
    }
