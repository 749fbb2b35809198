"""Nova's os-server-shares rules (2.97): project readers list and show the
shares attached to a server, project members attach and detach them."""
from keel.policies import base

POLICY_ROOT = "os_compute_api:os-server-shares:%s"

_PATH = "/servers/{server_id}/shares"
_ONE = "/servers/{server_id}/shares/{share_id}"

rules = [
    base.rule(POLICY_ROOT % "index", base.PROJECT_READER,
              "List all shares for given server", [("GET", _PATH)]),
    base.rule(POLICY_ROOT % "create", base.PROJECT_MEMBER,
              "Attach a share to the specified server", [("POST", _PATH)]),
    base.rule(POLICY_ROOT % "show", base.PROJECT_READER,
              "Show a share configured for the specified server",
              [("GET", _ONE)]),
    base.rule(POLICY_ROOT % "delete", base.PROJECT_MEMBER,
              "Detach a share to the specified server", [("DELETE", _ONE)]),
]


def list_rules():
    return rules
