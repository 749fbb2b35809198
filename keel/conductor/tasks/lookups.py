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

# How long a host's cell is trusted without reading its HostMapping again.
# Only found mappings are kept: a host not mapped yet is looked up each
# time (discovery may map it any moment).
HOST_CELL_TTL = 60.0
_host_cells = {}


def build_requests_present(context, instance_uuids):
    """The subset of ``instance_uuids`` that still have a BuildRequest."""
    if not instance_uuids:
        return set()
    br = api_models.BuildRequest
    with db_session.api_reader(context) as s:
        return set(s.execute(sa.select(br.instance_uuid).where(
            br.instance_uuid.in_(list(instance_uuids)))).scalars())


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
    br = api_models.BuildRequest
    taken = set()
    with db_session.api_writer(context) as s:
        for req in build_requests:
            sent = req.updated_at if req.obj_attr_is_set("updated_at") \
                else None
            same = br.updated_at.is_(None) if sent is None else \
                br.updated_at == sent.replace(tzinfo=None)
            done = s.execute(
                sa.update(br).where(br.instance_uuid == req.instance_uuid,
                                    same).values(updated_at=stamp)
                .execution_options(synchronize_session=False))
            if done.rowcount == 1:
                taken.add(req.instance_uuid)
    return taken


def cell_of_host(context, host):
    """The CellMapping of ``host``'s HostMapping; HostMappingNotFound if
    it has none. Keyed by the API database too: one process may serve
    several (the tests' clouds)."""
    key = (CONF.api_database.connection, host)
    now = time.monotonic()
    hit = _host_cells.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]
    cell = objects.HostMapping.get_by_host(context, host).cell_mapping
    _host_cells[key] = (now + HOST_CELL_TTL, cell)
    return cell


def forget_host_cells():
    _host_cells.clear()


def commit_build(context, instance_uuid, cell):
    """Point the InstanceMapping at ``cell`` and delete the BuildRequest,
    in one API-database transaction: the build's commit point. True if
    this call deleted the BuildRequest; False if it was gone already (the
    user deleted the server meanwhile: the mapping is set all the same,
    as the caller then removes the instance from that cell).
    InstanceMappingNotFound (and nothing changed) without a mapping."""
    im = api_models.InstanceMapping
    br = api_models.BuildRequest
    values = {"cell_id": cell.id, "updated_at": timeutils.utcnow()}
    with db_session.api_writer(context) as s:
        done = s.execute(
            sa.update(im).where(im.instance_uuid == instance_uuid,
                                sa.or_(im.cell_id.is_(None),
                                       im.cell_id == cell.id))
            .values(**values)
            .execution_options(synchronize_session=False)).rowcount
        if not done:
            _remap(s, instance_uuid, cell, values)
        gone = s.execute(
            sa.delete(br).where(br.instance_uuid == instance_uuid)
            .execution_options(synchronize_session=False)).rowcount
    return gone == 1


def _remap(s, instance_uuid, cell, values):
    """Rare: no mapping at all, or one pointing at another cell."""
    im = api_models.InstanceMapping
    other = s.execute(sa.select(im.cell_id).where(
        im.instance_uuid == instance_uuid)).first()
    if other is None:
        raise exception.InstanceMappingNotFound(uuid=instance_uuid)
    LOG.error("During scheduling instance is already mapped to another "
              "cell (id %s). Overwriting the mapping to point at cell %s.",
              other.cell_id, cell.identity, instance_uuid=instance_uuid)
    s.execute(sa.update(im).where(im.instance_uuid == instance_uuid)
              .values(**values)
              .execution_options(synchronize_session=False))
