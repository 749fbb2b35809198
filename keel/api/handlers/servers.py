"""/servers: list, detail (every filter, sort key and paging option, across
cells), show and update.

Extension points for the boot pipeline: ``route_entries()`` gives the
``GET`` of ``/servers`` and ``PUT``/``GET`` of ``/servers/{id}``; create
(``POST /servers``), delete and ``/action`` are added to the same paths by
their own module (``ROUTES`` entries are merged, not replaced:
``route_entries(extra)`` folds ``{"POST": create}``-style dicts in).
"""
import copy

from oslo_utils import strutils
from oslo_utils import timeutils
import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import servers as schema
from keel.api.views import servers as view
from keel.compute_api import instance_list
from keel.compute_api import server_status
from keel.compute_api import servers as servers_api
from keel import exception
from keel import objects
from keel.policies import servers as names
from keel import policy
from keel.servicegroup import api as servicegroup

POLICY = names.SERVERS

# Filters a project member may use (Nova's list, growing by version).
_USER_FILTERS = [("2.1", ("reservation_id", "name", "status", "image",
                          "flavor", "ip", "changes-since", "all_tenants")),
                 ("2.5", ("ip6",)),
                 ("2.26", ("tags", "tags-any", "not-tags", "not-tags-any")),
                 ("2.66", ("changes-before",)),
                 ("2.73", ("locked",)),
                 ("2.83", ("availability_zone", "config_drive", "key_name",
                           "created_at", "launched_at", "terminated_at",
                           "power_state", "task_state", "vm_state",
                           "progress", "user_id"))]
# Query names the databases know under another name.
_RENAMED = {"name": "display_name", "description": "display_description",
            "tenant_id": "project_id"}
# Query parameters that are not filters (or that Nova ignores).
_NOT_FILTERS = {"limit", "marker", "sort_key", "sort_dir", "all_tenants",
                "block_device_mapping", "info_cache", "metadata",
                "pci_devices", "security_groups", "services",
                "system_metadata"}
_TAG_FILTERS = ("tags", "tags-any", "not-tags", "not-tags-any")
LIST_ATTRS = ["metadata", "info_cache", "flavor", "tags", "fault",
              "system_metadata", "trusted_certs"]


