"""Bodies and query strings of os-migrateLive (Nova's migrate_server schemas) and of the
server migrations' force_complete action."""
from keel.api.schemas import parameter_types as types

_BOOLS = [True, "True", "TRUE", "true", "1", "ON", "On", "on", "YES", "Yes",
          "yes", False, "False", "FALSE", "false", "0", "OFF", "Off", "off",
          "NO", "No", "no"]
_boolean = {"type": ["boolean", "string"], "enum": _BOOLS}
_block_migration = {"type": ["boolean", "string"], "enum": _BOOLS + ["auto"]}
_host = {"type": ["string", "null"], "minLength": 1, "maxLength": 255,
         "pattern": "^[a-zA-Z0-9-._]*$"}


def _live(properties, required):
    return {"type": "object",
            "properties": {"os-migrateLive": {
                "type": "object", "properties": properties,
                "required": required, "additionalProperties": False}},
            "required": ["os-migrateLive"], "additionalProperties": False}


migrate_live = _live({"block_migration": _boolean,
                      "disk_over_commit": _boolean, "host": _host},
                     ["block_migration", "disk_over_commit", "host"])
migrate_live_v2_25 = _live({"block_migration": _block_migration,
                            "host": _host}, ["block_migration", "host"])
migrate_live_v2_30 = _live({"block_migration": _block_migration,
                            "host": _host, "force": _boolean},
                           ["block_migration", "host"])
migrate_live_v2_68 = migrate_live_v2_25

force_complete = {"type": "object",
                  "properties": {"force_complete": {"type": "null"}},
                  "required": ["force_complete"],
                  "additionalProperties": False}

index_query = types.query()
index_query_v2102 = types.query(additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)
