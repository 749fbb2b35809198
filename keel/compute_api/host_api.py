"""Compute services and compute nodes across cells (os-services and
os-hypervisors).

Services and nodes live in the cell databases; every list asks all cells in
parallel (one query per cell), and the per-host extras the views need (the
service of each node, the availability zone of each host, the servers on
each host) are fetched with one query per cell or one API-database query,
never one per row. A cell that fails or does not answer is skipped, so a
down cell never turns a listing into a 500.
"""
import logging

from oslo_utils import uuidutils
import sqlalchemy as sa

from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import cells as db_cells
from keel.db import session
from keel import exception
from keel import objects
from keel import servicegroup

LOG = logging.getLogger(__name__)

COMPUTE = "nova-compute"
_SERVICEGROUP = servicegroup.API()


def is_up(service):
    return _SERVICEGROUP.is_up(service)


def _cells(ctx):
    return list(objects.CellMappingList.get_all(ctx))


def gather(ctx, fn, cells=None):
    """``[(cell_mapping, result)]`` of ``fn(cell_ctx)`` over the cells that
    answered; failures are logged and left out."""
    cells = _cells(ctx) if cells is None else cells
    results = db_cells.scatter_gather_cells(ctx, cells, db_cells.CELL_TIMEOUT,
                                            fn)
    answered = []
    for cell in cells:
        result = results.get(cell.uuid)
        if db_cells.is_cell_failure_sentinel(result):
            LOG.warning("Cell %s did not answer; leaving it out", cell.uuid)
            continue
        answered.append((cell, result))
    return answered


def zones_by_host(ctx, hosts):
    """{host: availability zone} for computes (one API-database query):
    the zones of the host's aggregates joined with ',' as Nova does, else
    [DEFAULT]/default_availability_zone."""
    hosts = list(set(hosts))
    found = {}
    if hosts:
        agg_host, meta = api_models.AggregateHost, api_models.AggregateMetadata
        with session.api_reader(ctx) as s:
            rows = s.execute(
                sa.select(agg_host.host, meta.value)
                .join(meta, meta.aggregate_id == agg_host.aggregate_id)
                .where(meta.key == "availability_zone",
                       agg_host.host.in_(hosts))).all()
        for host, zone in rows:
            found.setdefault(host, set()).add(zone)
    return {h: ",".join(sorted(found[h])) if h in found
            else CONF.default_availability_zone for h in hosts}


def set_zones(ctx, services):
    """Fill ``availability_zone`` on services (computes from aggregates,
    the others in [DEFAULT]/internal_service_availability_zone)."""
    zones = zones_by_host(ctx, [s.host for s in services
                                if s.binary == COMPUTE])
    for svc in services:
        svc.availability_zone = zones.get(svc.host) \
            if svc.binary == COMPUTE \
            else CONF.internal_service_availability_zone
    return services


# -- services --------------------------------------------------------------
def service_get_all(ctx, cell_down_support=False):
    """Every service of every cell, zones set.

    With ``cell_down_support`` (2.69) a cell that does not answer yields a
    minimal nova-compute record (no uuid) per host mapped to it."""
    cells = _cells(ctx)
    results = db_cells.scatter_gather_cells(
        ctx, cells, db_cells.CELL_TIMEOUT,
        lambda cctxt: list(objects.ServiceList.get_all(cctxt)))
    services, down = [], []
    for cell in cells:
        result = results.get(cell.uuid)
        if db_cells.is_cell_failure_sentinel(result):
            LOG.warning("Cell %s did not answer the service list", cell.uuid)
            down.append(cell)
        else:
            services.extend(result)
    set_zones(ctx, services)
    if cell_down_support:
        for cell in down:
            for hm in _host_mappings_of(ctx, cell):
                services.append(objects.Service(binary=COMPUTE,
                                                host=hm.host))
    return services


def _host_mappings_of(ctx, cell):
    try:
        return objects.HostMappingList.get_by_cell_id(ctx, cell.id)
    except Exception:  # noqa: BLE001 - a minimal record is best effort
        LOG.exception("Could not read the host mappings of cell %s",
                      cell.uuid)
        return []


