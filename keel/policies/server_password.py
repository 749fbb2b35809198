"""Nova's os-server-password rules: project readers see the encrypted
password, project members clear it."""
from keel.policies import base

POLICY_ROOT = "os_compute_api:os-server-password:%s"
SHOW = POLICY_ROOT % "show"
CLEAR = POLICY_ROOT % "clear"

_PATH = "/servers/{server_id}/os-server-password"

rules = [
    base.rule(SHOW, base.PROJECT_READER_OR_ADMIN,
              "Show the encrypted administrative password of a server",
              [("GET", _PATH)]),
    base.rule(CLEAR, base.PROJECT_MEMBER_OR_ADMIN,
              "Clear the encrypted administrative password of a server",
              [("DELETE", _PATH)]),
]


def list_rules():
    return rules
