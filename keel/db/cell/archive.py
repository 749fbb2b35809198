"""Archiving soft-deleted rows of a cell database into its shadow tables,
and purging the shadow tables (``keel manage db archive_deleted_rows`` /
``db purge``, as nova-manage's).

A soft-deleted row (``deleted != 0``) is copied into ``shadow_<table>`` and
removed from the live table, children before parents so foreign keys hold.
Rows that reference an archived row are archived with it even when they are
not soft-deleted themselves (instance actions and their events never are),
since the live table could not keep them.
"""
import collections

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from keel.db.cell import models
from keel.db.cell import shadow

LOG = logging.getLogger(__name__)

_METADATA = models.Base.metadata


def _archived_tables(task_log):
    """Live tables with a shadow copy, children before their parents."""
    names = set(shadow.ARCHIVED)
    if not task_log:
        names.discard("task_log")
    return [t for t in reversed(_METADATA.sorted_tables) if t.name in names]


def _children(table):
    """(child table, child column, referred column) for FKs to ``table``."""
    for child in _METADATA.sorted_tables:
        if child.name.startswith("shadow_"):
            continue
        for fk in child.foreign_keys:
            if fk.column.table is table:
                yield child, fk.parent, fk.column


def _as_shadow(conn, column, shadow_column):
    """The live column as the shadow column accepts it.

    On PostgreSQL instances.locked_by and its shadow have distinct enum
    types, which do not convert into each other; text converts into both.
    """
    if (conn.dialect.name == "postgresql"
            and isinstance(column.type, sa.Enum)
            and column.type.name != shadow_column.type.name):
        return sa.cast(sa.cast(column, sa.Text), shadow_column.type)
    return column


def _move(conn, table, where, counts):
    """Copy the rows matching ``where`` to the shadow table, then delete."""
    for child, child_col, referred in _children(table):
        values = conn.scalars(sa.select(referred).where(where)).all()
        if values and child.name in shadow.SHADOW_TABLES:
            _move(conn, child, child_col.in_(values), counts)
    shadow_table = shadow.SHADOW_TABLES[table.name]
    exprs = [_as_shadow(conn, col, shadow_table.c[col.name])
             for col in table.columns]
    conn.execute(shadow_table.insert().from_select(
        [c.name for c in table.columns], sa.select(*exprs).where(where)))
    counts[table.name] += conn.execute(table.delete().where(where)).rowcount


def archive_deleted_rows(engine, max_rows, before=None, task_log=False):
    """Archive at most ``max_rows`` soft-deleted rows (plus dependents).

    Returns ``({table: rows}, [archived instance uuids], rows)`` where rows
    counts only the soft-deleted rows selected, as Nova counts them.
    """
    table_to_rows = collections.Counter()
    instance_uuids = []
    total = 0
    for table in _archived_tables(task_log):
        remaining = max_rows - total
        if remaining <= 0:
            break
        query = sa.select(table.c.id).where(table.c.deleted != 0)
        if before is not None:
            query = query.where(table.c.deleted_at < before)
        try:
            with engine.begin() as conn:
                # Ids first: MySQL cannot LIMIT inside an IN subquery.
                ids = conn.scalars(query.order_by(table.c.id).limit(
                    remaining)).all()
                if not ids:
                    continue
                uuids = []
                if table.name == "instances":
                    uuids = conn.scalars(sa.select(table.c.uuid).where(
                        table.c.id.in_(ids))).all()
                counts = collections.Counter()
                _move(conn, table, table.c.id.in_(ids), counts)
        except (db_exc.DBReferenceError, sa.exc.IntegrityError) as exc:
            # Something without a shadow table still refers to a row: leave
            # this table for a later run (the transaction rolled back).
            LOG.warning("IntegrityError detected when archiving table "
                        "%(table)s: %(error)s",
                        {"table": table.name, "error": exc})
            continue
        table_to_rows.update(counts)
        instance_uuids.extend(uuids)
        total += len(ids)
    return ({t: n for t, n in table_to_rows.items() if n}, instance_uuids,
            total)


def _age_column(table):
    for name in ("deleted_at", "updated_at", "created_at"):
        if name in table.c:
            return table.c[name]
    return None


def purge_shadow_tables(engine, before=None, status_fn=None):
    """Delete shadow rows (all, or older than ``before``); rows deleted."""
    status_fn = status_fn or (lambda msg: None)
    deleted = 0
    with engine.begin() as conn:
        for name in sorted(shadow.SHADOW_TABLES):
            table = shadow.SHADOW_TABLES[name]
            stmt = table.delete()
            if before is not None:
                column = _age_column(table)
                if column is None:
                    continue
                stmt = stmt.where(column < before)
            rows = conn.execute(stmt).rowcount
            if rows:
                status_fn("Deleted %i rows from %s" % (rows, table.name))
            deleted += rows
    return deleted
