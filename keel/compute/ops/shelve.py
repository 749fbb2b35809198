"""Shelve, shelve offload and unshelve on the compute host (Nova's
shelve_instance, shelve_offload_instance, unshelve_instance and the
_poll_shelved_instances periodic task).

shelve: the guest is powered off and snapshotted into the image the API
created (task shelving -> shelving_image_pending_upload ->
shelving_image_uploading, each step a CAS), the image and the host are
remembered in system_metadata (shelved_at, shelved_image_id,
shelved_host) and the instance is SHELVED; with
[DEFAULT]/shelved_offload_time 0 it is offloaded at once.

offload: the guest is destroyed, the volumes keep a reservation without a
connection, the host's claim leaves Placement and the resource tracker,
and the instance is SHELVED_OFFLOADED with no host, node or zone.

unshelve (after the conductor scheduled and claimed a host): the guest is
spawned from the shelved image (task spawning), the image is deleted and
the shelved_* keys removed; a SHELVED instance is unshelved by the power
on (``forget_shelved``, called by start_instance).

The snapshot, power-off, destroy and allocation removal are those of the
snapshot, power and delete operations.
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute.ops import cleanup
from keel.compute.ops import move_allocs
from keel.compute.ops import notify
from keel.compute.ops import power
from keel.compute.ops import snapshot as snapshot_ops
from keel.compute.ops import states
from keel.compute.ops import volumes
from keel.conf import CONF
from keel import objects

LOG = logging.getLogger(__name__)

SHELVED = "shelved"
SHELVED_OFFLOADED = "shelved_offloaded"
SHELVING = "shelving"
SHELVING_IMAGE_PENDING_UPLOAD = "shelving_image_pending_upload"
SHELVING_IMAGE_UPLOADING = "shelving_image_uploading"
SHELVING_OFFLOADING = "shelving_offloading"
UNSHELVING = "unshelving"
SHELVED_KEYS = ("shelved_at", "shelved_image_id", "shelved_host")

# The snapshot's task states, as a shelve shows them (Nova's map).
_SHELVE_TASK_STATES = {
    "image_pending_upload": SHELVING_IMAGE_PENDING_UPLOAD,
    snapshot_ops.IMAGE_UPLOADING: SHELVING_IMAGE_UPLOADING,
    SHELVING: SHELVING,
}


def _bdms(context, instance):
    return objects.BlockDeviceMappingList.get_by_instance_uuid(
        context, instance.uuid)


def _notify_usage_exists(context, instance, host):
    try:
        from keel.notifications import instance_actions
        instance_actions.notify_usage_exists(context, instance, host=host,
                                             current_period=True)
    except Exception:  # noqa: BLE001 - notifications are a side channel
        LOG.exception("Could not emit the usage of %s", instance.uuid)


# -- shelve -------------------------------------------------------------------

def shelve_instance(mgr, context, image_id, instance, clean_shutdown=True):
    with mgr.instance_lock(instance.uuid):
        _shelve(mgr, context, image_id, instance, clean_shutdown)


def _shelve(mgr, context, image_id, instance, clean_shutdown):
    offload = CONF.shelved_offload_time == 0
    # Read now when the offload follows: its notifications carry them.
    bdms = _bdms(context, instance) if offload else None
    _notify_usage_exists(context, instance, mgr.host)
    notify.both(context, instance, mgr.host, "shelve", "start", bdms=bdms)

    def update_task_state(task_state, expected_state=SHELVING):
        instance.task_state = _SHELVE_TASK_STATES[task_state]
        instance.save(
            expected_task_state=_SHELVE_TASK_STATES[expected_state])

    power.power_off_instance(mgr, instance, clean_shutdown)
    current = power.get_power_state(mgr, instance)
    mgr.driver.snapshot(context, instance, image_id, update_task_state)

    instance.system_metadata["shelved_at"] = timeutils.utcnow().isoformat()
    instance.system_metadata["shelved_image_id"] = image_id
    instance.system_metadata["shelved_host"] = mgr.host
    instance.vm_state = SHELVED
    instance.task_state = SHELVING_OFFLOADING if offload else None
    instance.power_state = current
    instance.save(expected_task_state=[SHELVING, SHELVING_IMAGE_UPLOADING])
    notify.both(context, instance, mgr.host, "shelve", "end", bdms=bdms)
    if offload:
        _offload(mgr, context, instance, clean_shutdown=False, bdms=bdms)


# -- offload ------------------------------------------------------------------

def shelve_offload_instance(mgr, context, instance, clean_shutdown=True):
    with mgr.instance_lock(instance.uuid):
        _offload(mgr, context, instance, clean_shutdown)


def _terminate_volume_connections(context, instance, bdms):
    """Each attached volume keeps a reservation (a new attachment with
    no connector) while the host's connection goes (Nova's
    _terminate_volume_connections): the volumes stay the instance's."""
    attached = [b for b in bdms or [] if volumes.is_volume(b) and
                b.obj_attr_is_set("attachment_id") and b.attachment_id]
    if not attached:
        return
    api = volumes.volume_api()
    if api is None:
        return
    for bdm in attached:
        reservation = api.attachment_create(context, bdm.volume_id,
                                            instance.uuid)["id"]
        api.attachment_delete(context, bdm.attachment_id)
        bdm.attachment_id = reservation
        bdm.save()


def _unbind(instance):
    """No host means no RPC reaches the instance; out of every
    aggregate, it is in no zone either."""
    instance.host = None
    instance.node = None
    instance.compute_id = None
    instance.launched_on = None
    instance.availability_zone = None


