"""/flavors request bodies and query strings, per microversion.

2.55 adds ``description`` (create, and PUT to change it), 2.75 refuses
unknown query parameters, 2.102 adds the ``name`` filter, drops
``rxtx_factor`` and refuses unknown parameters on every query.
"""

from keel.api.schemas import parameter_types as types


def _printable_ranges():
    # Every code point of the BMP whose Unicode category is not "C*"
    # (control, format, unassigned, private use, surrogate) as a regex
    # character class body, the way Nova spells "printable".
    import unicodedata
    ranges, start, prev = [], None, None
    for code in range(0xFFFF):
        if unicodedata.category(chr(code)).startswith("C"):
            continue
        if start is not None and code == prev + 1:
            prev = code
            continue
        if start is not None:
            ranges.append((start, prev))
        start = prev = code
    ranges.append((start, prev))

    def esc(code):
        ch = chr(code)
        return "\\" + ch if ch in "\\]^-[ ~" else ch
    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}"
                   for a, b in ranges)


description = {
    "type": ["string", "null"], "minLength": 0, "maxLength": 65535,
    "pattern": "^[" + _printable_ranges() + "]*$",
}

_int_max = 0x7FFFFFFF


def _int(minimum):
    return {"type": ["integer", "string"], "pattern": "^[0-9]+$",
            "minimum": minimum, "maximum": _int_max}


BOOLEANS = [True, "True", "TRUE", "true", "1", "ON", "On", "on", "YES",
             "Yes", "yes", False, "False", "FALSE", "false", "0", "OFF",
             "Off", "off", "NO", "No", "no"]


def _create(name, with_description=False, with_rxtx=True):
    props = {
        "name": name,
        "id": {"type": ["string", "number", "null"], "minLength": 1,
               "maxLength": 255, "pattern": r"^(?! )[a-zA-Z0-9. _-]+(?<! )$"},
        "ram": _int(1), "vcpus": _int(1), "disk": _int(0),
        "OS-FLV-EXT-DATA:ephemeral": _int(0), "swap": _int(0),
        "os-flavor-access:is_public": {"type": ["boolean", "string"],
                                       "enum": BOOLEANS},
    }
    if with_rxtx:
        props["rxtx_factor"] = {
            "type": ["number", "string"], "pattern": r"^[0-9]+(\.[0-9]+)?$",
            "exclusiveMinimum": 0, "maximum": 3.40282e+38}
    if with_description:
        props["description"] = description
    return {
        "type": "object",
        "properties": {"flavor": {
            "type": "object", "properties": props,
            "required": ["name", "ram", "vcpus", "disk"],
            "additionalProperties": False}},
        "required": ["flavor"], "additionalProperties": False,
    }


create_v20 = _create(types.name_with_leading_trailing_spaces)
create = _create(types.name)
create_v255 = _create(types.name, with_description=True)
create_v2102 = _create(types.name, with_description=True, with_rxtx=False)

update = {
    "type": "object",
    "properties": {"flavor": {
        "type": "object", "properties": {"description": description},
        "required": ["description"], "additionalProperties": False}},
    "required": ["flavor"], "additionalProperties": False,
}

SORT_KEYS = ["created_at", "description", "disabled", "ephemeral_gb",
             "flavorid", "id", "is_public", "memory_mb", "name", "root_gb",
             "rxtx_factor", "swap", "updated_at", "vcpu_weight", "vcpus"]
SORT_KEYS_V2102 = [k for k in SORT_KEYS if k != "rxtx_factor"]


def _index(sort_keys, extra=None):
    strings = types.multi_params(types.any_string)
    props = {
        "sort_key": types.multi_params({"type": "string",
                                        "enum": list(sort_keys)}),
        "sort_dir": types.multi_params({"type": "string",
                                        "enum": ["asc", "desc"]}),
        "limit": types.multi_params(types.non_negative_integer),
        "marker": strings, "is_public": strings, "minRam": strings,
        "minDisk": strings,
    }
    props.update(extra or {})
    return props


index_query = types.query(_index(SORT_KEYS))
index_query_v275 = types.query(_index(SORT_KEYS), additional=False)
index_query_v2102 = types.query(
    _index(SORT_KEYS_V2102,
           {"name": types.multi_params(types.any_string)}),
    additional=False)

show_query = types.query()
show_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "create_v20": "flavors.create_v20",
    "create": "flavors.create",
    "create_v255": "flavors.create_v255",
    "create_v2102": "flavors.create_v2102",
    "update": "flavors.update",
    "index_query": "flavors.index_query",
    "index_query_v275": "flavors.index_query_v275",
    "index_query_v2102": "flavors.index_query_v2102",
    "show_query": "flavors.show_query",
    "show_query_v2102": "flavors.show_query_v2102",
}
