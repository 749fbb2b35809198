"""rebuild_instance on the compute host (Nova's semantics): a rebuild in
place, or an evacuation's rebuild on this host (recreate; the
evacuation's own steps are in evacuate.py).

The API has written the new image onto the instance (task_state
REBUILDING). Here, each step a compare-and-swap on task_state:
REBUILDING -> REBUILD_BLOCK_DEVICE_MAPPING -> REBUILD_SPAWNING -> None with
vm_state ACTIVE and a new launched_at. The driver's own ``rebuild`` is
used when it has one; NotImplementedError means Nova's default: power off,
destroy the guest and spawn it again from the new image, with its volumes
and network as they were. A server that was stopped is powered off again
afterwards (ACTIVE/powering-off, then the stop).

Notifications: compute.instance.exists (the old image), legacy
compute.instance.rebuild.start/end and versioned instance.rebuild.start/
end; on failure rebuild.error (both kinds), the instance in ERROR (the
manager's decorators record the fault and clear the task). An instance
deleted meanwhile is left to the delete.
"""
import base64
import binascii

from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute.ops import cleanup
from keel.compute.ops import evacuate
from keel.compute.ops import live_migration_volumes as lm_volumes
from keel.compute.ops import notify
from keel.compute.ops import power
from keel.compute.ops import states
from keel.compute.ops import volumes
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

REBUILDING = "rebuilding"
REBUILD_BLOCK_DEVICE_MAPPING = "rebuild_block_device_mapping"
REBUILD_SPAWNING = "rebuild_spawning"
_GONE = (exception.InstanceNotFound,
         exception.UnexpectedDeletingTaskStateError)


def _image_meta(context, image_ref):
    if not image_ref:
        return objects.ImageMeta.from_dict({})
    from keel.image import api as image_api
    return objects.ImageMeta.from_dict(image_api.get_api().get(context,
                                                               image_ref))


def _decode_files(injected_files):
    """Personality contents arrive base64 encoded (Nova's _decode_files)."""
    out = []
    for path, contents in injected_files or []:
        try:
            out.append((path, base64.b64decode(contents)))
        except (binascii.Error, TypeError, ValueError):
            out.append((path, contents))
    return out


def _image_name(image_meta):
    return image_meta.name if image_meta.obj_attr_is_set("name") else ""


def _notify_exists(context, instance, host, orig_image_ref,
                   orig_sys_metadata):
    """instance.exists for the period that ends now, with the image the
    server had until this rebuild (Nova's legacy override)."""
    try:
        from keel.notifications import instance_actions
        from keel.notifications import legacy
        old = objects.Instance(image_ref=orig_image_ref)
        extra = {"image_ref_url": legacy._image_ref_url(context, old)}
        if orig_sys_metadata:
            extra["image_meta"] = legacy.image_meta(orig_sys_metadata)
        instance_actions.notify_usage_exists(
            context, instance, host=host, current_period=True,
            extra_usage_info=extra)
    except Exception:  # noqa: BLE001 - a side channel never fails rebuild
        LOG.exception("Could not emit instance.exists for %s", instance.uuid)


def _versioned(context, instance, host, phase, exc=None, bdms=None):
    try:
        from keel.notifications import instance_actions
        instance_actions.notify_about_instance_rebuild(
            context, instance, host, phase=phase, exception=exc, bdms=bdms)
    except Exception:  # noqa: BLE001 - a side channel never fails rebuild
        LOG.exception("Could not emit instance.rebuild.%s", phase)


def _notify_error(context, instance, host, exc, bdms):
    notify.usage(context, instance, "rebuild.error", host, fault=exc)
    _versioned(context, instance, host, "error", exc=exc, bdms=bdms)


