"""Building blocks shared by the resource schemas."""

name = {
    "type": "string", "minLength": 1, "maxLength": 255, "format": "name",
}

name_with_leading_trailing_spaces = {
    "type": "string", "minLength": 1, "maxLength": 255,
    "format": "name_with_leading_trailing_spaces",
}


def name_matching(pattern):
    """A name that is also restricted to ``pattern``."""
    return {"allOf": [name, {"type": "string", "minLength": 1,
                             "maxLength": 255, "pattern": pattern}]}


def multi_params(item_schema):
    """A query parameter: the query string gives a list of values."""
    return {"type": "array", "items": item_schema}


# "limit=10": a non-negative decimal integer, as a string or a number.
non_negative_integer = {
    "type": ["integer", "string"], "pattern": "^[0-9]*$", "minimum": 0,
    "minLength": 1,
}

any_string = {"type": "string"}


def query(properties=None, additional=True):
    return {"type": "object", "properties": dict(properties or {}),
            "additionalProperties": additional}
