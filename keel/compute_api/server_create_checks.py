"""What POST /servers checks before anything is written: the zone and a
forced host, the image against the flavor, metadata and personality
quotas, user data, config drive, security groups, networks, and the
requested host/node (2.74). Each check raises Nova's exception; the
handler turns it into Nova's status and message.
"""
import base64
import binascii
import random
import re
import string

from oslo_log import log as logging
from oslo_utils import strutils

from keel.compute_api import availability_zones
from keel.compute_api import quota
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel import objects
from keel.policies import servers as policy_names
from keel import policy

LOG = logging.getLogger(__name__)
GiB = 1024 ** 3

# Image properties never copied into system metadata (Glance-only
# signature data and the image's own block device mappings).
_SM_SKIP_KEYS = ("img_signature_hash_method", "img_signature",
                 "img_signature_key_type", "img_signature_certificate_uuid",
                 "mappings", "block_device_mapping")
_SM_INHERITABLE = ("min_ram", "min_disk", "disk_format", "container_format")
# Nova's generate_password alphabet: no look-alike characters.
_PASSWORD_SYMBOLS = ("23456789", "ABCDEFGHJKLMNPQRSTUVWXYZ",
                     "abcdefghijkmnopqrstuvwxyz")


def generate_password(length=12):
    """A random password with at least one of each symbol group."""
    rng = random.SystemRandom()
    chars = [rng.choice(group) for group in _PASSWORD_SYMBOLS]
    alphabet = "".join(_PASSWORD_SYMBOLS)
    chars += [rng.choice(alphabet) for _ in range(length - len(chars))]
    rng.shuffle(chars)
    return "".join(chars)


def generate_reservation_id():
    rng = random.SystemRandom()
    return "r-" + "".join(rng.choice(string.ascii_lowercase + string.digits)
                          for _ in range(8))


def sanitize_hostname(name):
    """RFC 952/1123 host name from a display name (Nova's rules: latin-1
    only, 63 characters, spaces/underscores/dots become dashes)."""
    name = name.encode("latin-1", "ignore").decode("latin-1")[:63]
    name = re.sub(r"[ _.]", "-", name)
    name = re.sub(r"[^\w.-]+", "", name)
    return name.lower().strip(".-")


# --- availability zone and forced host -----------------------------------

def parse_availability_zone(zone):
    """``(zone, forced_host, forced_node)`` from ``az``, ``az:host``,
    ``az::node`` or ``az:host:node``."""
    host = node = None
    if zone and ":" in zone:
        colons = zone.count(":")
        if colons == 1:
            zone, host = zone.split(":")
        elif colons == 2 and "::" in zone:
            zone, node = zone.split("::")
        elif colons == 2:
            zone, host, node = zone.split(":")
        else:
            raise exception.InvalidInput(
                reason="Unable to parse availability_zone")
    if not zone:
        zone = CONF.default_schedule_zone
    return zone, host or None, node or None


def check_zone_available(ctx, zone):
    available, _unavailable = availability_zones.get_availability_zones(
        ctx.elevated())
    if zone not in available:
        raise exception.InvalidRequest(
            "The requested availability zone is not available")


def check_host_or_node(ctx, host, node):
    """The requested host (and node) exist (2.74); ComputeHostNotFound
    otherwise."""
    if host:
        try:
            mapping = objects.HostMapping.get_by_host(ctx, host)
        except exception.HostMappingNotFound:
            raise exception.ComputeHostNotFound(host=host)
        if node:
            with keel_context.target_cell(ctx, mapping.cell_mapping) as cc:
                try:
                    objects.ComputeNode.get_by_host_and_nodename(cc, host,
                                                                 node)
                except exception.NotFound:
                    raise exception.ComputeHostNotFound(host=node)
        return
    for cell in objects.CellMappingList.get_all(ctx):
        if cell.is_cell0():
            continue
        with keel_context.target_cell(ctx, cell) as cc:
            found = objects.ComputeNodeList.get_by_hypervisor(cc, node)
            if any(n.hypervisor_hostname == node for n in found):
                return
    raise exception.ComputeHostNotFound(host=node)


# --- images ----------------------------------------------------------------

def image_id_from_href(href):
    return str(href).rstrip("/").rsplit("/", 1)[-1]


def get_image(ctx, image_href):
    """``(image_id, image dict)``; ImageNotFound from the image API."""
    from keel.image import api as image_api

    image = image_api.get_api().get(ctx, image_id_from_href(image_href))
    return image["id"], image


def check_flavor_image(ctx, image_id, image, flavor, root_bdm):
    """Nova's _validate_flavor_image: status, config drive property,
    min_ram, and the root disk (local: flavor root_gb, volume: its size)
    against the image's size and min_disk."""
    if not image:
        return
    if image_id and image.get("status") != "active":
        raise exception.ImageNotActive(image_id=image_id)
    props = image.get("properties") or {}
    drive = props.get("img_config_drive", "optional")
    if drive not in ("optional", "mandatory"):
        raise exception.InvalidImageConfigDrive(config_drive=drive)
    if flavor.memory_mb < int(image.get("min_ram") or 0):
        raise exception.FlavorMemoryTooSmall()
    min_disk = int(image.get("min_disk") or 0) * GiB
    size = int(image.get("size") or 0)
    if root_bdm is not None and root_bdm.destination_type == "volume":
        if root_bdm.volume_size is not None and \
                min_disk > root_bdm.volume_size * GiB:
            raise exception.VolumeSmallerThanMinDisk(
                volume_size=root_bdm.volume_size * GiB,
                image_min_disk=min_disk)
        return
    dest = flavor.root_gb * GiB
    if dest == 0:
        # A zero-disk flavor gives the guest the image's size, however
        # large: only allowed by policy (admin by default).
        if not policy.authorize(ctx, policy_names.SERVERS %
                                "create:zero_disk_flavor",
                                target={"project_id": ctx.project_id},
                                do_raise=False):
            raise exception.BootFromVolumeRequiredForZeroDiskFlavor()
        return
    if size > dest:
        raise exception.FlavorDiskSmallerThanImage(flavor_size=dest,
                                                   image_size=size)
    if min_disk > dest:
        raise exception.FlavorDiskSmallerThanMinDisk(
            flavor_size=dest, image_min_disk=min_disk)


