"""rebuild in the compute API (Nova's API.rebuild).

Checks the lock and the state (active, stopped or error, no task, launched),
the new image (it exists, is active and fits the flavor), the metadata and
personality quotas; then writes the request's changes and the new image
onto the instance with task_state REBUILDING as one compare-and-swap over
"no task", swaps the ``image_*`` system metadata for the new image's,
records the "rebuild" action and casts the conductor's rebuild_instance.

A new image is checked against the scheduler's filters on the instance's
own host: the request spec is sent with the ``_nova_check_type`` hint and
the host forced, and no host, so the conductor asks the scheduler first.
A volume-backed server keeps the image of its root volume: asking for
another one is refused (re-imaging the volume is not supported here).
"""
from oslo_log import log as logging

from keel.compute_api import server_create_checks as checks
from keel.compute_api import server_power as common
from keel.compute_api import server_rescue
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

REBUILDING = "rebuilding"
REBUILD_VM_STATES = [common.ACTIVE, common.STOPPED, common.ERROR]
IMAGE_PROP_PREFIX = "image_"
# Request fields written onto the instance as they are.
_INSTANCE_FIELDS = ("display_name", "display_description", "metadata",
                    "access_ip_v4", "access_ip_v6", "user_data")
_VOLUME_IMAGE_CHANGE = ("Unable to rebuild with a different image for a "
                        "volume-backed server.")


def _conductor():
    from keel.conductor import rpcapi
    return rpcapi.ComputeTaskAPI()


def _set_key_pair(ctx, instance, key_name):
    """The request's key pair (the caller's own, as Nova: users own keys,
    projects own servers); None removes it."""
    if key_name:
        key_pair = objects.KeyPair.get_by_name(ctx, ctx.user_id, key_name)
        instance.key_name = key_pair.name
        instance.key_data = key_pair.public_key
        instance.keypairs = objects.KeyPairList(objects=[key_pair])
    else:
        instance.key_name = None
        instance.key_data = None
        instance.keypairs = objects.KeyPairList(objects=[])


def _root_bdm(instance, bdms):
    for bdm in bdms:
        if bdm.obj_attr_is_set("boot_index") and bdm.boot_index == 0:
            return bdm
    return None


def _volume_image_ref(ctx, root_bdm):
    """The image a root volume was made from (Cinder's volume image
    metadata; the mapping's image without Cinder)."""
    from keel.compute.ops import volumes
    api = volumes.volume_api()
    if api is not None and root_bdm.volume_id:
        volume = api.get(ctx, root_bdm.volume_id)
        return (volume.get("volume_image_metadata") or {}).get("image_id")
    return root_bdm.image_id if root_bdm.obj_attr_is_set("image_id") \
        else None


def _original_image_ref(ctx, instance, bdms, image_id, certs_requested):
    if not server_rescue.is_volume_backed(instance):
        return instance.image_ref, False
    if certs_requested:
        raise exception.CertificateValidationFailed(
            "Image certificate validation is not supported for "
            "volume-backed servers.")
    root = _root_bdm(instance, bdms)
    if root is None:
        raise exception.NovaException(
            "Unable to find root block device mapping for volume-backed "
            "instance.")
    orig = _volume_image_ref(ctx, root)
    if orig != image_id:
        LOG.debug("Requested to rebuild instance %s with a new image %s for "
                  "a volume-backed server with image %s in its root volume, "
                  "which is not supported.", instance.uuid, image_id, orig)
        raise exception.ImageUnacceptable(image_id=image_id,
                                          reason=_VOLUME_IMAGE_CHANGE)
    return orig, True


def _reset_image_metadata(instance, image_id, image, flavor):
    """The old image's ``image_*`` system metadata replaced by the new
    image's; the system metadata as it was before is returned."""
    original = dict(instance.system_metadata)
    sysmeta = {k: v for k, v in original.items()
               if not k.startswith(IMAGE_PROP_PREFIX)}
    sysmeta.update(checks.system_metadata_from_image(image, flavor))
    sysmeta["image_base_image_ref"] = image_id
    instance.system_metadata = sysmeta
    instance.save()
    return original


