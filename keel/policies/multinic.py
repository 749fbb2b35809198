"""Nova's os-multinic rules (deprecated proxy APIs): project members add
and remove fixed IPs of their servers."""
from keel.policies import base

POLICY_ROOT = "os_compute_api:os-multinic:%s"
ADD = POLICY_ROOT % "add"
REMOVE = POLICY_ROOT % "remove"

_ACTION = "/servers/{server_id}/action (%s)"

rules = [
    base.rule(ADD, base.PROJECT_MEMBER_OR_ADMIN,
              "Add a fixed IP address to a server. This API is a proxy call "
              "to the Network service. This is deprecated.",
              [("POST", _ACTION % "addFixedIp")]),
    base.rule(REMOVE, base.PROJECT_MEMBER_OR_ADMIN,
              "Remove a fixed IP address from a server. This API is a proxy "
              "call to the Network service. This is deprecated.",
              [("POST", _ACTION % "removeFixedIp")]),
]


def list_rules():
    return rules
