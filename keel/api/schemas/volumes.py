"""Bodies and query strings of Nova's os-volumes and os-snapshots proxies."""
from keel.api.schemas import parameter_types as types

_paging = types.multi_params(types.non_negative_integer)
_string = {"type": "string"}

create = {
    "type": "object",
    "properties": {"volume": {
        "type": "object",
        "properties": {
            "volume_type": _string, "metadata": {"type": "object"},
            "snapshot_id": _string,
            "size": {"type": ["integer", "string"], "pattern": "^[0-9]+$",
                     "minimum": 1},
            "availability_zone": _string, "display_name": _string,
            "display_description": _string},
        "required": ["size"], "additionalProperties": False}},
    "required": ["volume"], "additionalProperties": False}

_BOOLS = [True, "True", "TRUE", "true", "1", "ON", "On", "on", "YES", "Yes",
          "yes", False, "False", "FALSE", "false", "0", "OFF", "Off", "off",
          "NO", "No", "no"]

snapshot_create = {
    "type": "object",
    "properties": {"snapshot": {
        "type": "object",
        "properties": {
            "volume_id": _string,
            "force": {"type": ["boolean", "string"], "enum": _BOOLS},
            "display_name": _string, "display_description": _string},
        "required": ["volume_id"], "additionalProperties": False}},
    "required": ["snapshot"], "additionalProperties": False}

index_query = types.query({"limit": _paging, "offset": _paging})
detail_query = types.query({"limit": _paging, "offset": _paging})
show_query = types.query()
snapshot_index_query = types.query({"limit": _paging, "offset": _paging})
snapshot_detail_query = types.query({"limit": _paging, "offset": _paging})
snapshot_show_query = types.query()

UPSTREAM = {
    "create": "volumes.create",
    "index_query": "volumes.index_query",
    "detail_query": "volumes.detail_query",
    "show_query": "volumes.show_query",
    "snapshot_create": "snapshots.create",
    "snapshot_index_query": "snapshots.index_query",
    "snapshot_detail_query": "snapshots.detail_query",
    "snapshot_show_query": "snapshots.show_query",
}
