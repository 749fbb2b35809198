"""List filters, sorting and paging of Nova's ``get_all`` as Glance v2
applies them, for the local catalogue (Glance does its own)."""
from oslo_utils import timeutils

from keel import exception

# Nova's filter names -> Glance v2's (see keel.image.glance.query_params).
_DEFAULT_SORT = ("created_at", "desc")


def _property_filters(filters):
    out = {}
    for key, value in filters.items():
        if key.startswith("property-"):
            out[key[len("property-"):]] = value
    return out


def _matches(image, filters):
    for key, value in filters.items():
        if value is None or key.startswith("property-") or \
                key == "is_public":
            continue
        if key == "changes-since":
            try:
                since = timeutils.normalize_time(
                    timeutils.parse_isotime(value))
            except ValueError:
                raise exception.Invalid(
                    "Invalid changes-since value: %s" % value)
            updated = image.get("updated_at")
            if updated is None or timeutils.normalize_time(updated) < since:
                return False
        elif key in ("min_ram", "min_disk", "size"):
            # Glance v2 compares base integer attributes for equality.
            try:
                if int(image.get(key) or 0) != int(value):
                    return False
            except ValueError:
                raise exception.Invalid("Invalid %s filter [%s]"
                                        % (key, value))
        elif key == "visibility":
            if image.get("visibility") != value:
                return False
        elif str(image.get(key)) != str(value):
            return False
    for key, value in _property_filters(filters).items():
        if str(image["properties"].get(key)) != str(value):
            return False
    return True


def _sort_value(image, key):
    value = image.get(key)
    if value is None:
        return (0, "")
    return (1, value)


def apply(images, kwargs):
    """Filter, sort (Glance's default: newest first, then id) and page."""
    filters = dict(kwargs.get("filters") or {})
    images = [i for i in images if _matches(i, filters)]
    sort_key = kwargs.get("sort_key") or _DEFAULT_SORT[0]
    sort_dir = kwargs.get("sort_dir") or _DEFAULT_SORT[1]
    if isinstance(sort_key, (list, tuple)):
        sort_key = sort_key[0]
    if isinstance(sort_dir, (list, tuple)):
        sort_dir = sort_dir[0]
    reverse = sort_dir == "desc"
    images.sort(key=lambda i: (_sort_value(i, sort_key), i["id"]),
                reverse=reverse)
    marker = kwargs.get("marker")
    if marker:
        ids = [i["id"] for i in images]
        if marker not in ids:
            raise exception.Invalid("Invalid marker. Image %s could not be "
                                    "found." % marker)
        images = images[ids.index(marker) + 1:]
    limit = kwargs.get("limit") or kwargs.get("page_size")
    if limit:
        images = images[:int(limit)]
    return images
