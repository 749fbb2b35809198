"""Bodies of the admin actions os-resetState and injectNetworkInfo (Nova's
admin_actions schemas)."""

reset_state = {
    "type": "object",
    "properties": {
        "os-resetState": {
            "type": "object",
            "properties": {
                "state": {"type": "string", "enum": ["active", "error"]},
            },
            "required": ["state"],
            "additionalProperties": False,
        },
    },
    "required": ["os-resetState"],
    "additionalProperties": False,
}

inject_network_info = {
    "type": "object",
    "properties": {"injectNetworkInfo": {}},
    "required": ["injectNetworkInfo"],
    "additionalProperties": False,
}

UPSTREAM = {
    "reset_state": "admin_actions.reset_state",
    "inject_network_info": "admin_actions.inject_network_info",
}
