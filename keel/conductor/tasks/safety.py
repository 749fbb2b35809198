"""The conductor's periodic safety nets: no server stays in BUILD for ever
and no allocation outlives its instance, whatever process died when.

What can be lost, and why
-------------------------
oslo.messaging's RabbitMQ driver acknowledges an RPC message when the
server *receives* it, before the endpoint runs (and keel's queues are not
durable, as Nova's by default: ``[oslo_messaging_rabbit]/amqp_durable_queues``
is False and casts are not persistent). So:

- a conductor killed while it works on ``schedule_and_build_instances``
  (or with received casts waiting for a worker thread) loses them: the
  BuildRequests stay, maybe with a claim already taken in Placement;
- a conductor killed between writing the instance to its cell and the
  ``build_and_run_instance`` cast leaves an instance in BUILD with no host,
  possibly with its BuildRequest still there (between mapping and commit);
- a compute killed during a build leaves its instances in BUILD; casts
  not yet received stay queued for it (its queue outlives the process)
  and are handled when it comes back; received ones are lost;
- a RabbitMQ restart loses every queued cast.

Casts still queued behind a slow conductor are *not* lost, just late: the
thresholds below are long enough that those are not mistaken for lost.

How each is recovered (this module, every few seconds in each conductor)
-----------------------------------------------------------------------
1. ``redrive_lost_builds``: a BuildRequest untouched for longer than
   ``redrive_after()`` is cast again to ``schedule_and_build_instances``
   (any claim the lost delivery took is released first with Placement's
   consumer generation, so the new claim is not a conflict). One conductor
   acts per BuildRequest and period: it stamps the row's ``updated_at``
   with a compare-and-swap on the value it read. A re-drive is safe
   against a late original delivery: the conductor skips a BuildRequest
   that is gone and never re-places an instance mapped to a cell, and the
   BuildRequest's delete stays the single commit point. Lost with the
   message and not re-sent: the admin password and personality files
   (Nova keeps them nowhere else). The copy carries the stamp, and the
   conductor that receives a delivery takes the BuildRequest with the same
   compare-and-swap from the value its message carries (setting a stamp of
   its own): so of an original that was only late and its re-drive, one
   builds and the other drops out before claiming anything. A
   BuildRequest older than ``build_timeout()`` and stamped before (taken
   by a conductor or re-driven) is buried in cell0 in ERROR with a fault
   instead.
   A BuildRequest whose instance is already in a cell (mapped or not:
   the conductor died between writing it, mapping it and deleting the
   BuildRequest) is committed now: mapped there and deleted, and its
   instance is then handled by (2) — never built a second time.
2. ``error_out_abandoned_builds``: an instance in BUILD for longer than
   ``build_timeout()`` whose host is unknown (the cast was lost) or whose
   compute service is down goes to ERROR with a fault (compare-and-swap on
   vm_state and the task_state read) and its allocations are removed. An
   instance on a live compute is that compute's (its start-up recovery and
   its own periodics).
3. ``remove_orphaned_allocations``: allocations of deleted instances are
   removed, node by node (keel/compute/resources/orphans.py), so they are
   cleaned even for nodes whose compute never comes back (every
   ``ORPHANS_SPACING`` seconds, the computes' own period for their nodes).

``build_timeout()`` is ``[DEFAULT]/instance_build_timeout`` or, when that
is 0 (Nova's "disabled"), ``DEFAULT_BUILD_TIMEOUT``: the conductor has no
other way to tell "lost" from "slow".
"""
import datetime
import time

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db import session as db_session
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

DEFAULT_BUILD_TIMEOUT = 900
BATCH = 100
BUILDING = "building"
ERROR = "error"

_NOT_SCHEDULED = ("the build request was not scheduled within %d seconds "
                  "(its message was lost)")
_HOST_LOST = ("the build did not finish within %d seconds and its compute "
              "host is gone (%s)")


def build_timeout(conf=CONF):
    return conf.instance_build_timeout or DEFAULT_BUILD_TIMEOUT


