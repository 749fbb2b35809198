"""os-server-groups bodies and query strings: ``policies`` (a one-item
list) until 2.63, ``policy`` plus ``rules`` from 2.64; the soft policies
from 2.15."""
from keel.api.schemas import parameter_types as types

_HARD = ["anti-affinity", "affinity"]
_ALL = _HARD + ["soft-anti-affinity", "soft-affinity"]


def _policies(names):
    return {"type": "array", "minItems": 1, "maxItems": 1,
            "uniqueItems": True, "additionalItems": False,
            "prefixItems": [{"type": "string", "enum": names}]}


def _create(props, required):
    return {"type": "object",
            "properties": {"server_group": {
                "type": "object", "properties": dict(props, name=types.name),
                "required": required, "additionalProperties": False}},
            "required": ["server_group"], "additionalProperties": False}


create = _create({"policies": _policies(_HARD)}, ["name", "policies"])
create_v215 = _create({"policies": _policies(_ALL)}, ["name", "policies"])
create_v264 = _create({
    "policy": {"type": "string", "enum": _ALL},
    "rules": {"type": "object", "additionalProperties": False,
              "properties": {"max_server_per_host": {
                  "type": ["integer", "string"], "pattern": "^[0-9]*$",
                  "minimum": 1, "minLength": 1}}},
}, ["name", "policy"])

_paging = {"all_projects": types.multi_params(types.any_string),
           "limit": types.multi_params(types.non_negative_integer),
           "offset": types.multi_params(types.non_negative_integer)}
index_query = types.query(_paging)
index_query_v275 = types.query(_paging, additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "create": "server_groups.create",
    "create_v215": "server_groups.create_v215",
    "create_v264": "server_groups.create_v264",
    "index_query": "server_groups.index_query",
    "index_query_v275": "server_groups.index_query_v275",
    "show_query": "server_groups.show_query",
    "show_query_v2102": "server_groups.show_query_v2102",
}
