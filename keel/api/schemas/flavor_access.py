"""Flavor access: the add/remove actions and the list's query string."""
from keel.api.schemas import parameter_types as types


def _action(name):
    return {
        "type": "object",
        "properties": {name: {
            "type": "object",
            "properties": {"tenant": {"type": "string", "minLength": 1,
                                      "maxLength": 255}},
            "required": ["tenant"], "additionalProperties": False}},
        "required": [name], "additionalProperties": False,
    }


add_tenant_access = _action("addTenantAccess")
remove_tenant_access = _action("removeTenantAccess")
index_query = types.query()
index_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "add_tenant_access": "flavor_access.add_tenant_access",
    "remove_tenant_access": "flavor_access.remove_tenant_access",
    "index_query": "flavor_access.index_query",
    "index_query_v2102": "flavor_access.index_query_v2102",
}
