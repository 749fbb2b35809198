"""Block device mappings of a server create, as Nova's API reads them:
the v2 entries (``from_api``) or the legacy ones, the image disk when
booting from an image, the flavor's ephemeral and swap disks, then the
sanity checks (boot sequence, sizes, swap count, local device limit).

Volumes need Cinder. Keel only writes the mapping; when no Cinder is
configured a volume anywhere in the request is refused here, with a
message that says so, rather than failing later on the host.
"""
import re

from oslo_serialization import jsonutils
from oslo_utils import strutils

from keel.conf import CONF
from keel import exception
from keel import objects
from keel.objects import fields

_INT_FIELDS = ("boot_index", "volume_size")
_EPHEMERAL = re.compile(r"^ephemeral(\d|[1-9]\d+)$")
_API_KEYS = ("source_type", "destination_type", "guest_format",
             "device_type", "disk_bus", "boot_index", "device_name",
             "delete_on_termination", "snapshot_id", "volume_id",
             "volume_size", "image_id", "no_device", "connection_info",
             "tag", "volume_type")
_NO_CINDER = ("Block Device Mapping is Invalid: volume %s cannot be used "
              "because no block storage service (Cinder) is configured.")


def strip_dev(name):
    return name[5:] if name and name.startswith("/dev/") else name


def _cinder_configured():
    from keel.clients import cinder
    return cinder.is_configured(CONF)


def _volume_api():
    from keel.clients import cinder
    return cinder.API()


def _check_volume(ctx, bdm):
    """The volume or snapshot exists (Nova's InvalidBDMVolume/Snapshot
    otherwise); the mapping takes its size from it."""
    api = _volume_api()
    if bdm.get("source_type") == "volume" and bdm.get("volume_id"):
        try:
            volume = api.get(ctx, bdm["volume_id"])
        except exception.CinderConnectionFailed:
            raise
        except Exception:  # noqa: BLE001 - Nova's answer for all
            raise exception.InvalidBDMVolume(id=bdm["volume_id"])
        bdm["volume_size"] = volume.get("size")
        return volume
    elif bdm.get("snapshot_id"):
        try:
            snap = api.get_snapshot(ctx, bdm["snapshot_id"])
        except exception.CinderConnectionFailed:
            raise
        except Exception:  # noqa: BLE001
            raise exception.InvalidBDMSnapshot(id=bdm["snapshot_id"])
        bdm["volume_size"] = bdm.get("volume_size") or snap.get("size")


# Image attributes Cinder keeps in a volume's image metadata.
_VOLUME_IMAGE_ATTRS = ("image_id", "image_name", "size", "checksum",
                       "container_format", "disk_format", "min_ram",
                       "min_disk")


def boot_image_meta(ctx, bdms, legacy):
    """Nova's get_bdm_image_metadata: the image properties of a server
    booted from a volume (its boot mapping's image, or the image metadata
    Cinder kept on the volume)."""
    for bdm in bdms:
        if legacy:
            if not re.match(r"^(/dev/)?[a-z]*d?a$",
                            bdm.get("device_name") or ""):
                continue
        elif bdm.get("boot_index") != 0:
            continue
        volume_id = bdm.get("volume_id")
        if bdm.get("image_id"):
            from keel.compute_api import server_create_checks as checks
            try:
                return checks.get_image(ctx, bdm["image_id"])[1]
            except Exception:  # noqa: BLE001 - Nova's answer for all
                raise exception.InvalidBDMImage(id=bdm["image_id"])
        if not (volume_id or bdm.get("snapshot_id")) or \
                not _cinder_configured():
            continue  # validate() says why the volume cannot be used
        api = _volume_api()
        if bdm.get("snapshot_id"):
            try:
                volume_id = api.get_snapshot(
                    ctx, bdm["snapshot_id"])["volume_id"]
            except exception.CinderConnectionFailed:
                raise
            except Exception:  # noqa: BLE001
                raise exception.InvalidBDMSnapshot(id=bdm["snapshot_id"])
        try:
            volume = api.get(ctx, volume_id)
        except exception.CinderConnectionFailed:
            raise
        except Exception:  # noqa: BLE001
            raise exception.InvalidBDMVolume(id=volume_id)
        if not volume.get("bootable", True):
            raise exception.InvalidBDMVolumeNotBootable(id=volume_id)
        props = dict(volume.get("volume_image_metadata") or {})
        meta = {"properties": props, "status": "active",
                "size": (volume.get("size") or 0) * 1024 ** 3}
        for attr in _VOLUME_IMAGE_ATTRS:
            value = props.pop(attr, None)
            if attr in ("min_ram", "min_disk"):
                meta[attr] = int(value or 0)
        return meta
    return {}


