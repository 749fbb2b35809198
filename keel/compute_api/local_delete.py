"""The parts of a server delete the API does itself, as Nova's compute API:
the delete of an instance that never reached a compute (BuildRequest or a
cell record without host), the "local delete" of one whose compute is down
or that lives in cell0, and the bookkeeping every path ends with
(allocations gone from Placement, the instance mapping queued for delete).

Nothing here casts to a compute service; ``server_delete`` decides when a
compute must do the work instead.
"""
import contextlib

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db import session
from keel import exception
from keel.network import api as network_api
from keel.notifications import instance as inst_notify
from keel import objects

LOG = logging.getLogger(__name__)

VM_DELETED = "deleted"
VM_SOFT_DELETED = "soft-delete"
VM_ERROR = "error"
VM_SHELVED_OFFLOADED = "shelved_offloaded"

_report_clients = {}


def report_client():
    """One Placement client per configured endpoint (a keystoneauth
    session is costly to build for every delete)."""
    from keel.clients import report
    from keel.conf import CONF
    key = (CONF.placement.auth_type, CONF.placement.endpoint_override)
    client = _report_clients.get(key)
    if client is None:
        client = _report_clients[key] = report.ReportClient()
    return client


def may_have_ports_or_volumes(instance):
    """A build that failed on a compute leaves host None and vm_state
    error, yet ports or volumes may exist; shelved-offloaded likewise."""
    return instance.vm_state in (VM_SHELVED_OFFLOADED, VM_ERROR)


# -- notifications ------------------------------------------------------------

@contextlib.contextmanager
def notify_delete(ctx, instance, delete_type="delete"):
    """Legacy ``compute.instance.<type>.start/.end`` and, for delete and
    soft_delete, versioned ``instance.<type>.start/.end`` around the block,
    sent by the API (source nova-api) as Nova's local delete does; the end
    pair is sent even when the block fails."""
    with inst_notify.notify_about_instance_delete(
            ctx, instance, delete_type=delete_type):
        yield


# -- bookkeeping --------------------------------------------------------------

def set_queued_for_delete(ctx, instance_uuid, queued):
    """The mapping's flag lists and quota use while a cell is down. One
    UPDATE (no read first): a delete is a hot path."""
    mapping = api_models.InstanceMapping
    with session.api_writer(ctx) as s:
        found = s.execute(
            sa.update(mapping)
            .where(mapping.instance_uuid == instance_uuid)
            .values(queued_for_delete=queued, updated_at=timeutils.utcnow())
            .execution_options(synchronize_session=False)).rowcount
    if not found:
        # The conductor removes the mapping of a build it never started.
        LOG.info("No instance mapping for %s while marking it "
                 "queued_for_delete=%s", instance_uuid, queued)


def delete_allocations(ctx, instance_uuid):
    """Placement forgets the consumer; a consumer changed meanwhile is
    AllocationDeleteFailed (409 at the API), as Nova."""
    try:
        report_client().delete_allocation_for_instance(ctx, instance_uuid)
    except exception.AllocationUpdateFailed as exc:
        raise exception.AllocationDeleteFailed(
            consumer_uuid=instance_uuid, error=exc.kwargs.get("error", ""))


def cleanup_after_local_delete(ctx, instance_uuid):
    """What every API-side delete ends with (Nova's _local_delete_cleanup):
    allocations removed, mapping queued for delete."""
    try:
        delete_allocations(ctx, instance_uuid)
    except exception.AllocationDeleteFailed:
        LOG.info("Allocation delete failed during local delete cleanup of "
                 "%s", instance_uuid)
    set_queued_for_delete(ctx, instance_uuid, True)


# -- before the instance is in a cell ----------------------------------------

