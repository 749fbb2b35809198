"""os-aggregates request bodies and query strings, and the 2.81 image
cache request."""
import copy

from keel.api.schemas import parameter_types as types

_host = {"type": "string", "minLength": 1, "maxLength": 255,
         "pattern": "^[a-zA-Z0-9-._]*$"}


def _az(fmt):
    return {"oneOf": [{"type": "string", "minLength": 1, "maxLength": 255,
                       "format": fmt}, {"type": "null"}]}


def _wrapped(key, inner):
    return {"type": "object", "properties": {key: inner},
            "required": [key], "additionalProperties": False}


create = _wrapped("aggregate", {
    "type": "object",
    "properties": {"name": types.name,
                   "availability_zone": _az("az_name")},
    "required": ["name"], "additionalProperties": False})

# Nova keeps the lenient name format on update (a historical quirk).
update = _wrapped("aggregate", {
    "type": "object",
    "properties": {"name": types.name_with_leading_trailing_spaces,
                   "availability_zone": _az("az_name")},
    "additionalProperties": False,
    "anyOf": [{"required": ["name"]}, {"required": ["availability_zone"]}]})


def _host_action(key):
    return _wrapped(key, {"type": "object", "properties": {"host": _host},
                          "required": ["host"],
                          "additionalProperties": False})


add_host = _host_action("add_host")
remove_host = _host_action("remove_host")

set_metadata = _wrapped("set_metadata", {
    "type": "object",
    "properties": {"metadata": {
        "type": "object",
        "patternProperties": {"^[a-zA-Z0-9-_:. ]{1,255}$": {
            "type": ["string", "null"], "maxLength": 255}},
        "additionalProperties": False}},
    "required": ["metadata"], "additionalProperties": False})

images = {
    "type": "object",
    "properties": {"cache": {
        "type": ["array"], "minItems": 1,
        "items": {"type": "object",
                  "properties": {"id": {"type": "string", "format": "uuid"}},
                  "required": ["id"], "additionalProperties": False}}},
    "required": ["cache"], "additionalProperties": False}

index_query = types.query()
index_query_v2102 = types.query(additional=False)
show_query = copy.deepcopy(index_query)
show_query_v2102 = copy.deepcopy(index_query_v2102)

UPSTREAM = {
    "create": "aggregates.create",
    "update": "aggregates.update",
    "add_host": "aggregates.add_host",
    "remove_host": "aggregates.remove_host",
    "set_metadata": "aggregates.set_metadata",
    "images": "aggregate_images.aggregate_images",
    "index_query": "aggregates.index_query",
    "index_query_v2102": "aggregates.index_query_v2102",
    "show_query": "aggregates.show_query",
    "show_query_v2102": "aggregates.show_query_v2102",
}
