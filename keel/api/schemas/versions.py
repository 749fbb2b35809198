"""Version documents take no query parameters (unknown ones are dropped)."""
from keel.api.schemas import parameter_types as types

show_query = types.query()

UPSTREAM = {"show_query": "versions.show_query"}
