"""Shelve rules (Nova's os-shelve policies and defaults): members shelve
and unshelve their servers; offloading and naming the host of an unshelve
(2.91) are for admins."""
from keel.policies import base

POLICY_ROOT = "os_compute_api:os-shelve:%s"
SHELVE = POLICY_ROOT % "shelve"
SHELVE_OFFLOAD = POLICY_ROOT % "shelve_offload"
UNSHELVE = POLICY_ROOT % "unshelve"
UNSHELVE_TO_HOST = POLICY_ROOT % "unshelve_to_host"

_ACTION = "/servers/{server_id}/action (%s)"
M, A = base.PROJECT_MEMBER_OR_ADMIN, base.ADMIN

rules = [
    base.rule(SHELVE, M, "Shelve server", [("POST", _ACTION % "shelve")]),
    base.rule(UNSHELVE, M, "Unshelve (restore) shelved server",
              [("POST", _ACTION % "unshelve")]),
    base.rule(UNSHELVE_TO_HOST, A, "Unshelve (restore) shelve offloaded "
              "server to a specific host",
              [("POST", _ACTION % "unshelve")]),
    base.rule(SHELVE_OFFLOAD, A, "Shelf-offload (remove) server",
              [("POST", _ACTION % "shelveOffload")]),
]


def list_rules():
    return rules
