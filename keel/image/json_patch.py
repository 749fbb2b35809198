"""Glance v2's JSON patch on an image document: add, replace and remove
of top-level attributes and custom properties, with Glance's refusals."""
from keel import exception
from keel.image import convert


def apply(doc, op):
    """Apply one operation to ``doc`` in place."""
    def bad(msg):
        raise exception.ImageBadRequest(image_id=doc["id"], response=msg)
    kind, path = op.get("op"), op.get("path", "")
    key = path[1:] if isinstance(path, str) and path.startswith("/") else ""
    if not key or "/" in key:
        bad("Invalid JSON pointer for this resource: '%s'" % path)
    if kind not in ("add", "replace", "remove"):
        bad("Unable to find '%s' in JSON Schema change" % kind)
    # Glance: read-only attributes are 403; only the owner may be replaced.
    if key in convert.READ_ONLY or (key == "owner" and kind != "replace"):
        raise exception.ImageNotAuthorized(image_id=doc["id"])
    if kind == "remove":
        if key not in doc:
            bad("Property %s does not exist." % key)
        if key in convert.BASE_ATTRIBUTES:
            raise exception.ImageNotAuthorized(image_id=doc["id"])
        del doc[key]
        return
    if kind == "replace" and key not in doc:
        bad("Property %s does not exist." % key)
    doc[key] = op.get("value")
