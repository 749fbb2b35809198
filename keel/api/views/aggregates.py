"""os-aggregates bodies: every set field of the record (``uuid`` from
2.41), timestamps naive as Nova's original API had them."""
from keel.api.views.services import isotime

_FIELDS = ("availability_zone", "created_at", "deleted", "deleted_at",
           "hosts", "id", "metadata", "name", "updated_at", "uuid")


def aggregate(req, agg, brief=False):
    """``brief``: create's answer, without hosts and metadata."""
    body = {}
    for key in _FIELDS:
        if key == "uuid" and not req.version_matches("2.41"):
            continue
        if key != "availability_zone" and not agg.obj_attr_is_set(key):
            continue
        value = getattr(agg, key)
        if key in ("created_at", "updated_at", "deleted_at"):
            value = isotime(value)
        body[key] = value
    if brief:
        body.pop("hosts", None)
        body.pop("metadata", None)
    return body
