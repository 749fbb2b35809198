"""Nova's os-admin-password rule: a project member changes the
administrative password of its servers."""
from keel.policies import base

CHANGE_PASSWORD = "os_compute_api:os-admin-password"

rules = [
    base.rule(CHANGE_PASSWORD, base.PROJECT_MEMBER_OR_ADMIN,
              "Change the administrative password for a server",
              [("POST", "/servers/{server_id}/action (changePassword)")]),
]


def list_rules():
    return rules
