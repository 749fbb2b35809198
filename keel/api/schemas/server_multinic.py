"""Bodies of addFixedIp and removeFixedIp (Nova's multinic schemas)."""

add_fixed_ip = {
    "type": "object",
    "properties": {
        "addFixedIp": {
            "type": "object",
            "properties": {
                "networkId": {"type": ["string", "number"],
                              "minLength": 1, "maxLength": 36},
            },
            "required": ["networkId"],
            "additionalProperties": False,
        },
    },
    "required": ["addFixedIp"],
    "additionalProperties": False,
}

remove_fixed_ip = {
    "type": "object",
    "properties": {
        "removeFixedIp": {
            "type": "object",
            "properties": {
                "address": {"type": "string",
                            "oneOf": [{"format": "ipv4"},
                                      {"format": "ipv6"}]},
            },
            "required": ["address"],
            "additionalProperties": False,
        },
    },
    "required": ["removeFixedIp"],
    "additionalProperties": False,
}

UPSTREAM = {
    "add_fixed_ip": "multinic.add_fixed_ip",
    "remove_fixed_ip": "multinic.remove_fixed_ip",
}