def rebuild_instance(mgr, context, instance, orig_image_ref, image_ref,
                     injected_files, new_pass, orig_sys_metadata, bdms,
                     recreate, on_shared_storage, preserve_ephemeral,
                     migration, scheduled_node, limits, request_spec,
                     accel_uuids, reimage_boot_volume=None,
                     target_state=None):
    context = context.elevated()
    with mgr.instance_lock(instance.uuid):
        LOG.info("%s instance %s", "Evacuating" if recreate else
                 "Rebuilding", instance.uuid)
        if recreate:
            scheduled_node = evacuate.scheduled_node(mgr, context,
                                                     scheduled_node)
        if image_ref or not recreate:
            image_meta = _image_meta(context, image_ref)
        else:
            image_meta = evacuate.image_meta(instance)
        if bdms is None:
            bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
                context, instance.uuid)
        rebuild = Rebuild(mgr, context, instance, image_meta, bdms)
        with power.error_out_on_exception(instance, instance.vm_state):
            try:
                rebuild.run(orig_image_ref, orig_sys_metadata,
                            injected_files, new_pass, preserve_ephemeral,
                            evacuate_to=scheduled_node if recreate else None,
                            on_shared_storage=on_shared_storage,
                            migration=migration, target_state=target_state)
            except _GONE as exc:
                LOG.debug("Instance %s was deleted while rebuilding",
                          instance.uuid)
                if recreate:
                    evacuate.fail(mgr, context, instance, migration,
                                  scheduled_node)
                _notify_error(context, instance, mgr.host, exc, bdms)
            except Exception as exc:
                if recreate:
                    evacuate.fail(mgr, context, instance, migration,
                                  scheduled_node)
                _notify_error(context, instance, mgr.host, exc, bdms)
                raise
            else:
                if recreate:
                    evacuate.finish(migration)