def auto_disk_config(image, requested):
    """The instance's auto_disk_config: the request's, unless the image
    disables it (then asking for it is an error)."""
    props = (image or {}).get("properties") or {}
    from_image = props.get("auto_disk_config")
    if from_image is not None and \
            str(from_image).lower() == "disabled":
        if requested:
            raise exception.AutoDiskConfigDisabledByImage(
                image=(image or {}).get("id"))
        from_image = False
    if requested is None:
        return strutils.bool_from_string(from_image)
    return requested


def system_metadata_from_image(image, flavor):
    """``image_*`` system metadata as Nova copies it from the image."""
    out = {}
    for key, value in ((image or {}).get("properties") or {}).items():
        if key in _SM_SKIP_KEYS:
            continue
        out["image_" + key] = str(value)[:255]
    for key in _SM_INHERITABLE:
        value = (image or {}).get(key)
        if key == "min_disk":
            value = flavor.root_gb if (image or {}).get(
                "disk_format") == "vhd" else max(value or 0, flavor.root_gb)
        if value is not None:
            out["image_" + key] = str(value)
    return out


# --- request contents ------------------------------------------------------

def check_metadata_quota(ctx, metadata):
    if not metadata:
        return
    try:
        quota.limit_check(ctx, ctx.project_id, metadata_items=len(metadata))
    except exception.OverQuota as exc:
        raise exception.MetadataLimitExceeded(
            allowed=exc.kwargs["quotas"]["metadata_items"])


def check_injected_files_quota(ctx, files):
    """Personality files (before 2.57): count, then path and content
    length (the path limit is reported first)."""
    if files is None:
        return
    try:
        quota.limit_check(ctx, ctx.project_id, injected_files=len(files))
    except exception.OverQuota:
        raise exception.OnsetFileLimitExceeded()
    max_path = max([len(p) for p, _c in files] or [0])
    max_content = max([len(c) for _p, c in files] or [0])
    try:
        quota.limit_check(ctx, ctx.project_id,
                          injected_file_path_bytes=max_path,
                          injected_file_content_bytes=max_content)
    except exception.OverQuota as exc:
        limits = exc.kwargs["quotas"]
        if "injected_file_path_bytes" in exc.kwargs["overs"]:
            raise exception.OnsetFilePathLimitExceeded(
                allowed=limits["injected_file_path_bytes"])
        raise exception.OnsetFileContentLimitExceeded(
            allowed=limits["injected_file_content_bytes"])


def check_user_data(user_data):
    if not user_data:
        return
    try:
        base64.b64decode(user_data, validate=True)
    except (binascii.Error, ValueError, TypeError):
        raise exception.InstanceUserDataMalformed()


def config_drive_value(config_drive):
    """The column is a string: 'True' or ''."""
    if not config_drive:
        return ""
    try:
        value = strutils.bool_from_string(config_drive, strict=True)
    except ValueError:
        raise exception.ConfigDriveInvalidValue(option=config_drive)
    return "True" if value else ""


def check_security_groups(ctx, names):
    """Each requested group must exist (Neutron's; without Neutron only
    ``default``): SecurityGroupNotFound otherwise."""
    from keel.network import api as network_api

    api = network_api.get_api()
    return [api.validate_security_group_name(ctx, name) for name in names]


def check_requested_networks(ctx, requested, max_count):
    """How many instances the networks allow (Neutron port quota); the
    network API checks the networks, ports and fixed IPs exist."""
    if requested is not None and requested.no_allocate:
        return max_count
    from keel.network import api as network_api

    return network_api.get_api().validate_networks(ctx, requested,
                                                   max_count)


def check_multiple_with_networks(requested):
    """Multi-create cannot share a fixed IP or a port."""
    for req in requested or ():
        if req.network_id and req.address:
            raise exception.InvalidFixedIpAndMaxCountRequest(
                reason="max_count cannot be greater than 1 if an fixed_ip "
                       "is specified.")
        if req.port_id:
            raise exception.MultiplePortsNotApplicable(
                reason="Unable to launch multiple instances with a single "
                       "configured port ID. Please launch your instance one "
                       "by one with different ports.")


def trusted_certs(ids):
    if ids:
        return objects.TrustedCerts(ids=list(ids))
    glance = CONF.glance
    if glance.verify_glance_signatures and \
            glance.enable_certificate_validation and \
            glance.default_trusted_certificate_ids:
        return objects.TrustedCerts(
            ids=list(glance.default_trusted_certificate_ids))
    return None


def requested_group(ctx, hints):
    """The server group of the ``group`` hint (400 when unknown)."""
    group = (hints or {}).get("group")
    if isinstance(group, list):
        group = group[0] if group else None
    if not group:
        return None
    return objects.InstanceGroup.get_by_uuid(ctx, group)
