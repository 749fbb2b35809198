"""Bodies and query strings of /servers/{id}/os-interface (Nova's
attach_interfaces schemas)."""
import copy

from keel.api.schemas import parameter_types as types

_uuid = {"type": "string", "format": "uuid"}
_ip = {"type": "string", "oneOf": [{"format": "ipv4"}, {"format": "ipv6"}]}

create = {
    "type": "object",
    "properties": {"interfaceAttachment": {
        "type": "object",
        "properties": {
            "net_id": _uuid, "port_id": _uuid,
            "fixed_ips": {
                "type": "array", "minItems": 1, "maxItems": 1,
                "items": {"type": "object",
                          "properties": {"ip_address": _ip},
                          "required": ["ip_address"],
                          "additionalProperties": False}}},
        "additionalProperties": False}},
    "additionalProperties": False}

create_v249 = copy.deepcopy(create)
create_v249["properties"]["interfaceAttachment"]["properties"]["tag"] = {
    "type": "string", "minLength": 1, "maxLength": 60,
    "pattern": "^[^,/]*$"}

index_query = types.query()
index_query_v2102 = types.query(additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)
