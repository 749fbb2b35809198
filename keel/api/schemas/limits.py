"""GET /limits query string (``tenant_id`` for admins)."""
from keel.api.schemas import parameter_types as types

_tenant = {"tenant_id": types.multi_params(types.any_string)}
index_query = types.query(_tenant)
index_query_v275 = types.query(_tenant, additional=False)

UPSTREAM = {"index_query": "limits.index_query",
            "index_query_v275": "limits.index_query_v275"}
