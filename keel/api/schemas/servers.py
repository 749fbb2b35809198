"""Servers: list/detail query strings per microversion range (filters, sort
keys, paging; tags from 2.26, changes-before 2.66, locked 2.73, strict from
2.75), show query, the update body (description 2.19, hostname 2.90/2.94,
pinned availability zone 2.104); and the sub-resources (metadata, tags, ips,
topology)."""
from keel.api.schemas import flavors as flavor_schemas
from keel.api.schemas import parameter_types as types

_STR = types.multi_params({"type": "string"})
_REGEX = types.multi_params({"type": "string", "format": "regex"})
_DATE = types.multi_params({"type": "string", "format": "date-time"})

# Filters matched as regular expressions / taken as given.
REGEX_FILTERS = (
    "access_ip_v4", "access_ip_v6", "auto_disk_config", "availability_zone",
    "config_drive", "created_at", "description", "display_description",
    "display_name", "flavor", "hostname", "ip", "ip6", "kernel_id",
    "key_name", "launched_at", "locked_by", "name", "node", "power_state",
    "progress", "ramdisk_id", "reservation_id", "root_device_name",
    "terminated_at")
PLAIN_FILTERS = (
    "all_tenants", "block_device_mapping", "deleted", "host", "image",
    "image_ref", "info_cache", "launch_index", "marker", "metadata",
    "pci_devices", "project_id", "security_groups", "services",
    "soft_deleted", "sort_dir", "status", "system_metadata", "task_state",
    "tenant_id", "user_id", "uuid", "vm_state")

# Sort keys users may give (2.75 dropped the ones that were ignored).
SORT_KEYS_V275 = [
    "access_ip_v4", "user_id", "ramdisk_id", "availability_zone",
    "root_device_name", "kernel_id", "access_ip_v6", "uuid", "host", "node",
    "image_ref", "created_at", "hostname", "auto_disk_config", "locked_by",
    "power_state", "display_name", "key_name", "progress",
    "instance_type_id", "project_id", "display_description", "launch_index",
    "task_state", "vm_state", "updated_at", "config_drive", "locked",
    "launched_at", "terminated_at"]
# Accepted before 2.75 but not honoured: Nova drops them from the request.
IGNORED_SORT_KEYS = [
    "architecture", "cell_name", "cleaned", "default_ephemeral_device",
    "default_swap_device", "deleted", "deleted_at", "disable_terminate",
    "ephemeral_gb", "ephemeral_key_uuid", "id", "key_data", "launched_on",
    "memory_mb", "os_type", "reservation_id", "root_gb",
    "shutdown_terminate", "user_data", "vcpus", "vm_mode"]
_SORT_KEYS = SORT_KEYS_V275 + IGNORED_SORT_KEYS


def _index(sort_keys, extra=()):
    props = {name: _REGEX for name in REGEX_FILTERS}
    props.update({name: _STR for name in PLAIN_FILTERS})
    props["changes-since"] = _DATE
    props["limit"] = types.multi_params(types.non_negative_integer)
    props["sort_key"] = types.multi_params(
        {"type": "string", "enum": sort_keys})
    for name in extra:
        props[name] = {
            "tags": _REGEX, "not-tags": _REGEX, "tags-any": _REGEX,
            "not-tags-any": _REGEX, "changes-before": _DATE,
            "locked": _STR}[name]
    return props


def _query(props, additional=True):
    schema = types.query(props, additional=additional)
    # Nova lets "_"-prefixed parameters (cache busters) through.
    schema["patternProperties"] = {"^_": _STR}
    return schema


_TAGS = ("tags", "tags-any", "not-tags", "not-tags-any")
index_query = _query(_index(_SORT_KEYS))
index_query_v226 = _query(_index(_SORT_KEYS, _TAGS))
index_query_v266 = _query(_index(_SORT_KEYS, _TAGS + ("changes-before",)))
index_query_v273 = _query(_index(_SORT_KEYS,
                                 _TAGS + ("changes-before", "locked")))
index_query_v275 = _query(_index(SORT_KEYS_V275,
                                 _TAGS + ("changes-before", "locked")),
                          additional=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)

# --- update -----------------------------------------------------------
_description = dict(flavor_schemas.description, maxLength=255)
_base_update = {
    "name": types.name,
    "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
    "accessIPv4": {"type": "string", "format": "ipv4"},
    "accessIPv6": {"type": "string", "format": "ipv6"},
}
_hostname_v290 = {"type": "string", "minLength": 2, "maxLength": 63,
                  "pattern": "^[a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+$"}
_hostname_v294 = {"type": "string", "minLength": 1, "maxLength": 255,
                  "pattern": "^[a-zA-Z0-9-._]*$"}
_pinned_az = {"oneOf": [{"type": "string", "minLength": 1,
                         "maxLength": 255}, {"type": "null"}]}


def _update(**extra):
    props = dict(_base_update, **extra)
    return {"type": "object", "additionalProperties": False,
            "required": ["server"],
            "properties": {"server": {"type": "object",
                                      "additionalProperties": False,
                                      "properties": props}}}


update = _update()
update_v219 = _update(description=_description)
update_v290 = _update(description=_description, hostname=_hostname_v290)
update_v294 = _update(description=_description, hostname=_hostname_v294)
update_v2104 = _update(description=_description, hostname=_hostname_v294,
                       pinned_availability_zone=_pinned_az)

# --- metadata ----------------------------------------------------------
_META_ITEMS = {"type": "object", "additionalProperties": False,
               "patternProperties": {"^[a-zA-Z0-9-_:. ]{1,255}$": {
                   "type": "string", "maxLength": 255}}}
metadata_create = {"type": "object", "additionalProperties": False,
                   "required": ["metadata"],
                   "properties": {"metadata": _META_ITEMS}}
metadata_update_all = metadata_create
metadata_update = {"type": "object", "additionalProperties": False,
                   "required": ["meta"],
                   "properties": {"meta": dict(_META_ITEMS, minProperties=1,
                                               maxProperties=1)}}

# --- tags ----------------------------------------------------------------
tag = {"type": "string", "minLength": 1, "maxLength": 60,
       "pattern": "^[^,/]*$"}
MAX_TAGS = 50
tags_update_all = {"type": "object", "additionalProperties": False,
                   "required": ["tags"],
                   "properties": {"tags": {"type": "array", "items": tag,
                                           "maxItems": MAX_TAGS}}}
tags_update = {"type": "null"}

UPSTREAM = {
    "index_query": "servers.index_query",
    "index_query_v226": "servers.index_query_v226",
    "index_query_v266": "servers.index_query_v266",
    "index_query_v273": "servers.index_query_v273",
    "index_query_v275": "servers.index_query_v275",
    "show_query": "servers.show_query",
    "show_query_v2102": "servers.show_query_v2102",
    "update": "servers.update",
    "update_v219": "servers.update_v219",
    "update_v290": "servers.update_v290",
    "update_v294": "servers.update_v294",
    "update_v2104": "servers.update_v2104",
    "metadata_create": "server_metadata.create",
    "metadata_update_all": "server_metadata.update_all",
    "metadata_update": "server_metadata.update",
    "tags_update_all": "server_tags.update_all",
    "tags_update": "server_tags.update",
}
