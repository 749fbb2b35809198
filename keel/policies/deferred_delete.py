"""Restore and force-delete of soft-deleted servers (Nova's
os-deferred-delete rules)."""
from keel.policies import base

BASE = "os_compute_api:os-deferred-delete:%s"
_ACTION = "/servers/{server_id}/action (%s)"

rules = [
    base.rule(BASE % "restore", base.PROJECT_MEMBER_OR_ADMIN,
              "Restore a soft deleted server",
              [("POST", _ACTION % "restore")]),
    base.rule(BASE % "force", base.PROJECT_MEMBER_OR_ADMIN,
              "Force delete a server before deferred cleanup",
              [("POST", _ACTION % "forceDelete")]),
]


def list_rules():
    return rules
