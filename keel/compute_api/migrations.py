"""Migrations of every cell (os-migrations), merged in one order.

Each cell is asked once, in parallel, for at most ``limit`` rows after the
marker in the (created_at desc, id desc) order; the answers are merged and
cut to ``limit``. The marker is a migration uuid, looked up in every cell
(once) to get its sort values. A cell that does not answer is skipped.
"""
import sqlalchemy as sa

from oslo_utils import strutils

from keel.compute_api import host_api
from keel.db.cell import models as cell_models
from keel.db import session
from keel import exception
from keel import objects

_EQUAL = ("source_compute", "migration_type", "instance_uuid", "user_id",
          "project_id")


def _where(filters):
    mig = cell_models.Migration
    where = [mig.deleted == 0]
    if "status" in filters:
        status = filters["status"]
        where.append(mig.status.in_(
            [status] if isinstance(status, str) else list(status)))
    if "host" in filters:
        where.append(sa.or_(mig.source_compute == filters["host"],
                            mig.dest_compute == filters["host"]))
    for key in _EQUAL:
        if key in filters and not (key == "source_compute" and
                                   "host" in filters):
            where.append(getattr(mig, key) == filters[key])
    if "hidden" in filters:
        where.append(mig.hidden == strutils.bool_from_string(
            filters["hidden"]))
    if filters.get("changes-since") is not None:
        where.append(mig.updated_at >= filters["changes-since"])
    if filters.get("changes-before") is not None:
        where.append(mig.updated_at <= filters["changes-before"])
    return where


def _after(marker):
    """Rows after the marker in (created_at desc, id desc) order."""
    mig = cell_models.Migration
    created, row_id = marker
    if created is None:
        return sa.and_(mig.created_at.is_(None), mig.id < row_id)
    return sa.or_(mig.created_at < created,
                  sa.and_(mig.created_at == created, mig.id < row_id))


def _marker_values(ctx, marker):
    mig = cell_models.Migration

    def find(cctxt):
        with session.cell_reader(cctxt) as s:
            return s.execute(sa.select(mig.created_at, mig.id)
                             .where(mig.uuid == marker)).first()
    for _cell, row in host_api.gather(ctx, find):
        if row is not None:
            return tuple(row)
    raise exception.MarkerNotFound(marker=marker)


def get_migrations(ctx, filters, limit=None, marker=None):
    """Migration objects of all cells, newest first."""
    where = _where(filters)
    if marker is not None:
        where.append(_after(_marker_values(ctx, marker)))
    mig = cell_models.Migration

    def per_cell(cctxt):
        with session.cell_reader(cctxt) as s:
            stmt = (sa.select(mig).where(*where)
                    .order_by(mig.created_at.desc(), mig.id.desc()))
            if limit is not None:
                stmt = stmt.limit(limit)
            return [objects.Migration._from_db_object(
                cctxt, objects.Migration(), row)
                for row in s.execute(stmt).scalars()]
    found = [m for _cell, rows in host_api.gather(ctx, per_cell)
             for m in rows]
    found.sort(key=lambda m: (m.created_at is not None, m.created_at,
                              m.id), reverse=True)
    return found[:limit] if limit is not None else found
