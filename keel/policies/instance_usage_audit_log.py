"""os-instance_usage_audit_log: admins only."""
from keel.policies import base

AUDIT_LOG = "os_compute_api:os-instance-usage-audit-log:%s"

rules = [
    base.rule(AUDIT_LOG % "list", base.ADMIN, "List all usage audits.",
              [("GET", "/os-instance_usage_audit_log")]),
    base.rule(AUDIT_LOG % "show", base.ADMIN, "List all usage audits "
              "occurred before a specified time for all servers on all "
              "compute hosts where usage auditing is configured",
              [("GET", "/os-instance_usage_audit_log/{before_timestamp}")]),
]


def list_rules():
    return rules