def reserve_volumes(ctx, instance_uuid, *bdm_lists):
    """Attachments for the existing volumes a server boots with (Cinder
    3.44: reserved until the compute completes them), recorded on the
    BlockDeviceMapping objects; returns their ids (to release on
    failure)."""
    attachments = {}
    for bdm in bdm_lists[0]:
        if bdm.source_type != "volume" or not bdm.volume_id:
            continue
        try:
            att = _volume_api().attachment_create(ctx, bdm.volume_id,
                                                  instance_uuid)
        except exception.InvalidInput as exc:
            release_volumes(ctx, attachments.values())
            raise exception.InvalidVolume(reason=exc.format_message())
        except Exception:
            release_volumes(ctx, attachments.values())
            raise
        attachments[bdm.volume_id] = att["id"]
    for bdms in bdm_lists:
        for bdm in bdms:
            if bdm.source_type == "volume" and bdm.volume_id in attachments:
                bdm.attachment_id = attachments[bdm.volume_id]
    return list(attachments.values())


def release_volumes(ctx, attachment_ids):
    for attachment_id in attachment_ids:
        try:
            _volume_api().attachment_delete(ctx, attachment_id)
        except Exception:  # noqa: BLE001 - best effort, as Nova's cleanup
            pass


def from_api(bdm, image_specified):
    """One ``block_device_mapping_v2`` entry as an internal dict."""
    bdm = dict(bdm)
    if not bdm.get("no_device"):
        source = bdm.get("source_type")
        dest = bdm.get("destination_type")
        device_uuid = bdm.get("uuid")
        volume_type = bdm.get("volume_type")
        if source not in ("volume", "image", "snapshot", "blank"):
            raise exception.InvalidBDMFormat(
                details="Invalid source_type field.")
        if source == "blank" and device_uuid:
            raise exception.InvalidBDMFormat(details="Invalid device UUID.")
        if source != "blank":
            if not device_uuid:
                raise exception.InvalidBDMFormat(
                    details="Missing device UUID.")
            bdm[f"{source}_id"] = device_uuid
        if source == "image" and dest == "local":
            index = bdm.get("boot_index", -1)
            index = -1 if index is None else int(index)
            if not (image_specified and index == 0):
                raise exception.InvalidBDMFormat(
                    details="Mapping image to local is not supported.")
        if dest == "local" and volume_type:
            raise exception.InvalidBDMFormat(
                details="Specifying a volume_type with destination_type="
                        "local is not supported.")
        if source == "volume" and volume_type:
            raise exception.InvalidBDMFormat(
                details="Specifying volume type to existing volume is not "
                        "supported.")
        if source and not dest:
            # Nova's default: only a blank or image source can stay local.
            bdm["destination_type"] = "local" \
                if source in ("blank", "image") else "volume"
    bdm.pop("uuid", None)
    return _normalise(bdm)


def _normalise(bdm):
    out = {k: v for k, v in bdm.items() if k in _API_KEYS}
    for name in _INT_FIELDS:
        if out.get(name) is not None:
            out[name] = int(out[name])
    for name in ("delete_on_termination", "no_device"):
        if name in out:
            out[name] = strutils.bool_from_string(out[name])
    return out


def from_legacy(legacy, image_ref, root_device_name, no_root=False):
    """Legacy ``block_device_mapping`` entries (volumes and snapshots by
    device name); the one on the root device boots, else the image
    (``no_root``: the image's own mappings have the root)."""
    out = []
    volume_backed = False
    for item in legacy:
        bdm = {"device_name": item.get("device_name"),
               "delete_on_termination":
                   strutils.bool_from_string(
                       item.get("delete_on_termination", False)),
               "no_device": bool(item.get("no_device")),
               "volume_size": item.get("volume_size")}
        virtual = item.get("virtual_name")
        if virtual == "swap" or _EPHEMERAL.match(virtual or ""):
            bdm.update(source_type="blank", destination_type="local",
                       delete_on_termination=True,
                       guest_format="swap" if virtual == "swap" else None)
        elif item.get("snapshot_id"):
            bdm.update(source_type="snapshot", destination_type="volume",
                       snapshot_id=item["snapshot_id"])
        elif item.get("volume_id"):
            bdm.update(source_type="volume", destination_type="volume",
                       volume_id=item["volume_id"])
        elif not bdm["no_device"]:
            raise exception.InvalidBDMFormat(
                details="Unrecognized legacy format.")
        if no_root:
            bdm["boot_index"] = -1
        elif bdm.get("source_type") not in (None, "blank") and \
                strip_dev(bdm["device_name"]) == strip_dev(root_device_name):
            bdm["boot_index"] = 0
            volume_backed = True
        elif not bdm["no_device"]:
            bdm["boot_index"] = -1
        out.append(_normalise(bdm))
    if image_ref and not volume_backed and not no_root:
        out.insert(0, image_bdm(image_ref))
    return out


