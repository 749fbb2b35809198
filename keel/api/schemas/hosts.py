"""os-hosts (2.1 - 2.42): the list's zone filter and the PUT body."""
from keel.api.schemas import parameter_types as types

_ENABLE_DISABLE = {"type": "string",
                   "enum": ["enable", "disable", "Enable", "Disable",
                            "ENABLE", "DISABLE"]}

index_query = types.query({"zone": types.multi_params({"type": "string"})})

update = {
    "type": "object",
    "properties": {"status": _ENABLE_DISABLE,
                   "maintenance_mode": _ENABLE_DISABLE},
    "anyOf": [{"required": ["status"]}, {"required": ["maintenance_mode"]}],
    "additionalProperties": False,
}

UPSTREAM = {
    "index_query": "hosts.index_query",
    "update": "hosts.update",
}
