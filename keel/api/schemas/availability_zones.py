"""os-availability-zone takes no query parameters (refused from 2.102)."""
from keel.api.schemas import parameter_types as types

index_query = types.query()
index_query_v2102 = types.query(additional=False)
detail_query = types.query()
detail_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "index_query": "availability_zone.index_query",
    "index_query_v2102": "availability_zone.index_query_v2102",
    "detail_query": "availability_zone.detail_query",
    "detail_query_v2102": "availability_zone.detail_query_v2102",
}