def _offload(mgr, context, instance, clean_shutdown, bdms=None):
    if bdms is None:
        bdms = _bdms(context, instance)
    notify.both(context, instance, mgr.host, "shelve_offload", "start",
                bdms=bdms)
    power.power_off_instance(mgr, instance, clean_shutdown)
    current = power.get_power_state(mgr, instance)
    network_info = cleanup.network_info_of(instance)
    cleanup.destroy_guest(mgr, context, instance, network_info)
    _terminate_volume_connections(context, instance, bdms)
    # Before the state change: whoever polls for SHELVED_OFFLOADED may
    # schedule into the freed room at once.
    cleanup.delete_allocations(mgr, context, instance.uuid)
    instance.power_state = current
    instance.vm_state = SHELVED_OFFLOADED
    instance.task_state = None
    instance.save(expected_task_state=[SHELVING, SHELVING_OFFLOADING])
    if mgr.rt is not None and instance.node:
        mgr.rt.remove_instance_usage(context, instance)
    _unbind(instance)
    instance.save(expected_task_state=None)
    mgr.delete_scheduler_instance_info(context, instance.uuid)
    notify.both(context, instance, mgr.host, "shelve_offload", "end",
                bdms=bdms)


def _shelved_long_enough(instance, now):
    shelved_at = (instance.system_metadata or {}).get("shelved_at")
    if not shelved_at:
        return False
    try:
        at = timeutils.normalize_time(timeutils.parse_isotime(shelved_at))
    except ValueError:
        LOG.warning("Instance %s has a bad shelved_at %r", instance.uuid,
                    shelved_at)
        return False
    return (now - at).total_seconds() > CONF.shelved_offload_time


def poll_spacing():
    """The periodic task's spacing: [DEFAULT]/shelved_poll_interval, 0
    meaning the default period (60 s) as oslo.service's; a negative
    interval disables the task (see poll_shelved_instances)."""
    interval = CONF.shelved_poll_interval
    return 60 if interval <= 0 else interval


def poll_shelved_instances(mgr, context):
    """Offload this host's idle SHELVED instances shelved more than
    [DEFAULT]/shelved_offload_time seconds ago; the count offloaded."""
    if CONF.shelved_offload_time <= 0 or CONF.shelved_poll_interval < 0:
        return 0
    shelved = objects.InstanceList.get_by_filters(
        context, {"vm_state": SHELVED, "task_state": None,
                  "host": mgr.host},
        expected_attrs=["system_metadata", "flavor", "info_cache"])
    now = timeutils.utcnow()
    done = 0
    for instance in shelved:
        if not _shelved_long_enough(instance, now):
            continue
        try:
            instance.task_state = SHELVING_OFFLOADING
            instance.save(expected_task_state=[None])
            mgr.shelve_offload_instance(context, instance,
                                        clean_shutdown=False)
            done += 1
        except Exception:  # noqa: BLE001 - the next instance still goes
            LOG.exception("Periodic task failed to offload instance %s",
                          instance.uuid)
    return done


# -- unshelve -----------------------------------------------------------------

def forget_shelved(context, instance):
    """A shelved instance is back: its snapshot image and the shelved_*
    system metadata go (the caller saves the instance)."""
    sysmeta = instance.system_metadata
    image_id = sysmeta.get("shelved_image_id")
    if image_id:
        snapshot_ops._delete_image(context, image_id)
    for key in SHELVED_KEYS:
        sysmeta.pop(key, None)
    instance.system_metadata = sysmeta


def _block_device_info(mgr, context, instance, bdms):
    mapping = volumes.prepare(mgr, context, instance, list(bdms or []))
    return {"root_device_name": instance.root_device_name,
            "ephemerals": [], "block_device_mapping": mapping,
            "swap": None}


def unshelve_instance(mgr, context, instance, image, filter_properties,
                      node, request_spec=None):
    with mgr.instance_lock(instance.uuid):
        _unshelve(mgr, context, instance, image, node)


def _unshelve(mgr, context, instance, image, node):
    bdms = _bdms(context, instance)
    notify.both(context, instance, mgr.host, "unshelve", "start", bdms=bdms)
    instance.task_state = states.SPAWNING
    instance.save(expected_task_state=UNSHELVING)
    block_device_info = _block_device_info(mgr, context, instance, bdms)
    if node is None and mgr.rt is not None:
        node = mgr.rt.default_nodename()
    allocations = move_allocs.allocations_of(mgr.placement_client, context,
                                             instance.uuid)
    shelved_image_ref = instance.image_ref
    if image:
        instance.image_ref = image["id"]
        image_meta = objects.ImageMeta.from_dict(image)
    else:
        image_meta = objects.ImageMeta.from_instance(instance)
    try:
        with mgr.rt.instance_claim(context, instance, node, allocations):
            if mgr.network_api is not None:
                mgr.network_api.setup_instance_network_on_host(
                    context, instance, mgr.host)
            mgr.driver.spawn(
                context, instance, image_meta, [], None, allocations,
                network_info=cleanup.network_info_of(instance),
                block_device_info=block_device_info)
    except Exception:
        LOG.exception("Instance %s failed to spawn", instance.uuid)
        # The task-state revert saves these: back to no host, with the
        # scheduler's claim and the volume connections undone.
        instance.image_ref = shelved_image_ref
        cleanup.delete_allocations(mgr, context, instance.uuid)
        _terminate_volume_connections(context, instance, bdms)
        _unbind(instance)
        raise
    instance.image_ref = shelved_image_ref
    forget_shelved(context, instance)
    instance.power_state = power.get_power_state(mgr, instance)
    instance.vm_state = states.ACTIVE
    instance.task_state = None
    instance.launched_at = timeutils.utcnow()
    instance.save(expected_task_state=states.SPAWNING)
    mgr.update_scheduler_instance_info(context, instance)
    notify.both(context, instance, mgr.host, "unshelve", "end", bdms=bdms)
