"""createImage and createBackup in the compute API (Nova's API.snapshot and
API.backup): the image record is created first (so the caller gets its
id at once) with Nova's snapshot properties, then the instance is claimed
by a compare-and-swap of its task_state; a lost race deletes the image
again. The compute host uploads the data (keel.compute.ops.snapshot).
"""
from oslo_log import log as logging

from keel.compute_api import quota
from keel.compute_api import server_power as common
from keel.compute_api import server_rescue
from keel.conf import CONF
from keel import exception

LOG = logging.getLogger(__name__)

SNAPSHOT_VM_STATES = ["active", "stopped", "paused", "suspended"]
# Image attributes kept at the top level of the image (the rest of the
# instance's image_* system metadata become properties).
_INHERITABLE = ("min_ram", "min_disk", "disk_format", "container_format")
# Never inherited by a snapshot, whatever
# [DEFAULT]/non_inheritable_image_properties says (Nova's fixed list).
_NEVER_INHERITED = ("img_signature_hash_method", "img_signature",
                    "img_signature_key_type",
                    "img_signature_certificate_uuid")


def _image_api():
    from keel.image import api as image_api
    return image_api.get_api()


def check_metadata_quota(ctx, metadata):
    """OverQuota when the image would carry more properties than the
    project's metadata_items limit (Nova's
    check_img_metadata_properties_quota)."""
    if metadata:
        quota.limit_check(ctx, ctx.project_id, metadata_items=len(metadata))


def image_meta_from_instance(instance):
    """The image the instance was booted from, as its system metadata
    remembers it (Nova's get_image_from_system_metadata)."""
    meta = {"properties": {}}
    for key, value in (instance.system_metadata or {}).items():
        if not key.startswith("image_"):
            continue
        name = key[len("image_"):]
        if name in _INHERITABLE:
            meta[name] = value
        else:
            meta["properties"][name] = value
    for name in ("min_ram", "min_disk"):
        if name in meta:
            try:
                meta[name] = int(meta[name])
            except (TypeError, ValueError):
                del meta[name]
    return meta


def snapshot_metadata(ctx, instance, name, image_type, extra_properties):
    """The new image: inherited from the instance's image, named, private
    to the instance's project, with Nova's snapshot properties."""
    meta = image_meta_from_instance(instance)
    props = meta["properties"]
    skip = set(_NEVER_INHERITED) | set(
        CONF.non_inheritable_image_properties or ())
    for key in list(props):
        if key in skip or key.startswith("os_glance"):
            del props[key]
    props.setdefault("base_image_ref", instance.image_ref or "")
    props.update({"instance_uuid": instance.uuid,
                  "user_id": str(ctx.user_id),
                  "image_type": image_type})
    props.update(extra_properties or {})
    meta["name"] = name
    meta["visibility"] = "private"
    meta["owner"] = instance.project_id
    if image_type == "snapshot":
        # The driver may convert the disk: it sets the formats on upload.
        meta.pop("disk_format", None)
        meta.pop("container_format", None)
    return meta


def _create_and_claim(ctx, instance, meta, task_state, action):
    image = _image_api().create(ctx, meta)
    try:
        common.claim(instance, task_state)
        common.record_action(instance, action)
    except Exception:
        # Lost the race (another task, a delete): the image is orphaned.
        try:
            _image_api().delete(ctx, image["id"])
        except Exception:  # noqa: BLE001 - report the original error
            LOG.exception("Could not delete image %s", image["id"])
        raise
    return image


def snapshot(ctx, instance, name, extra_properties=None):
    common.check_state(instance, "createImage", vm_state=SNAPSHOT_VM_STATES)
    check_metadata_quota(ctx, extra_properties)
    if server_rescue.is_volume_backed(instance):
        # Volume snapshots through Cinder are not supported here.
        raise exception.InvalidRequest(
            "Snapshots of volume-backed servers are not supported.")
    meta = snapshot_metadata(ctx, instance, name, "snapshot",
                             extra_properties)
    image = _create_and_claim(ctx, instance, meta, "image_snapshot_pending",
                              "createImage")
    common.compute_rpc().snapshot_instance(instance._context, instance,
                                           image["id"])
    return image


def backup(ctx, instance, name, backup_type, rotation,
           extra_properties=None):
    common.check_state(instance, "createBackup",
                       vm_state=SNAPSHOT_VM_STATES)
    check_metadata_quota(ctx, extra_properties)
    props = dict(extra_properties or {}, backup_type=backup_type)
    if server_rescue.is_volume_backed(instance):
        raise exception.InvalidRequest(
            "It's not supported to backup volume backed instance.")
    meta = snapshot_metadata(ctx, instance, name, "backup", props)
    image = _create_and_claim(ctx, instance, meta, "image_backup",
                              "createBackup")
    common.compute_rpc().backup_instance(instance._context, instance,
                                         image["id"], backup_type, rotation)
    return image
