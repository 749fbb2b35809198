"""Burying instances in cell0 (Nova's _bury_in_cell0).

An instance that could not be scheduled (no valid host, scheduler or
Placement failure, an unmapped host) still has to exist for the user: it
is written to cell0 in ERROR with a fault and a failed 'create' action, its
mapping points at cell0 and its BuildRequest goes away. The instance record
is complete (ERROR state, action, event, fault, BDMs, tags) in one cell0
transaction before the mapping is switched (together with the BuildRequest's
removal, in one API transaction), so the API never shows a half-buried
instance, and nothing is ever left in BUILD.
"""
import sys

from oslo_log import log as logging

from keel.conductor.tasks import common
from keel.conductor.tasks import lookups
from keel.conductor.tasks import notify
from keel import context as keel_context
from keel.db import session as db_session
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

EVENT = "conductor_schedule_and_build_instances"


def _record(cctxt, instance, exc, exc_info, block_device_mapping, tags,
            host):
    """Instance (ERROR), failed create action, fault, BDMs and tags in one
    transaction of cell0."""
    instance.vm_state = common.ERROR
    instance.task_state = None
    with db_session.cell_writer(cctxt):
        common.create_in_cell(cctxt, instance, block_device_mapping, tags)
        objects.InstanceActionEvent.event_start(
            cctxt, instance.uuid, EVENT, want_result=False, host=host)
        objects.InstanceActionEvent.event_finish_with_failure(
            cctxt, instance.uuid, EVENT, exc_val=exc,
            exc_tb=exc_info[2] if exc_info else None, want_result=False)
        common.add_fault(cctxt, instance.uuid, exc, exc_info, host=host)


def _commit(context, cell0, instance_uuid, mapping, build_request):
    """Mapping to cell0 and BuildRequest removed together (one API
    transaction), so nobody sees the instance in cell0 with its
    BuildRequest still there. False if the BuildRequest was gone."""
    if build_request is None:
        if mapping is not None:
            mapping.cell_mapping = cell0
            mapping.save()
        return True
    if mapping is not None:
        try:
            return lookups.commit_build(context, instance_uuid, cell0)
        except exception.InstanceMappingNotFound:
            pass    # removed since we read it: the BuildRequest still goes
    try:
        build_request.destroy()
    except exception.BuildRequestNotFound:
        return False
    return True


def bury(context, request_spec, exc, image=None, build_requests=None,
         instances=None, block_device_mapping=None, tags=None, host=None):
    """Put every build request / instance given into cell0 in ERROR.

    ``instances`` are Instance objects not created anywhere yet; build
    requests without one get theirs made here. Returns the uuids buried.
    """
    exc_info = sys.exc_info()
    if exc_info[1] is not exc:
        exc_info = (type(exc), exc, exc.__traceback__)
    try:
        cell0 = objects.CellMapping.get_by_uuid(
            context, objects.CellMapping.CELL0_UUID)
    except exception.CellMappingNotFound:
        LOG.error("No cell mapping found for cell0 while trying to record "
                  "scheduling failure. Setup is incomplete.")
        return []
    build_requests = build_requests or []
    by_uuid = {inst.uuid: inst for inst in (instances or [])}
    for br in build_requests:
        if br.instance_uuid not in by_uuid:
            by_uuid[br.instance_uuid] = common.new_instance(
                context, br, request_spec, image)
    requests = {br.instance_uuid: br for br in build_requests}
    buried = []
    for instance in by_uuid.values():
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, instance.uuid)
        except exception.InstanceMappingNotFound:
            LOG.error("While burying instance in cell0, no instance mapping "
                      "was found.", instance_uuid=instance.uuid)
            mapping = None
        if mapping is not None and mapping.cell_mapping is not None:
            # Someone (a duplicated message) placed it already: leave it.
            LOG.error("When attempting to bury instance in cell0, the "
                      "instance is already mapped to cell %s. Ignoring bury "
                      "in cell0 attempt.", mapping.cell_mapping.identity,
                      instance_uuid=instance.uuid)
            continue
        with keel_context.target_cell(context, cell0) as cctxt:
            pristine = instance.obj_clone()
            try:
                _record(cctxt, instance, exc, exc_info,
                        block_device_mapping, tags, host)
            except Exception:  # noqa: BLE001 - see below
                # What failed may be what we copy (a BDM, a tag): the user
                # must still see the server in ERROR, so try it bare.
                LOG.exception("Could not bury instance %s in cell0 with "
                              "its BDMs and tags", instance.uuid)
                instance = by_uuid[instance.uuid] = pristine
                try:
                    _record(cctxt, instance, exc, exc_info, None, None,
                            host)
                except Exception:  # noqa: BLE001 - keep burying the others
                    LOG.exception("Could not bury instance %s in cell0",
                                  instance.uuid)
                    continue
            kept = _commit(context, cell0, instance.uuid, mapping,
                           requests.get(instance.uuid))
            buried.append(instance.uuid)
            # Reported as Nova does: from building/scheduling to error.
            notify.state_update(cctxt, instance, common.BUILDING,
                                common.ERROR, common.SCHEDULING, None,
                                host=host)
            notify.build_error(cctxt, instance.uuid, "build_instances",
                               request_spec, common.ERROR, exc, exc_info,
                               host=host)
            if not kept:
                # Deleted by the user while we were scheduling: the buried
                # instance must not outlive the delete.
                instance._context = cctxt
                try:
                    instance.destroy()
                except exception.InstanceNotFound:
                    pass
    return buried
