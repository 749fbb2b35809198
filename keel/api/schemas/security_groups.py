"""Bodies and query strings of os-security-groups, os-security-group-rules,
GET /servers/{id}/os-security-groups and the add/removeSecurityGroup
server actions (Nova's shapes)."""
from keel.api.schemas import parameter_types as types

_text = {"type": "string", "minLength": 0, "maxLength": 255}
_group = {"type": "object",
          "properties": {"name": _text, "description": _text},
          "required": ["name", "description"],
          "additionalProperties": True}


def _wrapped(key, inner):
    return {"type": "object", "properties": {key: inner},
            "required": [key], "additionalProperties": True}


create = _wrapped("security_group", _group)
update = _wrapped("security_group", _group)

create_rules = _wrapped("security_group_rule", {
    "type": "object",
    "properties": {
        "group_id": {"type": ["string", "null"], "format": "uuid"},
        "parent_group_id": {"type": "string", "format": "uuid"},
        # Checked by the handler with Nova's messages, not by the schema.
        "to_port": {}, "from_port": {}, "ip_protocol": {}, "cidr": {},
    },
    "required": ["parent_group_id"],
    "additionalProperties": True})


def _server_action(key):
    return _wrapped(key, {
        "type": "object",
        "properties": {"name": {"type": "string", "minLength": 1}},
        "required": ["name"], "additionalProperties": False})


add_security_group = _server_action("addSecurityGroup")
remove_security_group = _server_action("removeSecurityGroup")

_paging = types.multi_params(types.non_negative_integer)
index_query = types.query({"all_tenants": types.multi_params(
    types.any_string), "limit": _paging, "offset": _paging})
show_query = types.query()
index_server_query = types.query()
index_server_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "create": "security_groups.create",
    "update": "security_groups.update",
    "create_rules": "security_groups.create_rules",
    "add_security_group": "security_groups.add_security_group",
    "remove_security_group": "security_groups.remove_security_group",
    "index_query": "security_groups.index_query",
    "show_query": "security_groups.show_query",
    "index_server_query": "security_groups.index_server_query",
    "index_server_query_v2102": "security_groups.index_server_query_v2102",
}
