"""Body of changePassword (Nova's admin_password schema)."""

change_password = {
    "type": "object",
    "properties": {
        "changePassword": {
            "type": "object",
            "properties": {"adminPass": {"type": "string"}},
            "required": ["adminPass"],
            "additionalProperties": False,
        },
    },
    "required": ["changePassword"],
    "additionalProperties": False,
}

UPSTREAM = {"change_password": "admin_password.change_password"}