def image_defined(image, root_device_name):
    """The mappings an image carries (a snapshot of a volume-backed
    server: ``block_device_mapping``, v2 when ``bdm_v2`` is set)."""
    props = (image or {}).get("properties") or {}
    mappings = props.get("block_device_mapping") or []
    if isinstance(mappings, str):
        mappings = jsonutils.loads(mappings)
    if not strutils.bool_from_string(props.get("bdm_v2", False)):
        return from_legacy(mappings, None, root_device_name)
    return [_normalise(dict(m)) for m in mappings]


def _merge(image_bdms, request_bdms):
    """The request's mappings win over the image's on the same device."""
    names = {b.get("device_name") for b in request_bdms
             if b.get("device_name")}
    return request_bdms + [b for b in image_bdms
                           if b.get("device_name") not in names]


def image_bdm(image_id):
    return {"source_type": "image", "image_id": image_id,
            "delete_on_termination": True, "boot_index": 0,
            "device_type": "disk", "destination_type": "local"}


def _blank(size, guest_format=None):
    return {"source_type": "blank", "delete_on_termination": True,
            "device_type": "disk", "boot_index": -1,
            "destination_type": "local", "guest_format": guest_format,
            "volume_size": size}


def is_ephemeral(bdm):
    return bdm.get("source_type") == "blank" and \
        bdm.get("destination_type") == "local" and \
        bdm.get("guest_format") != "swap"


def is_swap(bdm):
    return bdm.get("source_type") == "blank" and \
        bdm.get("destination_type") == "local" and \
        bdm.get("guest_format") == "swap"


def transform(bdms, legacy, image_ref, flavor, num_instances, image=None):
    """The request's mappings completed with the image's own mappings and
    the image and flavor disks."""
    props = (image or {}).get("properties") or {}
    root_name = strip_dev(props.get("root_device_name")) or "vda"
    if image_ref:
        for bdm in bdms:
            if bdm.get("destination_type") == "volume" and \
                    strip_dev(bdm.get("device_name")) == root_name:
                raise exception.InvalidRequest(
                    f"The volume cannot be assigned the same device name "
                    f"as the root device {root_name}")
    from_image = image_defined(image, root_name)
    root_in_image = root_bdm(from_image) is not None
    if legacy:
        bdms = from_legacy(bdms, image_ref, root_name, no_root=root_in_image)
    elif root_in_image:
        # The client's own image mapping gives way to the image's root.
        bdms = [b for b in bdms if not (b.get("boot_index") == 0 and
                                        b.get("source_type") == "image")]
    bdms = _merge(from_image, bdms)
    if num_instances > 1 and any(b.get("source_type") == "volume"
                                 for b in bdms):
        raise exception.InvalidRequest(
            "Cannot attach one or more volumes to multiple instances")
    if flavor.ephemeral_gb and not any(is_ephemeral(b) for b in bdms):
        bdms.append(_blank(flavor.ephemeral_gb))
    if flavor.swap and not any(is_swap(b) for b in bdms):
        bdms.append(_blank(flavor.swap, "swap"))
    return bdms


def root_bdm(bdms):
    for bdm in bdms:
        if bdm.get("boot_index") == 0:
            return bdm
    return None


