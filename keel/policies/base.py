"""Nova's base rules, by Nova's names, that every API policy builds on.

Project-scoped APIs use PROJECT_READER_OR_ADMIN for reads and
PROJECT_MEMBER_OR_ADMIN for writes; cloud-wide ones use ADMIN; calls made by
other services (Neutron's external events …) use SERVICE_ROLE.
"""
from oslo_policy import policy

RULE_ADMIN_OR_OWNER = "rule:admin_or_owner"
RULE_ADMIN_API = "rule:admin_api"
RULE_ANY = "@"
RULE_NOBODY = "!"

ADMIN = "rule:context_is_admin"
PROJECT_MANAGER = "rule:project_manager_api"
PROJECT_MEMBER = "rule:project_member_api"
PROJECT_READER = "rule:project_reader_api"
PROJECT_MANAGER_OR_ADMIN = "rule:project_manager_or_admin"
PROJECT_MEMBER_OR_ADMIN = "rule:project_member_or_admin"
PROJECT_READER_OR_ADMIN = "rule:project_reader_or_admin"
SERVICE_ROLE = "rule:service_api"
SERVICE_OR_ADMIN = "rule:service_or_admin"

_DEPRECATED_REASON = (
    "Nova's API policies use the reader/member/manager/admin/service roles "
    "with project scope; the legacy is_admin/owner rules are only honoured "
    "when [oslo_policy]/enforce_new_defaults is False.")

DEPRECATED_ADMIN_POLICY = policy.DeprecatedRule(
    name=RULE_ADMIN_API, check_str="is_admin:True",
    deprecated_reason=_DEPRECATED_REASON, deprecated_since="21.0.0")

DEPRECATED_ADMIN_OR_OWNER_POLICY = policy.DeprecatedRule(
    name=RULE_ADMIN_OR_OWNER,
    check_str="is_admin:True or project_id:%(project_id)s",
    deprecated_reason=_DEPRECATED_REASON, deprecated_since="21.0.0")

rules = [
    policy.RuleDefault(
        "context_is_admin", "role:admin",
        "Who passes the 'is_admin:True' check.",
        deprecated_rule=DEPRECATED_ADMIN_POLICY),
    policy.RuleDefault(
        "admin_or_owner", "is_admin:True or project_id:%(project_id)s",
        "Legacy default for project APIs.", deprecated_for_removal=True,
        deprecated_reason=_DEPRECATED_REASON, deprecated_since="21.0.0"),
    policy.RuleDefault(
        "admin_api", "is_admin:True",
        "Legacy default for admin APIs.", deprecated_for_removal=True,
        deprecated_reason=_DEPRECATED_REASON, deprecated_since="21.0.0"),
    policy.RuleDefault(
        "project_manager_api", "role:manager and project_id:%(project_id)s",
        "Project-level management APIs.",
        deprecated_rule=DEPRECATED_ADMIN_POLICY),
    policy.RuleDefault(
        "project_member_api", "role:member and project_id:%(project_id)s",
        "Project-level write APIs.",
        deprecated_rule=DEPRECATED_ADMIN_OR_OWNER_POLICY),
    policy.RuleDefault(
        "project_reader_api", "role:reader and project_id:%(project_id)s",
        "Project-level read-only APIs.",
        deprecated_rule=DEPRECATED_ADMIN_OR_OWNER_POLICY),
    policy.RuleDefault(
        "project_manager_or_admin",
        "rule:project_manager_api or rule:context_is_admin",
        "Project manager or admin APIs.",
        deprecated_rule=DEPRECATED_ADMIN_POLICY),
    policy.RuleDefault(
        "project_member_or_admin",
        "rule:project_member_api or rule:context_is_admin",
        "Project member or admin APIs.",
        deprecated_rule=DEPRECATED_ADMIN_OR_OWNER_POLICY),
    policy.RuleDefault(
        "project_reader_or_admin",
        "rule:project_reader_api or rule:context_is_admin",
        "Project reader or admin APIs.",
        deprecated_rule=DEPRECATED_ADMIN_OR_OWNER_POLICY),
    policy.RuleDefault(
        "service_api", "role:service",
        "APIs other OpenStack services call (service role)."),
    policy.RuleDefault(
        "service_or_admin", "rule:service_api or rule:context_is_admin",
        "APIs for services or admins."),
]


def list_rules():
    return rules


def rule(name, check_str, description, operations, scope_types=("project",)):
    """A documented API rule; ``operations`` as ``[(METHOD, path), …]``."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{"method": m, "path": p} for m, p in operations],
        scope_types=list(scope_types))
