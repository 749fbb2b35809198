"""Flavor extra specs: bodies of create (many keys) and update (one key)."""
from keel.api.schemas import parameter_types as types

KEY_PATTERN = r"^[a-zA-Z0-9-_:. ]{1,255}$"
_VALUE = {"type": ["string", "number"], "maxLength": 255}

metadata = {"type": "object", "patternProperties": {KEY_PATTERN: _VALUE},
            "additionalProperties": False}
create = {"type": "object", "properties": {"extra_specs": metadata},
          "required": ["extra_specs"], "additionalProperties": False}
update = {"type": "object", "patternProperties": {KEY_PATTERN: _VALUE},
          "additionalProperties": False, "minProperties": 1,
          "maxProperties": 1}

index_query = types.query()
index_query_v2102 = types.query(additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "create": "flavors_extraspecs.create",
    "update": "flavors_extraspecs.update",
    "index_query": "flavors_extraspecs.index_query",
    "index_query_v2102": "flavors_extraspecs.index_query_v2102",
    "show_query": "flavors_extraspecs.show_query",
    "show_query_v2102": "flavors_extraspecs.show_query_v2102",
}