def lookup(ctx, instance_uuid):
    """``(cell_mapping, instance)`` read afresh, or ``(None, None)`` when
    the instance is not (or no longer) in a cell."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            ctx, instance_uuid)
    except exception.InstanceMappingNotFound:
        return None, None
    if mapping.cell_mapping is None:
        return None, None
    with keel_context.target_cell(ctx, mapping.cell_mapping) as cctxt:
        try:
            inst = objects.Instance.get_by_uuid(
                cctxt, instance_uuid, expected_attrs=["flavor",
                                                      "system_metadata"])
        except exception.InstanceNotFound:
            return None, None
    return mapping.cell_mapping, inst


def delete_build_request(ctx, instance_uuid):
    """True when this call removed the BuildRequest: the super-conductor
    then stops the build at its commit point. False when it was already
    gone (the conductor has created the instance in a cell)."""
    try:
        req = objects.BuildRequest.get_by_instance_uuid(ctx, instance_uuid)
        req.destroy()
    except exception.BuildRequestNotFound:
        return False
    # Volumes the request named must not stay reserved for it.
    if req.obj_attr_is_set("block_device_mappings") and \
            req.block_device_mappings:
        cleanup_bdm_volumes(ctx, instance_uuid, req.block_device_mappings)
    return True


def _volume_api():
    from keel.clients import cinder
    from keel.conf import CONF
    return cinder.API() if cinder.is_configured(CONF) else None


def _field(obj, name):
    # BuildRequest mappings carry only the fields the user gave.
    return getattr(obj, name) if obj.obj_attr_is_set(name) else None


def cleanup_bdm_volumes(ctx, instance_uuid, bdms):
    """Nova's _local_cleanup_bdm_volumes: each volume's attachment is
    deleted in Cinder, a delete_on_termination volume deleted, and the
    block device record removed; a Cinder failure is logged, never fatal
    (the host that would have done it is gone)."""
    volumes = _volume_api()
    for bdm in bdms:
        volume_id = _field(bdm, "volume_id")
        if _field(bdm, "destination_type") == "volume" and volume_id:
            if volumes is None:
                LOG.warning("No volume service configured: volume %s of "
                            "instance %s is left as it is", bdm.volume_id,
                            instance_uuid)
            else:
                try:
                    if _field(bdm, "attachment_id"):
                        volumes.attachment_delete(ctx, bdm.attachment_id)
                    if _field(bdm, "delete_on_termination"):
                        volumes.delete(ctx, volume_id)
                except Exception as exc:  # noqa: BLE001
                    LOG.warning("Ignoring volume cleanup failure of %s for "
                                "instance %s: %s", volume_id,
                                instance_uuid, exc)
        # A BuildRequest's mappings were never written to a cell.
        if bdm.obj_attr_is_set("id"):
            try:
                bdm.destroy()
            except exception.NotFound:
                pass


def destroy_unscheduled(instance, delete_type="delete"):
    """Remove a cell record no compute owns yet (no host). A compute that
    claims it meanwhile fails its next compare-and-swap and cleans up."""
    try:
        with notify_delete(instance._context, instance,
                           "delete" if delete_type == "soft_delete"
                           else delete_type):
            instance.destroy()
    except exception.InstanceNotFound:
        pass


# -- local delete (host down, cell0, shelved offloaded) -----------------------

def deallocate_network(cctxt, instance):
    try:
        network_api.get_api().deallocate_for_instance(cctxt.elevated(),
                                                      instance)
    except Exception:  # noqa: BLE001 - the host is gone; keep deleting
        LOG.exception("Network deallocation failed during local delete of "
                      "%s", instance.uuid)


def local_delete(ctx, cctxt, instance, bdms, delete_type, soft=False):
    """Delete in the database what a compute would have cleaned: network,
    block device records, allocations; the instance ends soft-deleted as a
    row (``deleted = id``) with vm_state deleted, as Nova's _local_delete.

    ``ctx`` is the API context (mapping, Placement), ``cctxt`` the cell's.
    """
    if instance.vm_state == VM_SHELVED_OFFLOADED:
        LOG.info("Instance %s is shelved offloaded: deleting it from the "
                 "database", instance.uuid)
    else:
        LOG.warning("Host %s of instance %s is down: deleting it from the "
                    "database", instance.host, instance.uuid)
    with notify_delete(cctxt, instance,
                       "delete" if delete_type == "soft_delete"
                       else delete_type):
        deallocate_network(cctxt, instance)
        cleanup_bdm_volumes(cctxt, instance.uuid, bdms)
        delete_allocations(ctx, instance.uuid)
        instance.vm_state = VM_SOFT_DELETED if soft else VM_DELETED
        instance.task_state = None
        instance.terminated_at = timeutils.utcnow()
        instance.save()
        set_queued_for_delete(ctx, instance.uuid, True)
        objects.InstanceAction.action_start(cctxt, instance.uuid, "delete",
                                            want_result=False)
        instance.destroy()