def service_get_by_id(ctx, service_id):
    """``(service, cell_ctx)`` for a uuid (2.53) or an integer id; an
    integer found in several cells is ServiceNotUnique, as Nova."""
    if uuidutils.is_uuid_like(service_id):
        def find(cctxt):
            return objects.Service.get_by_uuid(cctxt, service_id)
    else:
        def find(cctxt):
            return objects.Service.get_by_id(cctxt, int(service_id))
    hits = [(cell, svc) for cell, svc in gather(ctx, _quiet(find))
            if svc is not None]
    if not hits:
        raise exception.ServiceNotFound(service_id=service_id)
    if len(hits) > 1:
        raise exception.ServiceNotUnique()
    cell, svc = hits[0]
    cctxt = _targeted(ctx, cell)
    svc._context = cctxt
    return svc, cctxt


def _quiet(find):
    """Wrap a per-cell lookup so "not found" is None, not an error."""
    def run(cctxt):
        try:
            return find(cctxt)
        except exception.NotFound:
            return None
    return run


def _targeted(ctx, cell):
    with keel_context.target_cell(ctx, cell) as cctxt:
        return cctxt


def _host_cell_ctx(ctx, host):
    mapping = objects.HostMapping.get_by_host(ctx, host)
    return _targeted(ctx, mapping.cell_mapping)


def service_get_by_host_and_binary(ctx, host, binary):
    """The legacy (< 2.53) update's lookup: through the host mapping."""
    try:
        cctxt = _host_cell_ctx(ctx, host)
        return objects.Service.get_by_args(cctxt, host, binary)
    except (exception.HostMappingNotFound, exception.NotFound):
        raise exception.HostBinaryNotFound(host=host, binary=binary)


def service_update(ctx, service):
    """Save; when ``disabled`` changed on a compute, sync the
    COMPUTE_STATUS_DISABLED trait of its providers."""
    disabled_changed = "disabled" in service.obj_what_changed()
    service.save()
    if disabled_changed and service.binary == COMPUTE:
        _update_compute_provider_status(ctx, service)
    return service


def _update_compute_provider_status(ctx, service):
    """Nova asks the compute (set_host_enabled) when it is up; a down
    compute syncs the trait itself when it starts. If the compute cannot
    answer the call, the API sets the trait through Placement itself."""
    if not is_up(service):
        LOG.info("Compute %s is down; COMPUTE_STATUS_DISABLED will be "
                 "synced when it starts", service.host)
        return
    from keel.compute import rpcapi as compute_rpcapi
    try:
        compute_rpcapi.ComputeAPI().set_host_enabled(
            ctx, service.host, not service.disabled)
        return
    except Exception:  # noqa: BLE001 - fall back to Placement directly
        LOG.info("Compute %s did not sync its disabled trait; setting it "
                 "through Placement", service.host)
    set_disabled_trait(service._context or ctx, service.host,
                       service.disabled)


def placement():
    from keel.clients import placement as pl
    return pl.PlacementClient(conf=CONF)


def set_disabled_trait(cctxt, host, disabled):
    """Add or remove COMPUTE_STATUS_DISABLED on each node provider of
    ``host`` (read traits, write with the generation, retry a conflict)."""
    import os_traits
    from keel.clients import placement as pl
    client = placement()
    try:
        nodes = objects.ComputeNodeList.get_all_by_host(cctxt, host)
    except exception.ComputeHostNotFound:
        return
    for node in nodes:
        for _attempt in range(4):
            try:
                traits, generation = client.get_traits(cctxt, node.uuid)
            except Exception:  # noqa: BLE001 - no provider yet
                LOG.warning("No provider %s to flag", node.uuid)
                break
            wanted = set(traits)
            if disabled:
                wanted.add(os_traits.COMPUTE_STATUS_DISABLED)
            else:
                wanted.discard(os_traits.COMPUTE_STATUS_DISABLED)
            if wanted == traits:
                break
            try:
                client.put_traits(cctxt, node.uuid, wanted, generation)
                break
            except pl.GenerationConflict:
                continue


