"""Query strings of GET /servers/{server_id}/os-server-password (Nova's
server_password schemas): anything before 2.102, nothing from it."""

index_query = {"type": "object", "properties": {},
               "additionalProperties": True}
index_query_v2102 = {"type": "object", "properties": {},
                     "additionalProperties": False}

UPSTREAM = {
    "index_query": "server_password.index_query",
    "index_query_v2102": "server_password.index_query_v2102",
}
