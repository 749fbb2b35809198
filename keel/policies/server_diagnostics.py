"""Nova's os-server-diagnostics rule: admins only."""
from keel.policies import base

SHOW = "os_compute_api:os-server-diagnostics"

rules = [
    base.rule(SHOW, base.ADMIN, "Show the usage data for a server",
              [("GET", "/servers/{server_id}/diagnostics")]),
]


def list_rules():
    return rules
