"""Bodies of the rebuild server action, one per microversion range.

What changed where: description 2.19; key_name 2.54; personality gone and
user_data added 2.57; trusted image certificates 2.63; hostname 2.90
(relaxed to an FQDN in 2.94).
"""
import copy

from keel.api.schemas import parameter_types as types
from keel.api.schemas import servers as server_schemas
from keel.api.schemas import services

_BASE = {
    "name": types.name,
    "imageRef": {"type": "string", "format": "uuid"},
    "adminPass": {"type": "string"},
    "metadata": server_schemas.metadata_create["properties"]["metadata"],
    "preserve_ephemeral": services.boolean,
    "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
    "accessIPv4": {"type": "string", "format": "ipv4"},
    "accessIPv6": {"type": "string", "format": "ipv6"},
    "personality": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "properties": {"path": {"type": "string"},
                       "contents": {"type": "string", "format": "base64"}}}},
}


def _rebuild(props):
    return {
        "type": "object", "additionalProperties": False,
        "required": ["rebuild"],
        "properties": {"rebuild": {
            "type": "object", "additionalProperties": False,
            "required": ["imageRef"], "properties": props}},
    }


def _with(props, **changes):
    out = copy.deepcopy(props)
    out.update(copy.deepcopy(changes))
    return out


_P219 = _with(_BASE, description=server_schemas._description)
_P254 = _with(_P219, key_name={"oneOf": [
    {"type": "string", "minLength": 1, "maxLength": 255},
    {"type": "null"}]})
_P257 = {k: v for k, v in _with(_P254, user_data={
    "type": ["string", "null"], "format": "base64",
    "maxLength": 65535}).items() if k != "personality"}
_P263 = _with(_P257, trusted_image_certificates={
    "type": ["array", "null"], "minItems": 1, "maxItems": 50,
    "uniqueItems": True, "items": {"type": "string", "minLength": 1}})
_P290 = _with(_P263, hostname=server_schemas._hostname_v290)
_P294 = _with(_P263, hostname=server_schemas._hostname_v294)

rebuild = _rebuild(_BASE)
rebuild_v219 = _rebuild(_P219)
rebuild_v254 = _rebuild(_P254)
rebuild_v257 = _rebuild(_P257)
rebuild_v263 = _rebuild(_P263)
rebuild_v290 = _rebuild(_P290)
rebuild_v294 = _rebuild(_P294)

# (schema, min, max) in order: what the handler applies.
BY_VERSION = [
    (rebuild, "2.1", "2.18"), (rebuild_v219, "2.19", "2.53"),
    (rebuild_v254, "2.54", "2.56"), (rebuild_v257, "2.57", "2.62"),
    (rebuild_v263, "2.63", "2.89"), (rebuild_v290, "2.90", "2.93"),
    (rebuild_v294, "2.94", None),
]

UPSTREAM = {name: f"servers.{name}" for name in (
    "rebuild", "rebuild_v219", "rebuild_v254", "rebuild_v257",
    "rebuild_v263", "rebuild_v290", "rebuild_v294")}
