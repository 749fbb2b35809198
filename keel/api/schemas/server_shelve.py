"""Bodies of shelve, shelveOffload and unshelve (Nova's schemas): unshelve
takes an availability zone from 2.77, and from 2.91 a host or a null zone
(un-pin)."""
from keel.api.schemas import parameter_types


def _only(key, value):
    return {"type": "object", "properties": {key: value},
            "required": [key], "additionalProperties": False}


shelve = _only("shelve", {})            # any value, as Nova
shelve_offload = _only("shelveOffload", {})
unshelve = _only("unshelve", {})

unshelve_v277 = _only("unshelve", {
    "type": ["object", "null"],
    "properties": {"availability_zone": parameter_types.name},
    "required": ["availability_zone"],
    "additionalProperties": False,
})

unshelve_v291 = _only("unshelve", {
    "type": ["object", "null"],
    "properties": {
        "availability_zone": {"type": ["string", "null"]},
        "host": {"type": "string"},
    },
    "additionalProperties": False,
})
