"""Nova's os-admin-actions rules: resetting a server's state and injecting
its network information are for admins only."""
from keel.policies import base

POLICY_ROOT = "os_compute_api:os-admin-actions:%s"
RESET_STATE = POLICY_ROOT % "reset_state"
INJECT_NETWORK_INFO = POLICY_ROOT % "inject_network_info"

_ACTION = "/servers/{server_id}/action (%s)"

rules = [
    base.rule(RESET_STATE, base.ADMIN, "Reset the state of a given server",
              [("POST", _ACTION % "os-resetState")]),
    base.rule(INJECT_NETWORK_INFO, base.ADMIN,
              "Inject network information into the server",
              [("POST", _ACTION % "injectNetworkInfo")]),
]


def list_rules():
    return rules
