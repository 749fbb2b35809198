"""os-console-auth-tokens takes no query parameters (refused from 2.99)."""
from keel.api.schemas import parameter_types as types

show_query = types.query()
show_query_v299 = types.query(additional=False)

UPSTREAM = {
    "show_query": "console_auth_tokens.show_query",
    "show_query_v299": "console_auth_tokens.show_query_v299",
}
