"""POST /servers bodies, one per microversion range.

What changed where: description 2.19; network and device tags 2.32 (device
tags dropped in 2.33, back in 2.42); ``networks`` required and ``auto`` /
``none`` 2.37; server tags 2.52; personality gone 2.57; trusted image
certificates 2.63; BDM volume_type 2.67; host and hypervisor_hostname 2.74;
hostname 2.90 (relaxed to an FQDN in 2.94).
"""
import copy

from keel.api.schemas import parameter_types as types
from keel.api.schemas import servers as server_schemas
from keel.api.schemas import services

_bool = services.boolean
_uuid = {"type": "string", "format": "uuid"}
_tag = server_schemas.tag
_ip = {"type": "string", "oneOf": [{"format": "ipv4"}, {"format": "ipv6"}]}
_count = {"type": ["integer", "string"], "pattern": "^[0-9]*$",
          "minimum": 1, "minLength": 1}
_host_like = {"type": "string", "minLength": 1, "maxLength": 255,
              "pattern": "^[a-zA-Z0-9-._]*$"}
_volume_size = {"type": ["integer", "string"], "pattern": "^[0-9]+$",
                "minimum": 1, "maximum": 0x7FFFFFFF}
_device_name = {"type": "string", "minLength": 1, "maxLength": 255,
                "pattern": "^[a-zA-Z0-9._/-]*$"}
_str255 = {"type": "string", "maxLength": 255}

_legacy_bdm = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "virtual_name": _str255,
        "volume_id": _uuid,
        "snapshot_id": _uuid,
        "volume_size": _volume_size,
        "device_name": _device_name,
        "delete_on_termination": _bool,
        "no_device": {},
        "connection_info": {"type": "string", "maxLength": 16777215},
    },
}
_bdm_v2 = copy.deepcopy(_legacy_bdm)
_bdm_v2["properties"].update({
    "source_type": {"type": "string",
                    "enum": ["volume", "image", "snapshot", "blank"]},
    "uuid": {"type": "string", "minLength": 1, "maxLength": 255,
             "pattern": "^[a-zA-Z0-9._-]*$"},
    "image_id": _uuid,
    "destination_type": {"type": "string", "enum": ["local", "volume"]},
    "guest_format": _str255,
    "device_type": _str255,
    "disk_bus": _str255,
    "boot_index": {"type": ["integer", "string", "null"],
                   "pattern": "^-?[0-9]+$"},
})

_hints = {
    "type": "object", "additionalProperties": True,
    "properties": {
        "group": {"oneOf": [{"type": "array", "items": _uuid}, _uuid]},
        "different_host": {"oneOf": [_uuid,
                                     {"type": "array", "items": _uuid}]},
        "same_host": {"type": ["string", "array"], "items": _uuid},
        "query": {"type": ["string", "object"]},
        "target_cell": types.name,
        "different_cell": {"type": ["string", "array"],
                           "items": {"type": "string"}},
        "build_near_host_ip": _ip,
        "cidr": {"type": "string", "pattern": "^/[0-9a-f.:]+$"},
    },
}


def _networks(with_uuid_format=False, with_tag=False, enum=False):
    item = {"type": "object", "additionalProperties": False,
            "properties": {
                "fixed_ip": _ip,
                "port": {"type": ["string", "null"], "format": "uuid"},
                "uuid": _uuid if with_uuid_format else {"type": "string"},
            }}
    if with_tag:
        item["properties"]["tag"] = _tag
    listed = {"type": "array", "items": item}
    if not enum:
        return listed
    return {"oneOf": [listed, {"type": "string", "enum": ["none", "auto"]}]}


