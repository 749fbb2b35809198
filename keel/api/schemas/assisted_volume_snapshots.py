"""os-assisted-volume-snapshots: the create body and delete's query."""
from keel.api.schemas import parameter_types as types

_NON_EMPTY = {"type": "string", "minLength": 1}

create = {
    "type": "object",
    "properties": {
        "snapshot": {
            "type": "object",
            "properties": {
                "volume_id": _NON_EMPTY,
                "create_info": {
                    "type": "object",
                    "properties": {
                        "snapshot_id": _NON_EMPTY,
                        "type": {"type": "string", "enum": ["qcow2"]},
                        "new_file": _NON_EMPTY,
                        "id": _NON_EMPTY,
                    },
                    "required": ["snapshot_id", "type", "new_file"],
                    "additionalProperties": False,
                },
            },
            "required": ["volume_id", "create_info"],
            "additionalProperties": False,
        },
    },
    "required": ["snapshot"],
    "additionalProperties": False,
}

_DELETE_INFO = {"delete_info": types.multi_params({"type": "string"})}
delete_query = types.query(_DELETE_INFO)
delete_query_v275 = types.query(_DELETE_INFO, additional=False)

UPSTREAM = {
    "create": "assisted_volume_snapshots.create",
    "delete_query": "assisted_volume_snapshots.delete_query",
    "delete_query_v275": "assisted_volume_snapshots.delete_query_v275",
}
