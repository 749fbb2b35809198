"""os-hypervisors query strings: paging from 2.33; from 2.53 the hostname
pattern and ``with_servers`` are query parameters and unknown ones are
refused."""
from keel.api.schemas import parameter_types as types
from keel.api.schemas import services

_limit = {"type": "array", "items": types.non_negative_integer}
_marker = {"type": "array", "items": types.any_string}


def _one(item):
    return {"type": "array", "items": item, "maxItems": 1}


_with_servers = _one(services.boolean)

index_query = types.query()
index_query_v233 = types.query({"limit": _limit, "marker": _marker})
index_query_v253 = types.query({
    "hypervisor_hostname_pattern": _one({
        "type": "string", "minLength": 1, "maxLength": 255,
        "pattern": "^[a-zA-Z0-9-._]*$"}),
    "limit": _one(types.non_negative_integer),
    "marker": _one(types.any_string),
    "with_servers": _with_servers,
}, additional=False)

show_query = types.query()
show_query_v253 = types.query({"with_servers": _with_servers},
                              additional=False)

UPSTREAM = {
    "index_query": "hypervisors.index_query",
    "index_query_v233": "hypervisors.index_query_v233",
    "index_query_v253": "hypervisors.index_query_v253",
    "show_query": "hypervisors.show_query",
    "show_query_v253": "hypervisors.show_query_v253",
}
