"""os-simple-tenant-usage query strings: period and ``detailed``; paging
from 2.40; unknown parameters refused from 2.75."""
from keel.api.schemas import parameter_types as types

_str = types.multi_params(types.any_string)
_PERIOD = {"start": _str, "end": _str}
_PAGING = {"limit": types.multi_params(types.non_negative_integer),
           "marker": _str}

index_query = types.query(dict(_PERIOD, detailed=_str))
index_query_v240 = types.query(dict(_PERIOD, detailed=_str, **_PAGING))
index_query_v275 = types.query(dict(_PERIOD, detailed=_str, **_PAGING),
                               additional=False)
show_query = types.query(_PERIOD)
show_query_v240 = types.query(dict(_PERIOD, **_PAGING))
show_query_v275 = types.query(dict(_PERIOD, **_PAGING), additional=False)

UPSTREAM = {
    "index_query": "simple_tenant_usage.index_query",
    "index_query_v240": "simple_tenant_usage.index_query_v240",
    "index_query_v275": "simple_tenant_usage.index_query_v275",
    "show_query": "simple_tenant_usage.show_query",
    "show_query_v240": "simple_tenant_usage.show_query_v240",
    "show_query_v275": "simple_tenant_usage.show_query_v275",
}
