"""Bodies of os-floating-ips (create: an optional pool) and of the
add/removeFloatingIp server actions; the pools list's query."""
from keel.api.schemas import parameter_types as types

_ip = {"type": "string", "oneOf": [{"format": "ipv4"}, {"format": "ipv6"}]}

create = {"type": ["object", "null"],
          "properties": {"pool": {"type": ["string", "null"]}}}

add_floating_ip = {
    "type": "object",
    "properties": {"addFloatingIp": {
        "type": "object",
        "properties": {"address": _ip, "fixed_address": _ip},
        "required": ["address"], "additionalProperties": False}},
    "required": ["addFloatingIp"], "additionalProperties": False}

remove_floating_ip = {
    "type": "object",
    "properties": {"removeFloatingIp": {
        "type": "object", "properties": {"address": _ip},
        "required": ["address"], "additionalProperties": False}},
    "required": ["removeFloatingIp"], "additionalProperties": False}

pools_index_query = types.query()

UPSTREAM = {
    "create": "floating_ips.create",
    "add_floating_ip": "floating_ips.add_floating_ip",
    "remove_floating_ip": "floating_ips.remove_floating_ip",
    "pools_index_query": "floating_ip_pools.index_query",
}
