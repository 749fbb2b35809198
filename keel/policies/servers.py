"""Servers: lists, show, create, update, delete, lifecycle actions, and the
sub-resources read through the API layer (metadata, tags, ips, topology,
instance actions)."""
from keel.policies import base

SERVERS = "os_compute_api:servers:%s"
META = "os_compute_api:server-metadata:%s"
TAGS = "os_compute_api:os-server-tags:%s"
IPS = "os_compute_api:ips:%s"
ACTIONS = "os_compute_api:os-instance-actions:%s"
TOPOLOGY = "compute:server:topology:%s"
EXTENDED_ATTRS = "os_compute_api:os-extended-server-attributes"
REQUESTED_DESTINATION = "compute:servers:create:requested_destination"
CROSS_CELL_RESIZE = "compute:servers:resize:cross_cell"
ATTACH_EXTERNAL_NETWORK = "network:attach_external_network"

_S = "/servers/{server_id}"
_ACTION = _S + "/action (%s)"
R, M, A = base.PROJECT_READER_OR_ADMIN, base.PROJECT_MEMBER_OR_ADMIN, \
    base.ADMIN

_LISTS = [("GET", "/servers"), ("GET", "/servers/detail")]
_SHOWN = [("GET", _S), ("GET", "/servers/detail"), ("PUT", _S),
          ("POST", _ACTION % "rebuild")]