_BASE = {
    "name": types.name,
    "imageRef": {"oneOf": [_uuid, {"type": "string", "maxLength": 0}]},
    "flavorRef": {"type": ["string", "integer"], "minLength": 1},
    "adminPass": {"type": "string"},
    "metadata": server_schemas.metadata_create["properties"]["metadata"],
    "networks": _networks(),
    "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
    "accessIPv4": {"type": "string", "format": "ipv4"},
    "accessIPv6": {"type": "string", "format": "ipv6"},
    "personality": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "properties": {"path": {"type": "string"},
                       "contents": {"type": "string", "format": "base64"}}}},
    "availability_zone": types.name,
    "block_device_mapping": {"type": "array", "items": _legacy_bdm},
    "block_device_mapping_v2": {"type": "array", "items": _bdm_v2},
    "config_drive": _bool,
    "key_name": types.name,
    "min_count": _count,
    "max_count": _count,
    "return_reservation_id": _bool,
    "security_groups": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "properties": {"name": types.name}}},
    "user_data": {"type": "string", "format": "base64", "maxLength": 65535},
}


def _create(props, required=("name", "flavorRef")):
    return {
        "type": "object", "additionalProperties": False,
        "required": ["server"],
        "properties": {
            "server": {"type": "object", "additionalProperties": False,
                       "required": list(required), "properties": props},
            "os:scheduler_hints": _hints,
            "OS-SCH-HNT:scheduler_hints": _hints,
        },
    }


def _with(props, **changes):
    out = copy.deepcopy(props)
    out.update(copy.deepcopy(changes))
    return out


def _bdm_props(props, **extra):
    out = copy.deepcopy(props)
    out["block_device_mapping_v2"]["items"]["properties"].update(extra)
    return out


_P21 = _BASE
_P219 = _with(_P21, description=server_schemas._description)
_P232 = _bdm_props(_with(_P219, networks=_networks(with_tag=True)),
                   tag=_tag)
_P233 = _with(_P219, networks=_networks(with_tag=True))
_P237 = _with(_P219, networks=_networks(with_uuid_format=True, enum=True))
_P242 = _bdm_props(_with(_P219, networks=_networks(
    with_uuid_format=True, with_tag=True, enum=True)), tag=_tag)
_P252 = _with(_P242, tags={"type": "array", "items": _tag,
                           "maxItems": server_schemas.MAX_TAGS})
_P257 = {k: v for k, v in _P252.items() if k != "personality"}
_P263 = _with(_P257, trusted_image_certificates={
    "type": ["array", "null"], "minItems": 1, "maxItems": 50,
    "uniqueItems": True, "items": {"type": "string", "minLength": 1}})
_P267 = _bdm_props(_P263, volume_type={
    "type": ["string", "null"], "minLength": 0, "maxLength": 255})
_P274 = _with(_P267, host=_host_like, hypervisor_hostname=_host_like)
_P290 = _with(_P274, hostname=server_schemas._hostname_v290)
_P294 = _with(_P274, hostname=server_schemas._hostname_v294)

_NETS = ("name", "flavorRef", "networks")
create = _create(_P21)
create_v219 = _create(_P219)
create_v232 = _create(_P232)
create_v233 = _create(_P233)
create_v237 = _create(_P237, _NETS)
create_v242 = _create(_P242, _NETS)
create_v252 = _create(_P252, _NETS)
create_v257 = _create(_P257, _NETS)
create_v263 = _create(_P263, _NETS)
create_v267 = _create(_P267, _NETS)
create_v274 = _create(_P274, _NETS)
create_v290 = _create(_P290, _NETS)
create_v294 = _create(_P294, _NETS)

# (schema, min, max) in order: what the handler applies.
BY_VERSION = [
    (create, "2.1", "2.18"), (create_v219, "2.19", "2.31"),
    (create_v232, "2.32", "2.32"), (create_v233, "2.33", "2.36"),
    (create_v237, "2.37", "2.41"), (create_v242, "2.42", "2.51"),
    (create_v252, "2.52", "2.56"), (create_v257, "2.57", "2.62"),
    (create_v263, "2.63", "2.66"), (create_v267, "2.67", "2.73"),
    (create_v274, "2.74", "2.89"), (create_v290, "2.90", "2.93"),
    (create_v294, "2.94", None),
]

UPSTREAM = {name: f"servers.{name}" for name in (
    "create", "create_v219", "create_v232", "create_v233", "create_v237",
    "create_v242", "create_v252", "create_v257", "create_v263",
    "create_v267", "create_v274", "create_v290", "create_v294")}
