"""os-services request bodies and query strings.

Before 2.53 the body names the service by host and binary (the path names
the action); from 2.53 the path holds the service uuid and the body says
what to change. 2.11 adds ``forced_down``; 2.75 refuses unknown query
parameters.
"""
from keel.api.schemas import parameter_types as types

_string = {"type": "string", "minLength": 1, "maxLength": 255}
_host = dict(_string, pattern="^[a-zA-Z0-9-._]*$")

# Nova's boolean: JSON booleans and the strings oslo's strutils accepts.
boolean = {
    "type": ["boolean", "string"],
    "enum": [True, "True", "TRUE", "true", "1", "ON", "On", "on",
             "YES", "Yes", "yes",
             False, "False", "FALSE", "false", "0", "OFF", "Off", "off",
             "NO", "No", "no"],
}


def _legacy(extra=None):
    props = {"host": _host, "binary": _string, "disabled_reason": _string}
    props.update(extra or {})
    return {"type": "object", "properties": props,
            "required": ["host", "binary"], "additionalProperties": False}


update = _legacy()
update_v211 = _legacy({"forced_down": boolean})
update_v253 = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["enabled", "disabled"]},
        "disabled_reason": _string,
        "forced_down": boolean,
    },
    "additionalProperties": False,
}

_filters = {"host": types.multi_params(types.any_string),
            "binary": types.multi_params(types.any_string)}
index_query = types.query(_filters)
index_query_v275 = types.query(_filters, additional=False)

UPSTREAM = {
    "update": "services.update",
    "update_v211": "services.update_v211",
    "update_v253": "services.update_v253",
    "index_query": "services.index_query",
    "index_query_v275": "services.index_query_v275",
}
