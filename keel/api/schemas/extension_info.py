"""/extensions takes no query parameters (refused from 2.102)."""
from keel.api.schemas import parameter_types as types

index_query = types.query()
index_query_v2102 = types.query(additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "index_query": "extension_info.index_query",
    "index_query_v2102": "extension_info.index_query_v2102",
    "show_query": "extension_info.show_query",
    "show_query_v2102": "extension_info.show_query_v2102",
}
