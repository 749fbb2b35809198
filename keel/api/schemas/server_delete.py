"""Bodies of the deferred-delete actions (any value under the key)."""

restore = {
    "type": "object",
    "properties": {"restore": {}},
    "required": ["restore"],
    "additionalProperties": False,
}

force_delete = {
    "type": "object",
    "properties": {"forceDelete": {}},
    "required": ["forceDelete"],
    "additionalProperties": False,
}
