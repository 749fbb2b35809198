"""os-quota-sets bodies and query strings: 2.36 drops nova-network's
resources, 2.57 the injected-file ones; 2.75 refuses unknown parameters."""
from keel.api.schemas import flavors
from keel.api.schemas import parameter_types as types

LIMIT = {"type": ["integer", "string"], "pattern": "^-?[0-9]+$",
         "minimum": -1, "maximum": 0x7FFFFFFF}

BASE = ["instances", "cores", "ram", "metadata_items", "key_pairs",
        "server_groups", "server_group_members"]
INJECTED = ["injected_files", "injected_file_content_bytes",
            "injected_file_path_bytes"]
NETWORK = ["fixed_ips", "floating_ips", "security_groups",
           "security_group_rules"]


def body(root, names, force=True):
    props = {name: LIMIT for name in names}
    if force:
        props["force"] = {"type": ["boolean", "string"],
                          "enum": flavors.BOOLEANS}
    return {"type": "object",
            "properties": {root: {"type": "object", "properties": props,
                                  "additionalProperties": False}},
            "required": [root], "additionalProperties": False}


update = body("quota_set", BASE + INJECTED + NETWORK)
update_v236 = body("quota_set", BASE + INJECTED)
update_v257 = body("quota_set", BASE)

_user = {"user_id": types.multi_params(types.any_string)}
show_query = types.query(_user)
show_query_v275 = types.query(_user, additional=False)
update_query = types.query(_user)
update_query_v275 = types.query(_user, additional=False)
delete_query = types.query(_user)
delete_query_v275 = types.query(_user, additional=False)
detail_query = types.query(_user)
detail_query_v275 = types.query(_user, additional=False)
defaults_query = types.query()

UPSTREAM = {
    "update": "quota_sets.update",
    "update_v236": "quota_sets.update_v236",
    "update_v257": "quota_sets.update_v257",
    "show_query": "quota_sets.show_query",
    "show_query_v275": "quota_sets.show_query_v275",
    "update_query": "quota_sets.update_query",
    "update_query_v275": "quota_sets.update_query_v275",
    "delete_query": "quota_sets.delete_query",
    "delete_query_v275": "quota_sets.delete_query_v275",
    "detail_query": "quota_sets.detail_query",
    "detail_query_v275": "quota_sets.detail_query_v275",
    "defaults_query": "quota_sets.defaults_query",
}
