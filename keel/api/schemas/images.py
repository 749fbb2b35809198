"""Query strings of Nova's image proxy (GET /images, /images/detail,
/images/{id}) and bodies of its image metadata API."""
from keel.api.schemas import parameter_types as types

# A positive decimal integer as a string or a number (paging parameters).
_positive = {"type": ["integer", "string"], "pattern": "^[0-9]*$",
             "minimum": 1, "minLength": 1}
_FILTERS = ("name", "status", "changes-since", "server", "type", "minRam",
            "minDisk", "marker")


def _list_query():
    props = {name: {} for name in _FILTERS}
    for name in ("limit", "page_size", "offset"):
        props[name] = types.multi_params(_positive)
    schema = types.query(props)
    # Glance property filters pass through as they are.
    schema["patternProperties"] = {"^property-.*$": {}}
    return schema


index_query = _list_query()
detail_query = _list_query()
show_query = types.query()

# Image metadata: keys and values as Glance keeps them.
_KEY_PATTERN = "^[a-zA-Z0-9-_:. ]{1,255}$"
_items = {"type": "object",
          "patternProperties": {_KEY_PATTERN: {"type": "string",
                                               "maxLength": 255}},
          "additionalProperties": False}
_single = dict(_items, minProperties=1, maxProperties=1)


def _body(key, value):
    return {"type": "object", "properties": {key: value},
            "required": [key], "additionalProperties": False}


metadata_create = _body("metadata", _items)
metadata_update_all = _body("metadata", _items)
metadata_update = _body("meta", _single)

UPSTREAM = {
    "index_query": "images.index_query",
    "detail_query": "images.detail_query",
    "show_query": "images.show_query",
    "metadata_create": "image_metadata.create",
    "metadata_update_all": "image_metadata.update_all",
    "metadata_update": "image_metadata.update",
}
