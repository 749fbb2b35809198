"""Glance v2 image documents <-> Nova's image dict.

Glance v2 keeps custom properties flat beside the base attributes; Nova's
image dict nests them under ``properties``. The local catalogue stores
Glance-shaped documents too, so both backends share this translation.
"""
import copy
import json

from oslo_utils import timeutils

# The attributes of Glance v2's image schema; every other key of an image
# document is a custom property.
BASE_ATTRIBUTES = frozenset((
    "id", "name", "status", "visibility", "protected", "os_hidden",
    "checksum", "os_hash_algo", "os_hash_value", "owner", "size",
    "virtual_size", "container_format", "disk_format", "created_at",
    "updated_at", "tags", "direct_url", "locations", "min_ram", "min_disk",
    "self", "file", "schema", "stores",
))
# Glance bookkeeping Nova leaves out of its image dict.
_OMITTED = frozenset(("self", "schema", "protected", "virtual_size", "file",
                      "tags", "stores", "os_hidden"))
_LOCATION_ATTRIBUTES = frozenset(("direct_url", "locations"))
# Set by Glance only; never sent back.
READ_ONLY = frozenset(("status", "created_at", "updated_at", "deleted_at",
                       "size", "virtual_size", "checksum", "os_hash_algo",
                       "os_hash_value", "deleted", "direct_url", "locations",
                       "file", "self", "schema", "stores", "id"))
# Properties Nova stores JSON-encoded because Glance keeps strings only.
_JSON_PROPERTIES = ("block_device_mapping", "mappings")
_TIMESTAMPS = ("created_at", "updated_at", "deleted_at")


def from_glance(doc, include_locations=False):
    """Nova's image dict from a Glance v2 image document."""
    image = {"properties": {}, "deleted": False, "deleted_at": None,
             "disk_format": None, "container_format": None, "name": None,
             "checksum": None}
    for key, value in doc.items():
        if key in _OMITTED:
            continue
        if key in _LOCATION_ATTRIBUTES:
            if include_locations:
                image[key] = copy.deepcopy(value)
            continue
        if key == "visibility":
            image["visibility"] = value
            image["is_public"] = value == "public"
        elif key == "size":
            image["size"] = value or 0  # a snapshot in progress has none
        elif key in BASE_ATTRIBUTES:
            image[key] = value
        else:
            image["properties"][key] = value
    image.setdefault("size", 0)
    for key in _TIMESTAMPS:
        if isinstance(image.get(key), str):
            image[key] = timeutils.parse_isotime(image[key])
    props = image["properties"]
    for key in _JSON_PROPERTIES:
        if isinstance(props.get(key), str):
            try:
                props[key] = json.loads(props[key])
            except ValueError:
                pass
    if include_locations:
        locations = list(image.get("locations") or [])
        if image.get("direct_url") and not any(
                loc.get("url") == image["direct_url"] for loc in locations):
            locations.append({"url": image["direct_url"], "metadata": {}})
        image["locations"] = locations
    return image


def _as_property(key, value):
    if key in _JSON_PROPERTIES and not isinstance(value, str):
        return json.dumps(value)
    # Glance v2 accepts strings (and null) only.
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    return str(value)


def to_glance(image_meta):
    """A Glance v2 document (flat properties) from Nova's image dict,
    without the read-only attributes."""
    out = {}
    for key, value in image_meta.items():
        if key == "properties":
            for pkey, pvalue in (value or {}).items():
                # Glance refuses null kernel/ramdisk ids; Nova drops them.
                if pkey in ("kernel_id", "ramdisk_id") and (
                        pvalue is None or (isinstance(pvalue, str) and
                                           pvalue.strip().lower() in
                                           ("none", ""))):
                    continue
                out[pkey] = _as_property(pkey, pvalue)
        elif key in ("min_ram", "min_disk"):
            out[key] = int(value or 0)
        elif key == "is_public":
            if "visibility" not in image_meta:
                out["visibility"] = "public" if value else "private"
        elif key in READ_ONLY or key in ("deleted", "location"):
            continue
        else:
            out[key] = value
    return out


def isotime(value):
    """Glance's timestamp spelling (``2011-01-01T01:02:03Z``)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return timeutils.normalize_time(value).strftime("%Y-%m-%dT%H:%M:%SZ")
