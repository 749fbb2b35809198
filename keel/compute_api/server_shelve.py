"""shelve, shelveOffload and unshelve in the compute API (Nova's
API.shelve, shelve_offload and unshelve).

shelve claims the instance (task shelving, a CAS over no task); an
image-backed instance gets its snapshot image ("<name>-shelved") created
here and its compute casts shelve_instance, a volume-backed one has no
image and goes straight to shelve_offload_instance. unshelve checks the
2.77 zone and 2.91 host against the instance's state and zones, writes
them into the request spec and casts the conductor, which powers a
SHELVED instance on where it is or schedules a SHELVED_OFFLOADED one.
"""
from oslo_log import log as logging

from keel.compute_api import availability_zones
from keel.compute_api import server_power as common
from keel.compute_api import server_rescue
from keel.compute_api import server_snapshot
from keel.conf import CONF
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

SHELVE_VM_STATES = ["active", "stopped", "paused", "suspended"]
SHELVED, SHELVED_OFFLOADED = "shelved", "shelved_offloaded"
SHELVING, SHELVING_OFFLOADING, UNSHELVING = "shelving", \
    "shelving_offloading", "unshelving"
# unshelve's "availability_zone" left out of the body (not the same as
# null, which un-pins the instance from its zone).
NOT_GIVEN = object()


def _conductor():
    from keel.conductor import rpcapi
    return rpcapi.ComputeTaskAPI()


def shelve(ctx, instance, clean_shutdown=True):
    common.check_locked(ctx, instance)
    common.check_state(instance, "shelve", vm_state=SHELVE_VM_STATES)
    common.claim(instance, SHELVING)
    common.record_action(instance, "shelve")
    rpc = common.compute_rpc()
    if server_rescue.is_volume_backed(instance):
        rpc.shelve_offload_instance(instance._context, instance,
                                    clean_shutdown=clean_shutdown)
        return
    meta = server_snapshot.snapshot_metadata(
        ctx, instance, "%s-shelved" % instance.display_name, "snapshot", {})
    try:
        image = server_snapshot._image_api().create(ctx, meta)
    except Exception:
        # Nobody would end the task: give the instance back.
        instance.task_state = None
        instance.save(expected_task_state=[SHELVING])
        raise
    rpc.shelve_instance(instance._context, instance, image_id=image["id"],
                        clean_shutdown=clean_shutdown)


def shelve_offload(ctx, instance, clean_shutdown=True):
    common.check_locked(ctx, instance)
    common.check_state(instance, "shelve_offload", vm_state=[SHELVED])
    common.claim(instance, SHELVING_OFFLOADING)
    common.record_action(instance, "shelveOffload")
    common.compute_rpc().shelve_offload_instance(
        instance._context, instance, clean_shutdown=clean_shutdown)


def _host_zone(ctx, host):
    return availability_zones.host_zones(ctx).get(
        host, CONF.default_availability_zone)


def _check_zone(ctx, instance, zone):
    """Nova's _validate_unshelve_az: the zone must have an enabled
    compute (400 otherwise) and, with [cinder]/cross_az_attach off, hold
    every attached volume (409)."""
    available, _ = availability_zones.get_availability_zones(ctx)
    if zone not in available:
        raise exception.InvalidRequest(
            "The requested availability zone is not available")
    if CONF.cinder.cross_az_attach:
        return
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        instance._context, instance.uuid)
    attached = [b for b in bdms if b.destination_type == "volume" and
                b.volume_id]
    if not attached:
        return
    from keel.compute_api import volume_attachments
    api = volume_attachments.volume_api()
    for bdm in attached:
        volume = api.get(ctx, bdm.volume_id)
        if volume["availability_zone"] != zone:
            raise exception.MismatchVolumeAZException(reason=(
                "The specified availability zone does not match the "
                "volume %(vol_id)s attached to the server. Specified "
                "availability zone is %(az)s. Volume is in %(vol_zone)s."
                % {"vol_id": volume["id"], "az": zone,
                   "vol_zone": volume["availability_zone"]}))


def _check_host(ctx, host, zone):
    """The host exists (ComputeHostNotFound, a 400) and, when the
    instance is (or is to be) pinned to ``zone``, is in it (409)."""
    objects.ComputeNode.get_first_node_by_host_for_old_compat(ctx, host)
    if zone and zone not in _host_zone(ctx, host).split(","):
        raise exception.UnshelveHostNotInAZ(host=host,
                                            availability_zone=zone)


def unshelve(ctx, instance, new_az=NOT_GIVEN, host=None,
             authorize_host=None):
    """``new_az``: a zone, None (un-pin, 2.91) or NOT_GIVEN; ``host``
    (2.91, admin: ``authorize_host()`` checks the policy)."""
    common.check_locked(ctx, instance)
    common.check_state(instance, "unshelve",
                       vm_state=[SHELVED, SHELVED_OFFLOADED])
    az_given = new_az is not NOT_GIVEN
    spec = objects.RequestSpec.get_by_instance_uuid(ctx, instance.uuid)
    if (az_given or host) and instance.vm_state != SHELVED_OFFLOADED:
        raise exception.UnshelveInstanceInvalidState(
            state=instance.vm_state, instance_uuid=instance.uuid)
    if host and authorize_host is not None:
        authorize_host()
    if az_given and new_az is not None:
        _check_zone(ctx, instance, new_az)
    if host:
        zone = new_az if az_given else spec.availability_zone
        _check_host(instance._context, host, zone)
    if az_given:
        spec.availability_zone = new_az
        spec.save()
    if host:
        # Not persisted: only this unshelve goes there.
        spec.requested_destination = objects.Destination(host=host)
    common.claim(instance, UNSHELVING)
    common.record_action(instance, "unshelve")
    _conductor().unshelve_instance(ctx, instance, request_spec=spec)
