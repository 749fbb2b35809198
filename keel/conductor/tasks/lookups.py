"""What the build asks the API database on every boot, each as few
statements as it can be:

- which of these build requests still exist? Asked for a whole request at
  once, reading only the uuids (BuildRequest objects would unpack the
  stored instance of each just to learn that it is there);
- taking the build requests (a compare-and-swap each, one transaction);
- which cell a host is in (cached: host mappings change only when a
  compute is deleted or discovered again);
- the commit point: mapping set and BuildRequest deleted in one
  transaction.
"""
import time

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from keel.conf import CONF
from keel.db.api import models as api_models
from keel.db import session as db_session
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

# How long the hosts' cells are trusted without reading the HostMappings
# again (they change only when a compute is deleted or discovered).
HOST_CELL_TTL = 60.0
_host_cells = {}


# Core statements built once (no ORM session or per-call statement
# building on the hot path); executed on a bare connection.
_BR = api_models.BuildRequest.__table__
_IM = api_models.InstanceMapping.__table__
_PRESENT = sa.select(_BR.c.instance_uuid).where(
    _BR.c.instance_uuid.in_(sa.bindparam("b_uuids", expanding=True)))
_TAKE_NEW = sa.update(_BR).where(
    _BR.c.instance_uuid == sa.bindparam("b_uuid"),
    _BR.c.updated_at.is_(None)).values(updated_at=sa.bindparam("b_stamp"))
_TAKE_SENT = sa.update(_BR).where(
    _BR.c.instance_uuid == sa.bindparam("b_uuid"),
    _BR.c.updated_at == sa.bindparam("b_sent")).values(
        updated_at=sa.bindparam("b_stamp"))
_RENEW = sa.update(_BR).where(
    _BR.c.instance_uuid.in_(sa.bindparam("b_uuids", expanding=True)),
    _BR.c.updated_at == sa.bindparam("b_old")).values(
        updated_at=sa.bindparam("b_new"))
_HELD = sa.select(_BR.c.instance_uuid).where(
    _BR.c.instance_uuid.in_(sa.bindparam("b_uuids", expanding=True)),
    _BR.c.updated_at == sa.bindparam("b_new"))
_MAP = sa.update(_IM).where(
    _IM.c.instance_uuid == sa.bindparam("b_uuid"),
    sa.or_(_IM.c.cell_id.is_(None),
           _IM.c.cell_id == sa.bindparam("b_cell"))).values(
        cell_id=sa.bindparam("b_cell"), updated_at=sa.bindparam("b_now"))
_REMAP = sa.update(_IM).where(
    _IM.c.instance_uuid == sa.bindparam("b_uuid")).values(
        cell_id=sa.bindparam("b_cell"), updated_at=sa.bindparam("b_now"))
_MAPPED_TO = sa.select(_IM.c.cell_id).where(
    _IM.c.instance_uuid == sa.bindparam("b_uuid"))
_HOSTS = sa.select(api_models.HostMapping.__table__.c.host,
                   api_models.HostMapping.__table__.c.cell_id)
_DELETE = sa.delete(_BR).where(_BR.c.instance_uuid == sa.bindparam("b_uuid"))


def _reader(context):
    return db_session.api_context_manager().reader.connection.using(context)


def _writer(context):
    return db_session.api_context_manager().writer.connection.using(context)


def build_requests_present(context, instance_uuids):
    """The subset of ``instance_uuids`` that still have a BuildRequest."""
    if not instance_uuids:
        return set()
    with _reader(context) as conn:
        return set(conn.execute(
            _PRESENT, {"b_uuids": list(instance_uuids)}).scalars())


def take_build_requests(context, build_requests, stamp):
    """The uuids of ``build_requests`` this delivery may build.

    A BuildRequest can be delivered twice: the safety net re-sends one
    whose message looks lost while the original may only be queued behind
    others. Each delivery carries the row's ``updated_at`` as it was when
    sent (None from the API; the re-drive's own stamp from the net); the
    one whose compare-and-swap from that value to ``stamp`` succeeds
    builds, any other copy leaves it alone. Without this both would
    schedule and claim, and the second claim lands on top of the first.
    """
    taken = set()
    with _writer(context) as conn:
        for req in build_requests:
            sent = req.updated_at if req.obj_attr_is_set("updated_at") \
                else None
            params = {"b_uuid": req.instance_uuid, "b_stamp": stamp}
            if sent is None:
                done = conn.execute(_TAKE_NEW, params)
            else:
                params["b_sent"] = sent.replace(tzinfo=None)
                done = conn.execute(_TAKE_SENT, params)
            if done.rowcount == 1:
                taken.add(req.instance_uuid)
    return taken


def renew_build_requests(context, uuids, old, new):
    """Move the take stamp of ``uuids`` from ``old`` to ``new`` where it is
    still ``old`` (keel/conductor/tasks/lease.py); the uuids stamped
    ``new`` afterwards, i.e. still held by the caller."""
    with _writer(context) as conn:
        conn.execute(_RENEW, {"b_uuids": list(uuids), "b_old": old,
                              "b_new": new})
        return set(conn.execute(_HELD, {"b_uuids": list(uuids),
                                        "b_new": new}).scalars())


def cell_of_host(context, host):
    """The CellMapping of ``host``'s HostMapping; HostMappingNotFound if
    it has none. Every host's cell is read at once (two queries) and kept
    HOST_CELL_TTL seconds; a host not among them is read again at once
    (discovery may have just mapped it). Keyed by the API database too:
    one process may serve several (the tests' clouds)."""
    url = CONF.api_database.connection
    now = time.monotonic()
    entry = _host_cells.get(url)
    if entry is None or entry[0] <= now or host not in entry[1]:
        entry = (now + HOST_CELL_TTL, _load_host_cells(context))
        _host_cells[url] = entry
    try:
        return entry[1][host]
    except KeyError:
        raise exception.HostMappingNotFound(name=host) from None


def _load_host_cells(context):
    cells = {cell.id: cell
             for cell in objects.CellMappingList.get_all(context)}
    with _reader(context) as conn:
        rows = conn.execute(_HOSTS).all()
    return {row.host: cells[row.cell_id] for row in rows
            if row.cell_id in cells}


def forget_host_cells():
    _host_cells.clear()


def commit_build(context, instance_uuid, cell):
    """Point the InstanceMapping at ``cell`` and delete the BuildRequest,
    in one API-database transaction: the build's commit point. True if
    this call deleted the BuildRequest; False if it was gone already (the
    user deleted the server meanwhile: the mapping is set all the same,
    as the caller then removes the instance from that cell).
    InstanceMappingNotFound (and nothing changed) without a mapping."""
    params = {"b_uuid": instance_uuid, "b_cell": cell.id,
              "b_now": timeutils.utcnow()}
    with _writer(context) as conn:
        if not conn.execute(_MAP, params).rowcount:
            _remap(conn, cell, params)
        gone = conn.execute(_DELETE, params).rowcount
    return gone == 1


def _remap(conn, cell, params):
    """Rare: no mapping at all, or one pointing at another cell."""
    uuid = params["b_uuid"]
    other = conn.execute(_MAPPED_TO, params).first()
    if other is None:
        raise exception.InstanceMappingNotFound(uuid=uuid)
    LOG.error("During scheduling instance is already mapped to another "
              "cell (id %s). Overwriting the mapping to point at cell %s.",
              other.cell_id, cell.identity, instance_uuid=uuid)
    conn.execute(_REMAP, params)