class Rebuild:
    """One rebuild on this host (Nova's _do_rebuild_instance)."""

    def __init__(self, mgr, context, instance, image_meta, bdms):
        self.mgr = mgr
        self.host = mgr.host
        self.context = context
        self.instance = instance
        self.image_meta = image_meta
        self.bdms = bdms
        self._evacuating = False

    def run(self, orig_image_ref, orig_sys_metadata, injected_files,
            admin_password, preserve_ephemeral, evacuate_to=None,
            on_shared_storage=None, migration=None, target_state=None):
        """``evacuate_to``: the node of this host an evacuation rebuilds
        the instance on (None for a rebuild in place)."""
        ctx, instance, mgr = self.context, self.instance, self.mgr
        orig_vm_state = instance.vm_state
        evacuating = self._evacuating = evacuate_to is not None
        if evacuating:
            if target_state and orig_vm_state != states.ERROR:
                orig_vm_state = target_state
            on_shared_storage = evacuate.check(mgr, instance,
                                               on_shared_storage)
            if not on_shared_storage and instance.image_ref:
                orig_image_ref = instance.image_ref
        self._check_trusted_certs()
        _notify_exists(ctx, instance, self.host, orig_image_ref,
                       orig_sys_metadata)
        extra = {"image_name": _image_name(self.image_meta)}
        notify.usage(ctx, instance, "rebuild.start", self.host,
                     extra_usage_info=extra)
        _versioned(ctx, instance, self.host, "start", bdms=self.bdms)

        instance.power_state = power.get_power_state(mgr, instance)
        instance.task_state = REBUILDING
        if evacuating:
            evacuate.move_here(mgr, ctx, instance, migration, evacuate_to)
        instance.save(expected_task_state=[REBUILDING])

        network_info = cleanup.network_info_of(instance)
        block_device_info = lm_volumes.block_device_info(
            [b for b in self.bdms if volumes.is_volume(b)])
        args = dict(context=ctx, instance=instance,
                    image_meta=self.image_meta,
                    injected_files=_decode_files(injected_files),
                    admin_password=admin_password, allocations=None,
                    bdms=self.bdms,
                    detach_block_devices=self._detach_block_devices,
                    attach_block_devices=self._attach_block_devices,
                    network_info=network_info, evacuate=evacuating,
                    block_device_info=block_device_info,
                    preserve_ephemeral=preserve_ephemeral, accel_uuids=[])
        try:
            mgr.driver.rebuild(**args)
        except NotImplementedError:
            self._default_rebuild(**args)

        instance.power_state = power.get_power_state(mgr, instance)
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        instance.save(expected_task_state=[REBUILD_SPAWNING])

        if orig_vm_state == states.STOPPED:
            LOG.info("Bringing instance %s back to its original state: "
                     "stopped", instance.uuid)
            instance.vm_state = states.ACTIVE
            instance.task_state = power.POWERING_OFF
            instance.progress = 0
            instance.save()
            mgr.stop_instance(ctx, instance, clean_shutdown=False)
        mgr.update_scheduler_instance_info(ctx, instance)
        notify.usage(ctx, instance, "rebuild.end", self.host,
                     network_info=network_info, extra_usage_info=extra)
        _versioned(ctx, instance, self.host, "end", bdms=self.bdms)

    def _check_trusted_certs(self):
        instance = self.instance
        certs = instance.trusted_certs \
            if instance.obj_attr_is_set("trusted_certs") else None
        caps = getattr(self.mgr.driver, "capabilities", {}) or {}
        if certs and not caps.get("supports_trusted_certs", False):
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason="Trusted image certificates provided on host that "
                       "does not support certificate validation.")

    # The volumes stay attached to this host across a same-host rebuild:
    # their connections are handed back to the new guest as they were. An
    # evacuation swaps each volume's attachment (the failed host's) for a
    # new one, connected to this host.
    def _detach_block_devices(self, context, bdms, detach_root_bdm=True):
        api = volumes.volume_api() if self._evacuating else None
        if api is None:
            return
        for bdm in bdms:
            if not (volumes.is_volume(bdm) and bdm.attachment_id):
                continue
            new = api.attachment_create(context, bdm.volume_id,
                                        self.instance.uuid)["id"]
            api.attachment_delete(context, bdm.attachment_id)
            bdm.attachment_id = new
            bdm.save()

    def _attach_block_devices(self, context, instance, bdms):
        volume_bdms = [b for b in bdms if volumes.is_volume(b)]
        if self._evacuating and volume_bdms:
            mapping = volumes.prepare(self.mgr, context, instance,
                                      volume_bdms)
            return {"block_device_mapping": mapping}
        return lm_volumes.block_device_info(volume_bdms)

    def _default_rebuild(self, context, instance, image_meta, injected_files,
                         admin_password, allocations, bdms,
                         detach_block_devices, attach_block_devices,
                         network_info=None, evacuate=False,
                         block_device_info=None, preserve_ephemeral=False,
                         accel_uuids=None):
        """Nova's _rebuild_default_impl: the guest destroyed and spawned
        again from the new image."""
        if preserve_ephemeral:
            raise exception.PreserveEphemeralNotSupported()
        if not evacuate:
            # An evacuated guest is on the failed host: nothing here.
            try:
                power.power_off_instance(self.mgr, instance,
                                         clean_shutdown=True)
            except exception.InstanceNotFound:
                LOG.debug("Instance %s has no guest to power off",
                          instance.uuid)
        detach_block_devices(context, bdms)
        if not evacuate:
            cleanup.destroy_guest(self.mgr, context, instance, network_info,
                                  block_device_info)

        instance.task_state = REBUILD_BLOCK_DEVICE_MAPPING
        instance.save(expected_task_state=[REBUILDING])
        new_block_device_info = attach_block_devices(context, instance, bdms)

        instance.task_state = REBUILD_SPAWNING
        instance.save(expected_task_state=[REBUILD_BLOCK_DEVICE_MAPPING])
        self.mgr.driver.spawn(context, instance, image_meta, injected_files,
                              admin_password, allocations,
                              network_info=network_info,
                              block_device_info=new_block_device_info)