# -- compute nodes -----------------------------------------------------------
def compute_node_get_all(ctx, limit=None, marker=None):
    """Nodes of all cells ordered by cell then id; ``marker`` is a node
    uuid (2.53) or id, paging continues in the marker's cell."""
    cells = _cells(ctx)
    start = 0
    marker_id = None
    if marker is not None:
        start, marker_id = _find_marker(ctx, cells, marker)
    nodes = []
    for index, cell in enumerate(cells[start:], start):
        if limit is not None and len(nodes) >= limit:
            break
        cctxt = _targeted(ctx, cell)
        want = None if limit is None else limit - len(nodes)
        try:
            found = objects.ComputeNodeList.get_by_pagination(
                cctxt, limit=want,
                marker=marker_id if index == start else None)
        except exception.MarkerNotFound:
            raise
        except Exception:  # noqa: BLE001 - a down cell is skipped
            LOG.warning("Cell %s did not answer the node list", cell.uuid)
            continue
        nodes.extend((n, cctxt) for n in found)
    return nodes


def _find_marker(ctx, cells, marker):
    def find(cctxt):
        if uuidutils.is_uuid_like(marker):
            return objects.ComputeNode.get_by_uuid(cctxt, marker).id
        return objects.ComputeNode.get_by_id(cctxt, int(marker)).id
    for cell, node_id in gather(ctx, _quiet(find), cells):
        if node_id is not None:
            return cells.index(cell), node_id
    raise exception.MarkerNotFound(marker=marker)


def compute_node_get(ctx, node_id):
    """``(node, cell_ctx)`` by uuid or integer id; ComputeHostNotFound."""
    if uuidutils.is_uuid_like(node_id):
        def find(cctxt):
            return objects.ComputeNode.get_by_uuid(cctxt, node_id)
    else:
        try:
            int_id = int(node_id)
        except (TypeError, ValueError):
            raise exception.ComputeHostNotFound(host=node_id)

        def find(cctxt):
            return objects.ComputeNode.get_by_id(cctxt, int_id)
    hits = [(c, n) for c, n in gather(ctx, _quiet(find)) if n is not None]
    if len(hits) != 1:
        raise exception.ComputeHostNotFound(host=node_id)
    cell, node = hits[0]
    return node, _targeted(ctx, cell)


def compute_node_search(ctx, pattern):
    """Nodes whose hypervisor_hostname contains ``pattern``."""
    return [(n, _targeted(ctx, cell)) for cell, found in gather(
        ctx, lambda c: list(objects.ComputeNodeList.get_by_hypervisor(
            c, pattern))) for n in found]


def services_for_nodes(ctx, nodes):
    """{(cell uuid, host): compute Service} for ``[(node, cell_ctx)]``:
    one query per cell involved."""
    by_cell = {}
    for node, cctxt in nodes:
        by_cell.setdefault(cctxt.cell_uuid, (cctxt, set()))[1].add(node.host)
    out = {}
    for cell_uuid, (cctxt, hosts) in by_cell.items():
        svc = cell_models.Service
        with session.cell_reader(cctxt) as s:
            rows = s.execute(sa.select(svc).where(
                svc.binary == COMPUTE, svc.host.in_(hosts),
                svc.deleted == 0)).scalars().all()
            for row in rows:
                out[(cell_uuid, row.host)] = objects.Service._from_db_object(
                    cctxt, objects.Service(), row)
    return out


def servers_for_nodes(ctx, nodes):
    """{(cell uuid, host): [{"name", "uuid"}]} (one query per cell)."""
    by_cell = {}
    for node, cctxt in nodes:
        by_cell.setdefault(cctxt.cell_uuid, (cctxt, set()))[1].add(node.host)
    out = {}
    inst = cell_models.Instance
    for cell_uuid, (cctxt, hosts) in by_cell.items():
        with session.cell_reader(cctxt) as s:
            rows = s.execute(sa.select(inst.host, inst.display_name,
                                       inst.uuid)
                             .where(inst.host.in_(hosts), inst.deleted == 0)
                             .order_by(inst.id)).all()
        for host, name, uuid in rows:
            out.setdefault((cell_uuid, host), []).append(
                {"name": name, "uuid": uuid})
    return out


_STAT_FIELDS = ("vcpus", "memory_mb", "local_gb", "vcpus_used",
                "memory_mb_used", "local_gb_used", "free_ram_mb",
                "free_disk_gb", "current_workload", "running_vms",
                "disk_available_least")


