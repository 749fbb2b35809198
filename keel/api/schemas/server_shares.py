"""Bodies and query strings of /servers/{server_id}/shares (2.97, Nova's
server_shares schemas)."""

_TAG = {"type": "string", "minLength": 1, "maxLength": 255,
        "pattern": "^[a-zA-Z0-9-]*$"}

create = {
    "title": "Server shares",
    "type": "object",
    "properties": {
        "share": {
            "type": "object",
            "properties": {
                "share_id": {"type": "string", "format": "uuid"},
                "tag": _TAG,
            },
            "required": ["share_id"],
            "additionalProperties": False,
        },
    },
    "required": ["share"],
    "additionalProperties": False,
}

index_query = {"type": "object", "properties": {},
               "additionalProperties": False}
show_query = {"type": "object", "properties": {},
              "additionalProperties": False}

UPSTREAM = {
    "create": "server_shares.create",
    "index_query": "server_shares.index_query",
    "show_query": "server_shares.show_query",
}