rules = [
    base.rule(SERVERS % "index", R, "List all servers",
              [("GET", "/servers")]),
    base.rule(SERVERS % "detail", R, "List all servers with detailed "
              "information", [("GET", "/servers/detail")]),
    base.rule(SERVERS % "index:get_all_tenants", A, "List all servers for "
              "all projects", [("GET", "/servers")]),
    base.rule(SERVERS % "detail:get_all_tenants", A, "List all servers "
              "with detailed information for all projects",
              [("GET", "/servers/detail")]),
    base.rule(SERVERS % "allow_all_filters", A, "Allow all filters when "
              "listing servers", _LISTS),
    base.rule(SERVERS % "show", R, "Show a server", [("GET", _S)]),
    base.rule(SERVERS % "show:flavor-extra-specs", R, "Show the flavor's "
              "extra specs in server responses (2.47+)", _SHOWN),
    base.rule(SERVERS % "show:host_status", A, "Show host_status in server "
              "responses", _SHOWN),
    base.rule(SERVERS % "show:host_status:unknown-only", A, "Show "
              "host_status only when it is UNKNOWN", _SHOWN),
    base.rule(SERVERS % "create", M, "Create a server",
              [("POST", "/servers")]),
    base.rule(SERVERS % "create:forced_host", A, "Create a server on a "
              "forced host, bypassing the scheduler", [("POST", "/servers")]),
    base.rule(REQUESTED_DESTINATION, A, "Create a server on a requested "
              "host validated by the scheduler", [("POST", "/servers")]),
    base.rule(SERVERS % "create:attach_volume", M, "Create a server with a "
              "volume attached", [("POST", "/servers")]),
    base.rule(SERVERS % "create:attach_network", M, "Create a server with a "
              "network attached", [("POST", "/servers")]),
    base.rule(SERVERS % "create:trusted_certs", M, "Create a server with "
              "trusted image certificate IDs", [("POST", "/servers")]),
    base.rule(SERVERS % "create:zero_disk_flavor", A, "Create a server from "
              "an image with a flavor of 0 disk", [("POST", "/servers")]),
    base.rule(ATTACH_EXTERNAL_NETWORK, A, "Attach an unshared external "
              "network to a server",
              [("POST", "/servers"), ("POST", _S + "/os-interface")]),
    base.rule(SERVERS % "delete", M, "Delete a server", [("DELETE", _S)]),
    base.rule(SERVERS % "update", M, "Update a server", [("PUT", _S)]),
    base.rule(SERVERS % "confirm_resize", M, "Confirm a server resize",
              [("POST", _ACTION % "confirmResize")]),
    base.rule(SERVERS % "revert_resize", M, "Revert a server resize",
              [("POST", _ACTION % "revertResize")]),
    base.rule(SERVERS % "reboot", M, "Reboot a server",
              [("POST", _ACTION % "reboot")]),
    base.rule(SERVERS % "resize", M, "Resize a server",
              [("POST", _ACTION % "resize")]),
    base.rule(CROSS_CELL_RESIZE, base.RULE_NOBODY, "Resize a server across "
              "cells (disabled by default)", [("POST", _ACTION % "resize")]),
    base.rule(SERVERS % "rebuild", M, "Rebuild a server",
              [("POST", _ACTION % "rebuild")]),
    base.rule(SERVERS % "rebuild:trusted_certs", M, "Rebuild a server with "
              "trusted image certificate IDs",
              [("POST", _ACTION % "rebuild")]),
    base.rule(SERVERS % "create_image", M, "Create an image from a server",
              [("POST", _ACTION % "createImage")]),
    base.rule(SERVERS % "create_image:allow_volume_backed", M, "Create an "
              "image from a volume-backed server",
              [("POST", _ACTION % "createImage")]),
    base.rule(SERVERS % "start", M, "Start a server",
              [("POST", _ACTION % "os-start")]),
    base.rule(SERVERS % "stop", M, "Stop a server",
              [("POST", _ACTION % "os-stop")]),
    base.rule(SERVERS % "trigger_crash_dump", M, "Trigger a crash dump in "
              "a server", [("POST", _ACTION % "trigger_crash_dump")]),
    base.rule(EXTENDED_ATTRS, A, "Return the OS-EXT-SRV-ATTR:* attributes "
              "in server responses", _SHOWN),
    base.rule(META % "index", R, "List all metadata of a server",
              [("GET", _S + "/metadata")]),
    base.rule(META % "show", R, "Show one metadata item of a server",
              [("GET", _S + "/metadata/{key}")]),
    base.rule(META % "create", M, "Create metadata for a server",
              [("POST", _S + "/metadata")]),
    base.rule(META % "update_all", M, "Replace the metadata of a server",
              [("PUT", _S + "/metadata")]),
    base.rule(META % "update", M, "Update one metadata item of a server",
              [("PUT", _S + "/metadata/{key}")]),
    base.rule(META % "delete", M, "Delete one metadata item of a server",
              [("DELETE", _S + "/metadata/{key}")]),
    base.rule(TAGS % "index", R, "List all tags of a server",
              [("GET", _S + "/tags")]),
    base.rule(TAGS % "show", R, "Check a tag of a server",
              [("GET", _S + "/tags/{tag}")]),
    base.rule(TAGS % "update_all", M, "Replace all tags of a server",
              [("PUT", _S + "/tags")]),
    base.rule(TAGS % "update", M, "Add one tag to a server",
              [("PUT", _S + "/tags/{tag}")]),
    base.rule(TAGS % "delete_all", M, "Delete all tags of a server",
              [("DELETE", _S + "/tags")]),
    base.rule(TAGS % "delete", M, "Delete one tag of a server",
              [("DELETE", _S + "/tags/{tag}")]),
    base.rule(IPS % "index", R, "List the IP addresses of a server",
              [("GET", _S + "/ips")]),
    base.rule(IPS % "show", R, "List the IP addresses of one network of "
              "a server", [("GET", _S + "/ips/{network_label}")]),
    base.rule(TOPOLOGY % "index", R, "Show the NUMA topology of a server",
              [("GET", _S + "/topology")]),
    base.rule(TOPOLOGY % "host:index", A, "Show the host NUMA placement of "
              "a server", [("GET", _S + "/topology")]),
    base.rule(ACTIONS % "list", R, "List the actions of a server",
              [("GET", _S + "/os-instance-actions")]),
    base.rule(ACTIONS % "show", R, "Show one action of a server",
              [("GET", _S + "/os-instance-actions/{request_id}")]),
    base.rule(ACTIONS % "events", A, "Show the events of an action",
              [("GET", _S + "/os-instance-actions/{request_id}")]),
    base.rule(ACTIONS % "events:details", A, "Show event details (host, "
              "hostId, details) of an action (2.84)",
              [("GET", _S + "/os-instance-actions/{request_id}")]),
]


def list_rules():
    return rules