def compute_node_statistics(ctx):
    """Sums over the nodes of enabled, live compute services of all cells
    (one aggregate query per cell)."""
    node, svc = cell_models.ComputeNode, cell_models.Service

    def per_cell(cctxt):
        with session.cell_reader(cctxt) as s:
            stmt = (sa.select(sa.func.count(node.id), *[
                sa.func.sum(getattr(node, f)) for f in _STAT_FIELDS])
                .join(svc, sa.and_(svc.host == node.host,
                                   svc.binary == COMPUTE, svc.deleted == 0))
                .where(node.deleted == 0, svc.disabled == sa.false()))
            return s.execute(stmt).one()
    totals = dict.fromkeys(("count",) + _STAT_FIELDS, 0)
    for _cell, row in gather(ctx, per_cell):
        for key, value in zip(("count",) + _STAT_FIELDS, row):
            totals[key] += int(value or 0)
    return totals


def get_host_uptime(ctx, host):
    """The compute's uptime text; ComputeServiceUnavailable when down."""
    cctxt = _host_cell_ctx(ctx, host)
    service = objects.Service.get_by_compute_host(cctxt, host)
    if not is_up(service):
        raise exception.ComputeServiceUnavailable(host=host)
    from keel.compute import rpcapi as compute_rpcapi
    return compute_rpcapi.ComputeAPI().get_host_uptime(cctxt, host)


def service_delete(ctx, service_id):
    """Delete a service record. A compute must host no servers and no
    in-progress migrations (409); it leaves its aggregates, its node
    providers (with their allocations) and its host mapping, and its
    compute nodes are soft-deleted with it."""
    service, cctxt = service_get_by_id(ctx, service_id)
    if service.binary == COMPUTE:
        if objects.InstanceList.get_uuids_by_hosts(cctxt, [service.host]):
            raise exception.Conflict(
                "Unable to delete compute service that is hosting "
                "instances. Migrate or delete the instances first.")
        try:
            nodes = list(objects.ComputeNodeList.get_all_by_host(
                cctxt, service.host))
        except exception.ComputeHostNotFound:
            nodes = []
        for node in nodes:
            if objects.MigrationList.get_in_progress_by_host_and_node(
                    cctxt, service.host, node.hypervisor_hostname):
                raise exception.Conflict(
                    "Unable to delete compute service that has in-progress "
                    "migrations. Complete the migrations or delete the "
                    "instances first.")
        from keel.compute_api import aggregates
        for agg in aggregates.get_by_host(ctx, service.host):
            aggregates.remove_host(ctx, agg.id, service.host)
        _delete_providers(cctxt, nodes)
        try:
            objects.HostMapping.get_by_host(ctx, service.host).destroy()
        except exception.HostMappingNotFound:
            pass  # started, then deleted before discover_hosts mapped it
    service.destroy()


def _delete_providers(cctxt, nodes):
    from keel.clients import report
    client = report.ReportClient(placement_client=placement(), conf=CONF)
    for node in nodes:
        try:
            client.delete_resource_provider(cctxt, node.uuid, cascade=True)
        except Exception as exc:  # noqa: BLE001
            LOG.error("Failed to delete compute node resource provider "
                      "for compute node %s: %s", node.uuid, exc)
            raise exception.Conflict(
                "Failed to delete compute node resource provider for "
                "compute node %s." % node.uuid)


def uptimes(ctx, services):
    """{host: uptime text or None} for compute services, asked in
    parallel; a down or silent compute gives None (2.88 detail views)."""
    import concurrent.futures
    from keel.compute import rpcapi as compute_rpcapi
    live = {s.host: s for s in services if is_up(s)}
    out = {s.host: None for s in services}
    if not live:
        return out
    api = compute_rpcapi.ComputeAPI()

    def ask(svc):
        try:
            return api.get_host_uptime(svc._context or ctx, svc.host)
        except Exception:  # noqa: BLE001 - uptime is informational
            LOG.debug("No uptime from %s", svc.host, exc_info=True)
            return None
    with concurrent.futures.ThreadPoolExecutor(
            max_workers=min(8, len(live))) as pool:
        for host, text in zip(live, pool.map(ask, live.values())):
            out[host] = text
    return out


def has_done_evacuations(cctxt, host):
    """Evacuations away from ``host`` still 'done' mean its compute has not
    restarted since (it moves them to 'completed'): forcing it up then
    would let it destroy the evacuated servers' disks twice."""
    return bool(objects.MigrationList.get_by_filters(
        cctxt, {"source_compute": host, "status": "done",
                "migration_type": "evacuation"}))
