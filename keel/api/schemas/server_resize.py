"""Bodies of resize, confirmResize, revertResize and migrate (Nova's
schemas; migrate takes an optional host from 2.56)."""

_null = {"type": "null"}


def _only(key, value):
    return {"type": "object", "properties": {key: value},
            "required": [key], "additionalProperties": False}


resize = _only("resize", {
    "type": "object",
    "properties": {
        "flavorRef": {"type": ["string", "integer"], "minLength": 1},
        "OS-DCF:diskConfig": {"type": "string",
                              "enum": ["AUTO", "MANUAL"]},
    },
    "required": ["flavorRef"],
    "additionalProperties": False,
})

confirm_resize = _only("confirmResize", {})   # any value, as Nova
revert_resize = _only("revertResize", {})
migrate = _only("migrate", _null)
migrate_v256 = _only("migrate", {
    "type": ["object", "null"],
    "properties": {
        "host": {"type": ["string", "null"], "minLength": 1,
                 "maxLength": 255,
                 "pattern": "^[a-zA-Z0-9-._]*$"},
    },
    "additionalProperties": False,
})
