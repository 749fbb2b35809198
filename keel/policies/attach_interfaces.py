"""os-attach-interfaces rules (Nova's names and defaults)."""
from keel.policies import base

INTERFACES = "os_compute_api:os-attach-interfaces:%s"
_PATH = "/servers/{server_id}/os-interface"
R, M = base.PROJECT_READER_OR_ADMIN, base.PROJECT_MEMBER_OR_ADMIN

rules = [
    base.rule(INTERFACES % "list", R, "List port interfaces attached to a "
              "server", [("GET", _PATH)]),
    base.rule(INTERFACES % "show", R, "Show details of a port interface "
              "attached to a server", [("GET", _PATH + "/{port_id}")]),
    base.rule(INTERFACES % "create", M, "Attach an interface to a server",
              [("POST", _PATH)]),
    base.rule(INTERFACES % "delete", M, "Detach an interface from a server",
              [("DELETE", _PATH + "/{port_id}")]),
]


def list_rules():
    return rules
