"""Usage of servers over a period (os-simple-tenant-usage).

A server counts when it was running at some point of [start, stop]:
launched before ``stop`` and not terminated before ``start``. Servers are
paged in (project_id, uuid) order across the cells in turn, as Nova does;
each cell costs one query for the page plus one to load it with flavors.
"""
import collections

from oslo_utils import timeutils
import sqlalchemy as sa

from keel.compute_api import host_api
from keel import context as keel_context
from keel.db.cell import models as cell_models
from keel.db import session
from keel import exception
from keel import objects


def _page_uuids(cctxt, start, stop, project_id, limit, marker):
    inst = cell_models.Instance
    where = [inst.launched_at.is_not(None), inst.launched_at < stop,
             sa.or_(inst.terminated_at.is_(None),
                    inst.terminated_at > start)]
    if project_id:
        where.append(inst.project_id == project_id)
    with session.cell_reader(cctxt) as s:
        if marker is not None:
            row = s.execute(sa.select(inst.project_id, inst.uuid).where(
                inst.uuid == marker)).first()
            if row is None:
                raise exception.MarkerNotFound(marker=marker)
            where.append(sa.or_(
                inst.project_id > row.project_id,
                sa.and_(inst.project_id == row.project_id,
                        inst.uuid > row.uuid)))
        stmt = sa.select(inst.uuid).where(*where).order_by(
            inst.project_id, inst.uuid)
        if limit is not None:
            stmt = stmt.limit(limit)
        return list(s.execute(stmt).scalars())


def _instances(ctx, start, stop, project_id, limit, marker):
    """Instances of the window, cells in turn; the marker may be in any."""
    found = []
    for cell in objects.CellMappingList.get_all(ctx):
        with keel_context.target_cell(ctx, cell) as cctxt:
            cctxt.read_deleted = "yes"
            try:
                uuids = _page_uuids(cctxt, start, stop, project_id, limit,
                                    marker)
            except exception.MarkerNotFound:
                continue  # keep looking for the marker in the next cells
            except Exception:  # noqa: BLE001 - a down cell is skipped
                host_api.LOG.warning("Cell %s did not answer", cell.uuid)
                continue
            marker = None
            if uuids:
                page = objects.InstanceList.get_by_filters(
                    cctxt, {"uuid": uuids}, sort_keys=["project_id", "uuid"],
                    sort_dirs=["asc", "asc"], expected_attrs=["flavor"])
                found.extend(page)
            if limit is not None:
                limit -= len(uuids)
                if limit <= 0:
                    break
    if marker is not None and not found:
        raise exception.MarkerNotFound(marker=marker)
    return found


def _hours(inst, start, stop):
    launched = inst.launched_at and timeutils.normalize_time(inst.launched_at)
    ended = inst.terminated_at and \
        timeutils.normalize_time(inst.terminated_at)
    if not launched or (ended and ended < start) or launched > stop:
        return 0
    begin = max(launched, start)
    end = min(stop, ended) if ended else stop
    return (end - begin).total_seconds() / 3600.0


def _flavor(inst):
    # no flavor recorded: the server cannot be billed (Nova's '')
    return inst.flavor if inst.obj_attr_is_set("flavor") else None


def tenant_usages(ctx, start, stop, project_id=None, detailed=True,
                  limit=None, marker=None):
    """``(summaries per tenant, every server usage)`` for the period;
    ``start``/``stop`` naive UTC."""
    now = timeutils.utcnow()
    summaries = collections.OrderedDict()
    servers = []
    for inst in _instances(ctx, start, stop, project_id, limit, marker):
        flavor = _flavor(inst)
        info = {
            "hours": _hours(inst, start, stop),
            "flavor": flavor.name if flavor else "",
            "instance_id": inst.uuid,
            "name": inst.display_name,
            "tenant_id": inst.project_id,
            "memory_mb": flavor.memory_mb if flavor else 0,
            "local_gb": (flavor.root_gb + flavor.ephemeral_gb)
            if flavor else 0,
            "vcpus": flavor.vcpus if flavor else 0,
            "started_at": timeutils.normalize_time(inst.launched_at),
            "ended_at": timeutils.normalize_time(inst.terminated_at)
            if inst.terminated_at else None,
        }
        info["state"] = "terminated" if info["ended_at"] else inst.vm_state
        end = info["ended_at"] or now
        info["uptime"] = int((end - info["started_at"]).total_seconds())
        summary = summaries.get(info["tenant_id"])
        if summary is None:
            summary = summaries[info["tenant_id"]] = {
                "tenant_id": info["tenant_id"], "total_local_gb_usage": 0,
                "total_vcpus_usage": 0, "total_memory_mb_usage": 0,
                "total_hours": 0, "start": start, "stop": stop}
            if detailed:
                summary["server_usages"] = []
        summary["total_local_gb_usage"] += info["local_gb"] * info["hours"]
        summary["total_vcpus_usage"] += info["vcpus"] * info["hours"]
        summary["total_memory_mb_usage"] += info["memory_mb"] * info["hours"]
        summary["total_hours"] += info["hours"]
        servers.append(info)
        if detailed:
            summary["server_usages"].append(info)
    return list(summaries.values()), servers
