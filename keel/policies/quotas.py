"""Limits, quota sets and quota class sets."""
from keel.policies import base

LIMITS = "os_compute_api:limits"
QUOTA = "os_compute_api:os-quota-sets:%s"
QUOTA_CLASS = "os_compute_api:os-quota-class-sets:%s"
_QS = "/os-quota-sets/{tenant_id}"
_QCS = "/os-quota-class-sets/{quota_class}"

rules = [
    base.rule(LIMITS, base.RULE_ANY, "Show rate and absolute limits of the "
              "current project", [("GET", "/limits")]),
    base.rule(LIMITS + ":other_project", base.ADMIN,
              "Show rate and absolute limits of another project",
              [("GET", "/limits")]),
    base.rule(QUOTA % "update", base.ADMIN, "Update the quotas",
              [("PUT", _QS)]),
    base.rule(QUOTA % "defaults", base.RULE_ANY, "List default quotas",
              [("GET", _QS + "/defaults")]),
    base.rule(QUOTA % "show", base.PROJECT_READER_OR_ADMIN, "Show a quota",
              [("GET", _QS)]),
    base.rule(QUOTA % "delete", base.ADMIN, "Revert quotas to defaults",
              [("DELETE", _QS)]),
    base.rule(QUOTA % "detail", base.PROJECT_READER_OR_ADMIN,
              "Show the detail of quota", [("GET", _QS + "/detail")]),
    base.rule(QUOTA_CLASS % "show", base.ADMIN, "List quotas for specific "
              "quota classs", [("GET", _QCS)]),
    base.rule(QUOTA_CLASS % "update", base.ADMIN,
              "Update quotas for specific quota class", [("PUT", _QCS)]),
]


def list_rules():
    return rules
