"""os-migrations query strings: filters; paging and changes-since from
2.59 (unknown parameters refused), changes-before from 2.66, user_id and
project_id from 2.80."""
from keel.api.schemas import parameter_types as types

_str = types.multi_params(types.any_string)
_FILTERS = {name: _str for name in ("hidden", "host", "instance_uuid",
                                    "migration_type", "source_compute",
                                    "status")}


def _one(item):
    return {"type": "array", "items": item, "maxItems": 1}


_time = _one({"type": "string", "format": "date-time"})
_PAGING = {"limit": _one(types.non_negative_integer),
           "marker": _one(types.any_string), "changes-since": _time}

index_query_v20 = types.query(_FILTERS)
index_query_v259 = types.query(dict(_FILTERS, **_PAGING), additional=False)
index_query_v266 = types.query(dict(_FILTERS, **_PAGING,
                                    **{"changes-before": _time}),
                               additional=False)
index_query_v280 = types.query(dict(
    _FILTERS, **_PAGING, **{"changes-before": _time},
    user_id=_one(types.any_string), project_id=_one(types.any_string)),
    additional=False)

UPSTREAM = {
    "index_query_v20": "migrations.index_query_v20",
    "index_query_v259": "migrations.index_query_v259",
    "index_query_v266": "migrations.index_query_v266",
    "index_query_v280": "migrations.index_query_v280",
}