def _check_by_scheduler(instance, spec, image):
    """The request spec that makes the conductor ask the scheduler to
    check the new image against this host only (Nova's hint)."""
    spec.image = objects.ImageMeta.from_dict(image)
    spec.save()
    hints = dict(spec.scheduler_hints or {}) \
        if spec.obj_attr_is_set("scheduler_hints") else {}
    hints["_nova_check_type"] = ["rebuild"]
    spec.scheduler_hints = hints
    spec.force_hosts = [instance.host]
    spec.force_nodes = [instance.node]
    # Not saved again: the hint and the forced host are for this check.
    spec.obj_reset_changes(["scheduler_hints", "force_hosts",
                            "force_nodes"])
    return spec


def rebuild(ctx, instance, image_href, admin_password, files_to_inject=None,
            reimage_boot_volume=False, **kwargs):
    """``kwargs``: display_name, display_description, metadata,
    access_ip_v4, access_ip_v6, auto_disk_config, preserve_ephemeral,
    key_name, user_data, trusted_certs, hostname (only those the request
    gave)."""
    common.check_locked(ctx, instance)
    common.check_state(instance, "rebuild", vm_state=REBUILD_VM_STATES)
    files_to_inject = files_to_inject or []
    metadata = kwargs.get("metadata") or {}
    preserve_ephemeral = bool(kwargs.pop("preserve_ephemeral", False))
    auto_disk_config = kwargs.pop("auto_disk_config", None)

    if "key_name" in kwargs:
        _set_key_pair(ctx, instance, kwargs.pop("key_name"))
    certs_requested = False
    if "trusted_certs" in kwargs:
        instance.trusted_certs = checks.trusted_certs(
            kwargs.pop("trusted_certs"))
        certs_requested = instance.trusted_certs is not None
    if "hostname" in kwargs:
        instance.hostname = kwargs.pop("hostname")
    if kwargs.get("user_data") is not None:
        checks.check_user_data(kwargs["user_data"])

    image_id, image = checks.get_image(ctx, image_href)
    auto_disk_config = checks.auto_disk_config(image, auto_disk_config)
    flavor = instance.flavor
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        instance._context, instance.uuid)
    orig_image_ref, volume_backed = _original_image_ref(
        ctx, instance, bdms, image_id, certs_requested)
    spec = objects.RequestSpec.get_by_instance_uuid(ctx, instance.uuid)

    checks.check_metadata_quota(ctx, metadata)
    checks.check_injected_files_quota(ctx, files_to_inject)
    root = _root_bdm(instance, bdms) if volume_backed else None
    checks.check_flavor_image(ctx, image_id, image, flavor, root)

    props = image.get("properties") or {}
    instance.os_type = props.get("os_type")
    instance.architecture = props.get("architecture")
    instance.vm_mode = props.get("vm_mode")
    instance.auto_disk_config = auto_disk_config
    if not volume_backed:
        # An empty image_ref marks a volume-backed server: kept as is.
        instance.image_ref = image_id
    instance.kernel_id = props.get("kernel_id") or ""
    instance.ramdisk_id = props.get("ramdisk_id") or ""
    for name in _INSTANCE_FIELDS:
        if name in kwargs:
            setattr(instance, name, kwargs[name])
    common.claim(instance, REBUILDING, progress=0)

    orig_sys_metadata = _reset_image_metadata(instance, image_id, image,
                                              flavor)
    common.record_action(instance, "rebuild")

    host = instance.host
    if orig_image_ref != image_id:
        spec = _check_by_scheduler(instance, spec, image)
        host = None
    _conductor().rebuild_instance(
        ctx, instance, new_pass=admin_password,
        injected_files=files_to_inject, image_ref=image_id,
        orig_image_ref=orig_image_ref, orig_sys_metadata=orig_sys_metadata,
        bdms=bdms, preserve_ephemeral=preserve_ephemeral, host=host,
        request_spec=spec, reimage_boot_volume=reimage_boot_volume,
        target_state=None)