def _bad(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def _user_filters(req):
    allowed = set()
    for version, opts in _USER_FILTERS:
        if req.version_matches(version):
            allowed.update(opts)
    return allowed


def _bool(value, what):
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise _bad(f"Invalid value of {what}: {value}")


def _all_tenants(req):
    if "all_tenants" not in req.GET:
        return False
    value = req.GET["all_tenants"]
    if value == "":
        return True
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise _bad(str(exc))


def _time(value, name):
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except ValueError:
        raise _bad(f"Invalid filter field: {name}.")


class _Empty(Exception):
    """The filters can match nothing (unknown status or flavor)."""


def search_filters(req, list_policy):
    """The database filters of a list request, with Nova's rules."""
    ctx = req.context
    raw = {k: req.GET.getall(k) for k in req.GET.keys()}
    if not policy.authorize(ctx, POLICY % "allow_all_filters",
                            target={"project_id": ctx.project_id},
                            do_raise=False):
        allowed = _user_filters(req)
        raw = {k: v for k, v in raw.items() if k in allowed or
               k in ("limit", "marker", "sort_key", "sort_dir")}
    filters = {}
    for key, values in raw.items():
        if key in _NOT_FILTERS or key.startswith("_"):
            continue
        filters[_RENAMED.get(key, key)] = values[-1]
    statuses = raw.get("status")
    filters.pop("status", None)
    if statuses:
        vm_states, task_states = set(), set()
        default = False
        for status in statuses:
            vms, tasks = server_status.states_from_status(status)
            vm_states.update(vms)
            if tasks is None:
                default = True
            else:
                task_states.update(tasks)
        if not vm_states:
            if req.version_matches("2.38"):
                raise _bad("Invalid status value")
            raise _Empty()
        if "deleted" in vm_states and ctx.is_admin:
            filters["deleted"] = True
        filters["vm_state"] = sorted(vm_states)
        if not default:
            filters["task_state"] = sorted(task_states)
    for name in ("changes-since", "changes-before"):
        if name in filters:
            filters[name] = _time(filters[name], name)
    if "changes-since" in filters and "changes-before" in filters and \
            filters["changes-since"] > filters["changes-before"]:
        raise _bad("The value of changes-since must be less than or equal "
                   "to changes-before.")
    if "deleted" in filters and filters["deleted"] is not True:
        filters["deleted"] = strutils.bool_from_string(filters["deleted"],
                                                       default=False)
    if "deleted" not in filters and "changes-since" not in filters and \
            "changes-before" not in filters:
        filters["deleted"] = False
    if "soft_deleted" in filters:
        filters["soft_deleted"] = strutils.bool_from_string(
            filters["soft_deleted"], default=False)
    if "locked" in filters:
        filters["locked"] = _bool(filters["locked"], "locked")
    for name in _TAG_FILTERS:
        if name in filters:
            filters[name] = [t for t in filters[name].split(",") if t]
    if "image" in filters:
        filters["image_ref"] = filters.pop("image").rstrip("/") \
            .rsplit("/", 1)[-1]
    if "flavor" in filters:
        try:
            flavor = objects.Flavor.get_by_flavor_id(ctx, filters.pop(
                "flavor"))
        except exception.FlavorNotFound:
            raise _Empty()
        filters["instance_type_id"] = flavor.id
    # Copies left by a cross-cell resize are never listed.
    filters["hidden"] = False
    if _all_tenants(req):
        policy.authorize(ctx, POLICY % f"{list_policy}:get_all_tenants",
                         target={"project_id": ctx.project_id})
    else:
        filters["project_id"] = ctx.project_id
    return filters


def _sort(req):
    keys, dirs = paging.sort_params(req.GET)
    ignored = set(schema.IGNORED_SORT_KEYS)
    if not req.version_matches("2.73"):
        ignored.add("locked")
    kept_keys, kept_dirs = [], []
    for i, key in enumerate(keys):
        if key in ignored:
            continue
        if key in ("host", "node") and not req.context.is_admin:
            raise webob.exc.HTTPForbidden(
                explanation=f"Only administrators can sort servers by "
                            f"{key}")
        kept_keys.append(key)
        if i < len(dirs):
            kept_dirs.append(dirs[i])
    kept_dirs += dirs[len(keys):]
    if not kept_keys:
        kept_keys, kept_dirs = ["created_at"], kept_dirs or ["desc"]
    return kept_keys, kept_dirs


def _list(req, detail):
    ctx = req.context
    action = "detail" if detail else "index"
    policy.authorize(ctx, POLICY % action,
                     target={"project_id": ctx.project_id})
    limit, marker = paging.limit_and_marker(req)
    try:
        filters = search_filters(req, action)
    except _Empty:
        body = {"servers": []}
        return body
    keys, dirs = _sort(req)
    lctx = copy.copy(ctx)
    if "deleted" not in filters:
        lctx.read_deleted = "yes"
    down_support = req.version_matches("2.69")
    try:
        result = instance_list.get_instances_sorted(
            lctx, filters, limit, marker, LIST_ATTRS if detail else
            ["tags"] if "not-tags" in filters else [], keys, dirs,
            cell_down_support=down_support)
    except exception.MarkerNotFound:
        raise _bad(f"marker [{marker}] not found")
    except exception.InvalidInput as exc:
        raise _bad(exc.format_message())
    instances = result.instances
    if detail:
        extras = page_extras(req, instances)
        servers = [view.minimal(req, i, detail=True) if view.is_minimal(i)
                   else view.server(req, i, extras) for i in instances]
    else:
        servers = [view.minimal(req, i) if view.is_minimal(i)
                   else view.basic(req, i) for i in instances]
    body = {"servers": servers}
    next_links = view.page_links(req, instances, limit)
    if next_links:
        body["servers_links"] = next_links
    return body


def page_extras(req, instances, for_show=False):
    """Policies and per-page data of the server views (one query per cell
    and kind, never per server)."""
    ctx = req.context
    extras = view.Extras(
        show_extended=policy.authorize(
            ctx, names.EXTENDED_ATTRS, target={"project_id": ctx.project_id},
            do_raise=False),
        show_host_status=req.version_matches("2.16") and policy.authorize(
            ctx, POLICY % "show:host_status",
            target={"project_id": ctx.project_id}, do_raise=False),
        show_extra_specs=req.version_matches("2.47") and policy.authorize(
            ctx, POLICY % "show:flavor-extra-specs",
            target={"project_id": ctx.project_id}, do_raise=False))
    real = [i for i in instances if not view.is_minimal(i)]
    by_context = {}
    for inst in real:
        cctxt = getattr(inst, "_context", None)
        if getattr(cctxt, "cell_uuid", None):
            by_context.setdefault(id(cctxt), (cctxt, []))[1].append(inst)
    for cctxt, insts in by_context.values():
        try:
            bdms = objects.BlockDeviceMappingList.bdms_by_instance_uuid(
                cctxt, [i.uuid for i in insts])
        except Exception:
            bdms = {}
        for uuid, bdm_list in bdms.items():
            extras.volumes[uuid] = [
                {"id": b.volume_id,
                 "delete_on_termination": bool(b.delete_on_termination)}
                for b in bdm_list if b.volume_id]
        if extras.show_host_status:
            extras.host_status.update(_host_status(cctxt, insts))
    specs = req.version_matches("2.96")
    groups = for_show and req.version_matches("2.71")
    if real and (specs or groups):
        zones, hints, server_groups = servers_api.show_extras(
            ctx, [i.uuid for i in real], specs=specs, groups=groups)
        if specs:
            extras.pinned_az, extras.scheduler_hints = zones, hints
        extras.server_groups.update(server_groups)
    return extras


def _host_status(cctxt, instances):
    out, services = {}, {}
    group_api = servicegroup.API()
    for inst in instances:
        host = inst.host
        if not host:
            out[inst.uuid] = ""
            continue
        if host not in services:
            try:
                service = objects.Service.get_by_compute_host(cctxt, host)
                if service.disabled:
                    services[host] = "MAINTENANCE"
                elif group_api.is_up(service):
                    services[host] = "UP"
                else:
                    services[host] = "DOWN"
            except Exception:
                services[host] = "UNKNOWN"
        out[inst.uuid] = services[host]
    return out


def _index_schemas(func):
    func = validation.query_schema(schema.index_query, "2.1", "2.25")(func)
    func = validation.query_schema(schema.index_query_v226, "2.26",
                                   "2.65")(func)
    func = validation.query_schema(schema.index_query_v266, "2.66",
                                   "2.72")(func)
    func = validation.query_schema(schema.index_query_v273, "2.73",
                                   "2.74")(func)
    return validation.query_schema(schema.index_query_v275, "2.75")(func)


@wsgi.expose(name="servers.index")
@_index_schemas
def index(req):
    return _list(req, detail=False)


@wsgi.expose(name="servers.detail")
@_index_schemas
def detail(req):
    return _list(req, detail=True)


def locate(req, id, cell_down_support=False, attrs=None):
    """The server ``id`` as a ``servers_api.Located``; 404 in Nova's
    words when it does not exist."""
    try:
        return servers_api.get(req.context, id, expected_attrs=attrs,
                               cell_down_support=cell_down_support)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {id} could not be found.")


def authorize_server(req, action, located):
    """``action`` on a server: another project's server is a 404."""
    inst = located.instance
    policy.authorize_or_not_found(
        req.context, action,
        {"project_id": inst.project_id, "user_id": inst.user_id},
        webob.exc.HTTPNotFound(
            explanation=f"Instance {inst.uuid} could not be found."))


def render(req, located, for_show=True):
    if located.down:
        return {"server": view.minimal(req, located.instance, show=True)}
    extras = page_extras(req, [located.instance], for_show=for_show)
    return {"server": view.server(req, located.instance, extras,
                                  for_show=for_show)}


@wsgi.expose(name="servers.show")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, id):
    located = locate(req, id, req.version_matches("2.69"))
    authorize_server(req, POLICY % "show", located)
    return render(req, located)


def _update(req, id):
    located = locate(req, id)
    authorize_server(req, POLICY % "update", located)
    body = req.json_body["server"]
    try:
        servers_api.update(req.context, located, body)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {id} could not be found.")
    except exception.InvalidInput as exc:
        raise _bad(exc.format_message())
    extras = page_extras(req, [located.instance],
                         for_show=req.version_matches("2.71"))
    return {"server": view.updated(req, located.instance, extras)}


@wsgi.expose(name="servers.update")
@validation.schema(schema.update, "2.1", "2.18")
@validation.schema(schema.update_v219, "2.19", "2.89")
@validation.schema(schema.update_v290, "2.90", "2.93")
@validation.schema(schema.update_v294, "2.94", "2.103")
@validation.schema(schema.update_v2104, "2.104")
def update(req, id):
    return _update(req, id)


def route_entries():
    return {
        "/servers": {"GET": index},
        "/servers/detail": {"GET": detail},
        "/servers/{id}": {"GET": show, "PUT": update},
    }

