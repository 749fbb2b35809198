"""The resources a build prepares before the spawn: the network, then the
block devices (Nova's _build_resources), each behind a compare-and-swap."""
from oslo_log import log as logging

from keel.compute.ops import cleanup
from keel.compute.ops import states
from keel.compute.ops import volumes
from keel import exception

LOG = logging.getLogger(__name__)

_GONE = (exception.InstanceNotFound,
         exception.UnexpectedDeletingTaskStateError)
DEFAULT_ROOT_DEVICE = "/dev/vda"


def prepare(build, image_meta):
    """``{"network_info", "block_device_info"}``; on failure after the
    network exists, the network is deallocated before re-raising."""
    network_info = _networks(build)
    try:
        block_device_info = _block_devices(build)
    except Exception:
        cleanup.deallocate_network(build.mgr, build.context, build.instance,
                                   build.requested_networks)
        raise
    return {"network_info": network_info,
            "block_device_info": block_device_info}


def _networks(build):
    instance = build.instance
    try:
        instance.vm_state = states.BUILDING
        instance.task_state = states.NETWORKING
        # Also writes host/node set by the claim: one statement.
        instance.save(expected_task_state=[None])
    except _GONE:
        raise
    except exception.UnexpectedTaskStateError as exc:
        raise exception.BuildAbortException(instance_uuid=instance.uuid,
                                            reason=exc.format_message())
    api = build.mgr.network_api
    try:
        if api is None:
            from keel.network import model
            nw_info = model.NetworkInfo([])
        else:
            nw_info = api.allocate_for_instance(
                build.context, instance, build.requested_networks,
                security_groups=build.security_groups,
                bind_host_id=build.host)
    except _GONE:
        raise
    except Exception:
        LOG.exception("Failed to allocate network(s) for %s", instance.uuid)
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid,
            reason="Failed to allocate the network(s), not rescheduling.")
    build.network_info = nw_info
    _cache_network_info(instance, nw_info)
    return nw_info


def _cache_network_info(instance, nw_info):
    from keel import objects
    if instance.obj_attr_is_set("info_cache") and \
            instance.info_cache is not None:
        cache = instance.info_cache
        if cache.obj_attr_is_set("network_info") and \
                "network_info" not in cache.obj_what_changed() and \
                cache.network_info == nw_info:
            # The network API saved exactly this already: rewriting it
            # with the next save would be a second write of the same row.
            return
        cache.network_info = nw_info
    else:
        instance.info_cache = objects.InstanceInfoCache(
            instance_uuid=instance.uuid, network_info=nw_info)


def _block_devices(build):
    instance = build.instance
    if not instance.root_device_name:
        instance.root_device_name = DEFAULT_ROOT_DEVICE
    instance.vm_state = states.BUILDING
    instance.task_state = states.BLOCK_DEVICE_MAPPING
    try:
        # Writes the network info cache in the same transaction.
        instance.save(expected_task_state=states.NETWORKING)
        mapping = volumes.prepare(build.mgr, build.context, instance,
                                  list(build.bdms or []))
    except _GONE:
        raise
    except (exception.UnexpectedTaskStateError, exception.OverQuota,
            exception.InvalidBDM) as exc:
        raise exception.BuildAbortException(instance_uuid=instance.uuid,
                                            reason=exc.format_message())
    except Exception:
        # Another host would not do better: abort, do not reschedule.
        LOG.exception("Failure prepping block device of %s", instance.uuid)
        raise exception.BuildAbortException(
            instance_uuid=instance.uuid,
            reason="Failure prepping block device.")
    return {"root_device_name": instance.root_device_name,
            "ephemerals": [], "block_device_mapping": mapping, "swap": None}
