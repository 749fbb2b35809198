"""Glance's rules for image documents, shared by the local catalogue:
allowed formats and visibilities, and Nova's force-activate rule."""
from keel import exception

DEFAULT_DISK_FORMAT = "qcow2"
DEFAULT_CONTAINER_FORMAT = "bare"
VISIBILITIES = ("public", "private", "shared", "community")
DISK_FORMATS = ("ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2",
                "vdi", "iso", "ploop")
CONTAINER_FORMATS = ("ami", "ari", "aki", "bare", "ovf", "ova", "docker",
                     "compressed")


def validate(image_id, doc):
    """ImageBadRequest, with Glance's message, for a value Glance refuses."""
    def bad(msg):
        raise exception.ImageBadRequest(image_id=image_id, response=msg)
    if doc.get("visibility") not in (None,) + VISIBILITIES:
        bad("Invalid visibility value: %s" % doc["visibility"])
    if doc.get("disk_format") not in (None,) + DISK_FORMATS:
        bad("Invalid disk format '%s' for image." % doc["disk_format"])
    if doc.get("container_format") not in (None,) + CONTAINER_FORMATS:
        bad("Invalid container format '%s' for image."
            % doc["container_format"])
    for key in ("min_ram", "min_disk"):
        if doc.get(key) is not None and int(doc[key]) < 0:
            bad("Cannot be a negative value: %s" % key)
    if doc.get("name") is not None and len(doc["name"]) > 255:
        bad("name is too long")


def check_formats(doc):
    """Glance accepts data only once both formats are known."""
    if not doc.get("disk_format") or not doc.get("container_format"):
        raise exception.ImageBadRequest(
            image_id=doc["id"],
            response="Properties disk_format, container_format must be "
                     "set prior to saving data.")


def force_activate(image_meta, data):
    """Nova's rule for a snapshot of a volume-backed server: no data and
    ``size`` 0 make an empty, active image (Glance v2 needs formats for
    that). Returns ``(image_meta, data)``.

    Nova prefers qcow2 here; Glance's format inspection now refuses an
    empty upload declared as qcow2 ("does not match stream data raw"), so
    an empty image is declared raw, which is what it is."""
    if data is not None or image_meta.get("size") != 0 or \
            image_meta.get("location"):
        return image_meta, data
    meta = dict(image_meta)
    meta["disk_format"] = meta.get("disk_format") or "raw"
    meta["container_format"] = meta.get("container_format") or \
        DEFAULT_CONTAINER_FORMAT
    return meta, b""
