"""os-keypairs request bodies and query strings, per microversion.

2.2 adds ``type``, 2.10 ``user_id`` (admins acting for another user), 2.92
allows ``@`` and ``.`` in names and requires ``public_key`` (no more
server-side generation). Query strings gain ``user_id`` at 2.10 and paging
at 2.35; from 2.75 unknown query parameters are refused.
"""
import copy

from keel.api.schemas import parameter_types as types

_NAME_PATTERN = r"^[_\- a-zA-Z0-9]+$"
_NAME_PATTERN_292 = r"^[_\-\@\. a-zA-Z0-9]+$"


def _create(name, extra=None, required=("name",)):
    props = {"name": name, "public_key": types.any_string}
    props.update(extra or {})
    return {
        "type": "object",
        "properties": {"keypair": {
            "type": "object", "properties": props,
            "required": list(required), "additionalProperties": False}},
        "required": ["keypair"],
        "additionalProperties": False,
    }


_TYPE = {"type": {"type": "string", "enum": ["ssh", "x509"]}}
_USER = {"user_id": types.any_string}

create = _create(types.name_matching(_NAME_PATTERN))
create_v22 = _create(types.name_matching(_NAME_PATTERN), _TYPE)
create_v210 = _create(types.name_matching(_NAME_PATTERN),
                      dict(_TYPE, **_USER))
create_v292 = _create(types.name_matching(_NAME_PATTERN_292),
                      dict(_TYPE, **_USER), required=("name", "public_key"))

_user_param = {"user_id": types.multi_params(types.any_string)}
_paging = {"limit": types.multi_params(types.non_negative_integer),
           "marker": types.multi_params(types.any_string)}

index_query = types.query()
index_query_v210 = types.query(_user_param)
index_query_v235 = types.query(dict(_user_param, **_paging))
index_query_v275 = types.query(dict(_user_param, **_paging),
                               additional=False)

show_query = types.query()
show_query_v210 = types.query(_user_param)
show_query_v275 = types.query(_user_param, additional=False)

delete_query = copy.deepcopy(show_query)
delete_query_v210 = copy.deepcopy(show_query_v210)
delete_query_v275 = copy.deepcopy(show_query_v275)

UPSTREAM = {
    "create": "keypairs.create",
    "create_v22": "keypairs.create_v22",
    "create_v210": "keypairs.create_v210",
    "create_v292": "keypairs.create_v292",
    "index_query": "keypairs.index_query_v20",
    "index_query_v210": "keypairs.index_query_v210",
    "index_query_v235": "keypairs.index_query_v235",
    "index_query_v275": "keypairs.index_query_v275",
    "show_query": "keypairs.show_query_v20",
    "show_query_v210": "keypairs.show_query_v210",
    "show_query_v275": "keypairs.show_query_v275",
    "delete_query": "keypairs.delete_query_v20",
    "delete_query_v210": "keypairs.delete_query_v210",
    "delete_query_v275": "keypairs.delete_query_v275",
}