def redrive_after(conf=CONF):
    # Never sooner than a live delivery can take: its scheduler call
    # alone may wait rpc_response_timeout for an answer lost with the
    # broker (call monitor), and a request re-sent while its original is
    # still at work has its claim released under it.
    return max(1, build_timeout(conf) // 2, 2 * conf.rpc_response_timeout)


def spacing(conf=CONF):
    """How often the conductor runs these (seconds)."""
    return max(1, min(60, build_timeout(conf) // 6))


# The orphan sweep reads every node's allocations from Placement: as
# often as a compute sweeps its own nodes (keel/compute/manager.py), not
# at the spacing of the build nets. Live computes clean their nodes
# themselves; this one is for nodes whose compute never comes back. The
# first pass comes one period after the conductor starts (as a periodic
# task that does not run immediately): each of its workers read every
# node's allocations in its first seconds, in the middle of whatever load
# came with the (re)start, for nodes the computes clean at their own start.
ORPHANS_SPACING = 600
_orphans_last = [None]


def _orphans_due(now):
    last = _orphans_last[0]
    if last is None:
        _orphans_last[0] = now
        return False
    if now - last < ORPHANS_SPACING:
        return False
    _orphans_last[0] = now
    return True


def run(context, compute_task_api, report, host):
    """All three nets; each one's failure is logged and the others run."""
    done = {}
    steps = [("redriven", lambda: redrive_lost_builds(
                 context, compute_task_api, report, host)),
             ("errored", lambda: error_out_abandoned_builds(
                 context, report, host))]
    if _orphans_due(time.monotonic()):
        steps.append(("orphans", lambda: remove_orphaned_allocations(
            context, report)))
    for name, step in steps:
        try:
            done[name] = step()
        except Exception:  # noqa: BLE001 - next period tries again
            LOG.exception("Safety net %s failed", name)
    return done


# -- 1. BuildRequests whose schedule_and_build_instances was lost -----------

def _stale_build_requests(context, now):
    t = api_models.BuildRequest
    touched = sa.func.coalesce(t.updated_at, t.created_at)
    limit = now - datetime.timedelta(seconds=redrive_after())
    with db_session.api_reader(context) as session:
        return session.execute(
            sa.select(t.id, t.instance_uuid, t.created_at, t.updated_at)
            .where(touched < limit).order_by(t.id).limit(BATCH)).all()


def _stamp(now):
    # Whole seconds: what MySQL's DATETIME keeps, so the value a re-drive
    # carries is the one stored (keel/conductor/tasks/lookups.py).
    return now.replace(microsecond=0)


def _take(context, row, now):
    """Compare-and-swap on updated_at: True for the one conductor that
    acts on this BuildRequest in this period."""
    t = api_models.BuildRequest
    same = t.updated_at.is_(None) if row.updated_at is None \
        else t.updated_at == row.updated_at
    with db_session.api_writer(context) as session:
        result = session.execute(
            sa.update(t).where(t.id == row.id, same)
            .values(updated_at=_stamp(now)).execution_options(
                synchronize_session=False))
        return result.rowcount == 1


def redrive_lost_builds(context, compute_task_api, report, host, now=None):
    now = now or timeutils.utcnow().replace(tzinfo=None)
    acted = []
    for row in _stale_build_requests(context, now):
        try:
            if _redrive_one(context, compute_task_api, report, host, row,
                            now):
                acted.append(row.instance_uuid)
        except Exception:  # noqa: BLE001 - one row must not stop the rest
            LOG.exception("Could not recover build request of %s",
                          row.instance_uuid)
    return acted


def _redrive_one(context, compute_task_api, report, host, row, now):
    uuid = row.instance_uuid
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(context, uuid)
    except exception.InstanceMappingNotFound:
        mapping = None
    try:
        br = objects.BuildRequest.get_by_instance_uuid(context, uuid)
    except exception.BuildRequestNotFound:
        return False
    created = row.created_at.replace(tzinfo=None)
    # Buried only after at least one re-drive (updated_at is our stamp):
    # a conductor that comes back late still gives each lost build a try.
    expired = row.updated_at is not None and \
        (now - created).total_seconds() > build_timeout()
    placed = mapping.cell_mapping if mapping is not None else None
    if placed is None and mapping is not None:
        # Written to its cell but not mapped yet (the conductor died
        # between the two). Still BUILDING with no host: a re-drive adopts
        # that record (keel/conductor/tasks/build.py); otherwise, or too
        # late, it is mapped where it is. Never a second record.
        held = _cell_holding(context, uuid)
        if held is not None:
            cell, inst = held
            if expired or inst.vm_state != BUILDING or inst.host:
                mapping.cell_mapping = placed = cell
                mapping.save()
    if placed is not None:
        # Placed, only the commit was lost: commit now; the instance
        # (never cast to a host) is left to the next net.
        LOG.warning("Build request of %s outlived its placement in cell "
                    "%s; removing it", uuid, placed.identity)
        try:
            br.destroy()
        except exception.BuildRequestNotFound:
            return False
        return True
    if not _take(context, row, now):
        return False
    spec = objects.RequestSpec.get_by_instance_uuid(context, uuid)
    ctxt = _user_context(context, spec)
    image = _image(ctxt, br)
    _release(ctxt, report, uuid)
    if expired:
        from keel.conductor.tasks import cell0
        exc = exception.BuildAbortException(
            instance_uuid=uuid, reason=_NOT_SCHEDULED % build_timeout())
        LOG.warning("Build request of %s was never scheduled; burying it "
                    "in cell0", uuid)
        cell0.bury(ctxt, spec, exc, image=image, build_requests=[br],
                   block_device_mapping=br.block_device_mappings,
                   tags=br.tags, host=host)
        return True
    LOG.warning("Build request of %s has waited %d seconds: its "
                "schedule_and_build_instances message was lost; sending it "
                "again", uuid, (now - created).total_seconds())
    requested = spec.requested_networks \
        if spec.obj_attr_is_set("requested_networks") else None
    # The copy carries our stamp: it, not the original (perhaps only late),
    # takes the BuildRequest in the conductor.
    br.updated_at = _stamp(now)
    compute_task_api.schedule_and_build_instances(
        ctxt, build_requests=[br], request_specs=[spec], image=image,
        admin_password=None, injected_files=[],
        requested_networks=requested,
        block_device_mapping=br.block_device_mappings, tags=br.tags)
    return True


def _cell_holding(context, uuid):
    """(cell, instance) of the cell whose database has the instance (one
    query per cell), or None."""
    for cell in _cells(context):
        with keel_context.target_cell(context, cell) as cctxt:
            try:
                return cell, objects.Instance.get_by_uuid(
                    cctxt, uuid, expected_attrs=[])
            except exception.InstanceNotFound:
                continue
    return None


def _user_context(context, spec):
    # The build runs for its owner (notifications, quotas, actions).
    ctxt = keel_context.get_admin_context()
    ctxt.project_id = spec.project_id
    ctxt.user_id = spec.user_id
    return ctxt


def _image(ctxt, br):
    image_ref = br.instance.image_ref if br.instance else None
    if not image_ref:
        return {}
    from keel.image import api as image_api
    try:
        return image_api.get_api().get(ctxt, image_ref)
    except Exception as exc:  # noqa: BLE001 - the conductor copes with {}
        LOG.warning("Image %s of a re-driven build: %s", image_ref, exc)
        return {"id": image_ref}


def _release(ctxt, report, uuid):
    """Drop the consumer's allocations (with its generation, so a change
    made meanwhile is not lost)."""
    try:
        report.delete_allocation_for_instance(ctxt, uuid)
    except Exception:  # noqa: BLE001 - the next period tries again
        LOG.exception("Could not delete the allocations of %s", uuid)


# -- 2. instances whose build was abandoned ---------------------------------

def _cells(context):
    return [c for c in objects.CellMappingList.get_all(context)
            if c.uuid != objects.CellMapping.CELL0_UUID]


def error_out_abandoned_builds(context, report, host, now=None):
    from keel import servicegroup

    now = now or timeutils.utcnow().replace(tzinfo=None)
    timeout = build_timeout()
    group = servicegroup.API()
    errored = []
    for cell in _cells(context):
        with keel_context.target_cell(context, cell) as cctxt:
            building = objects.InstanceList.get_by_filters(
                cctxt, {"vm_state": BUILDING, "deleted": False},
                expected_attrs=[])
            old = [i for i in building if i.created_at is not None and
                   (now - i.created_at.replace(tzinfo=None)
                    ).total_seconds() > timeout]
            hosts = {i.host for i in old if i.host}
            up = {h for h in hosts if _host_up(cctxt, group, h)}
            for instance in old:
                if instance.host in up or \
                        instance.task_state == "deleting":
                    continue
                why = "no host received it" if not instance.host else \
                    "compute service of %s is down" % instance.host
                if _error_out(cctxt, report, instance, timeout, why, host):
                    errored.append(instance.uuid)
    return errored


def _host_up(cctxt, group, host):
    try:
        service = objects.Service.get_by_compute_host(cctxt, host)
    except exception.NotFound:
        return False
    return group.is_up(service)


def _error_out(cctxt, report, instance, timeout, why, host):
    from keel.conductor.tasks import common

    read_task_state = instance.task_state
    instance.vm_state = ERROR
    instance.task_state = None
    try:
        instance.save(expected_vm_state=[BUILDING],
                      expected_task_state=[read_task_state])
    except (exception.InstanceNotFound, exception.InstanceUpdateConflict):
        return False    # someone else moved it: theirs
    LOG.warning("Instance %s abandoned in BUILD (%s); setting it to ERROR",
                instance.uuid, why)
    exc = exception.BuildAbortException(
        instance_uuid=instance.uuid, reason=_HOST_LOST % (timeout, why))
    common.add_fault(cctxt, instance.uuid, exc, None, host=host)
    _release(cctxt, report, instance.uuid)
    try:
        objects.BuildRequest.get_by_instance_uuid(
            cctxt, instance.uuid).destroy()
    except exception.BuildRequestNotFound:
        pass
    return True


# -- 3. allocations of deleted instances -------------------------------------

def remove_orphaned_allocations(context, report):
    from keel.compute.resources import orphans

    removed = []
    for cell in _cells(context):
        with keel_context.target_cell(context, cell) as cctxt:
            for node in objects.ComputeNodeList.get_all(cctxt):
                removed += orphans.remove_deleted_instances_allocations(
                    cctxt, report, node)
    return removed
