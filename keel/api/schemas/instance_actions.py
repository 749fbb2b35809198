"""os-instance-actions query strings: paging and changes-since from 2.58,
changes-before from 2.66; show refuses unknown parameters from 2.102."""
from keel.api.schemas import parameter_types as types


def _one(item):
    return {"type": "array", "items": item, "maxItems": 1}


_time = _one({"type": "string", "format": "date-time"})
_PAGING = {"limit": _one(types.non_negative_integer),
           "marker": _one(types.any_string), "changes-since": _time}

index_query = types.query()
index_query_v258 = types.query(_PAGING, additional=False)
index_query_v266 = types.query(dict(_PAGING, **{"changes-before": _time}),
                               additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "index_query": "instance_actions.index_query",
    "index_query_v258": "instance_actions.index_query_v258",
    "index_query_v266": "instance_actions.index_query_v266",
    "show_query": "instance_actions.show_query",
    "show_query_v2102": "instance_actions.show_query_v2102",
}