def validate(ctx, bdms, flavor, image_ref, image_cache):
    """Nova's _validate_bdm on the completed list; returns the existing
    volumes it boots with (Cinder's view of them)."""
    volumes = []
    indexes = sorted(b["boot_index"] for b in bdms
                     if b.get("boot_index") is not None and
                     b["boot_index"] >= 0)
    if not indexes or any(i != v for i, v in enumerate(indexes)):
        raise exception.InvalidBDMBootSequence()
    for bdm in bdms:
        source, dest = bdm.get("source_type"), bdm.get("destination_type")
        if dest == "volume" or source in ("volume", "snapshot"):
            if not _cinder_configured():
                what = bdm.get("volume_id") or bdm.get("snapshot_id") or \
                    f"({source} -> volume)"
                raise exception.InvalidBDM(_NO_CINDER % what)
            volume = _check_volume(ctx, bdm)
            if volume is not None:
                volumes.append(volume)
        image_id = bdm.get("image_id")
        if image_id is not None:
            if image_id != image_ref and image_id not in image_cache:
                from keel.compute_api import server_create_checks as checks
                try:
                    image_cache[image_id] = checks.get_image(ctx, image_id)
                except Exception:  # noqa: BLE001 - Nova's answer for all
                    raise exception.InvalidBDMImage(id=image_id)
            if source == "image" and dest == "volume" and \
                    not bdm.get("volume_size"):
                raise exception.InvalidBDM(
                    "Images with destination_type 'volume' need to have a "
                    "non-zero size specified")
        elif source == "blank" and dest == "volume" and \
                not bdm.get("volume_size"):
            raise exception.InvalidBDM(
                "Blank volumes (source: 'blank', dest: 'volume') need to "
                "have non-zero size")
        bus = bdm.get("disk_bus")
        if bus and bus not in fields.DiskBus.ALL:
            raise exception.InvalidBDMDiskBus(disk_bus=bus)
    ephemeral = sum(b.get("volume_size") or flavor.ephemeral_gb
                    for b in bdms if is_ephemeral(b))
    if ephemeral > flavor.ephemeral_gb:
        raise exception.InvalidBDMEphemeralSize()
    swaps = [b for b in bdms if is_swap(b)]
    if len(swaps) > 1:
        raise exception.InvalidBDMFormat(
            details="More than one swap drive requested.")
    if swaps and (swaps[0].get("volume_size") or 0) > flavor.swap:
        raise exception.InvalidBDMSwapSize()
    max_local = CONF.max_local_block_devices
    if max_local >= 0 and \
            sum(1 for b in bdms if b.get("destination_type") == "local") \
            > max_local:
        raise exception.InvalidBDMLocalsLimit()
    return volumes


def volume_zone(instance_zone, volumes):
    """Nova's _validate_vol_az_for_create: with [cinder]/cross_az_attach
    off, the volumes share one zone and the server must be in it; a server
    that asked no zone takes the volumes' when it is the default zone."""
    if CONF.cinder.cross_az_attach or not volumes:
        return None
    zones = {v["availability_zone"] for v in volumes}
    if len(zones) > 1:
        raise exception.MismatchVolumeAZException(
            reason="Volumes are in different availability zones: %s"
            % ",".join(sorted(zones)))
    zone = zones.pop()
    if not instance_zone and zone == CONF.default_availability_zone:
        return zone
    if instance_zone != zone:
        raise exception.MismatchVolumeAZException(
            reason="Server and volumes are not in the same availability "
                   "zone. Server is in: %s. Volumes are in: %s"
                   % (instance_zone, zone))
    return None


def _size(bdm, flavor):
    size = bdm.get("volume_size")
    if size is None and bdm.get("source_type") == "blank" and \
            bdm.get("destination_type") == "local":
        size = flavor.swap if bdm.get("guest_format") == "swap" \
            else flavor.ephemeral_gb
    return size


def for_instance(ctx, bdms, flavor, instance_uuid=None):
    """A BlockDeviceMappingList of one instance (not stored: it travels
    in the BuildRequest until the conductor creates it in the cell); with
    no ``instance_uuid`` the request-wide list the conductor copies."""
    out = []
    for bdm in bdms:
        values = {k: v for k, v in bdm.items()
                  if k in objects.BlockDeviceMapping.fields and
                  v is not None}
        values["volume_size"] = _size(bdm, flavor)
        if instance_uuid is not None:
            values["instance_uuid"] = instance_uuid
        for name, empty in (("delete_on_termination", False),
                            ("no_device", False), ("attachment_id", None)):
            values.setdefault(name, empty)
        out.append(objects.BlockDeviceMapping(ctx, **values))
    return objects.BlockDeviceMappingList(ctx, objects=out)
