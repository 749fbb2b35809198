"""os-instance_usage_audit_log takes no query parameters (refused from
2.102)."""
from keel.api.schemas import parameter_types as types

index_query = types.query()
index_query_v2102 = types.query(additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "index_query": "instance_usage_audit_log.index_query",
    "index_query_v2102": "instance_usage_audit_log.index_query_v2102",
    "show_query": "instance_usage_audit_log.show_query",
    "show_query_v2102": "instance_usage_audit_log.show_query_v2102",
}
