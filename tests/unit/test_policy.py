"""Policy: Nova's base rule names and defaults, overrides, scope, 403/404."""
import subprocess
import sys
from importlib import metadata

from oslo_policy import policy as oslo_policy
import pytest

from keel import context
from keel import exception
from keel import policies
from keel import policy
from tests.unit.api.conftest import conf  # noqa: F401 - fixture

NOVA_BASE_RULES = {
    "context_is_admin", "admin_or_owner", "admin_api", "project_manager_api",
    "project_member_api", "project_reader_api", "project_manager_or_admin",
    "project_member_or_admin", "project_reader_or_admin", "service_api",
    "service_or_admin",
}


def _ctx(roles, project="p1", **kwargs):
    return context.RequestContext(user_id="u1", project_id=project,
                                  roles=roles, **kwargs)


def _allowed(ctx, rule, project="p1"):
    return policy.authorize(ctx, rule, {"project_id": project},
                            do_raise=False)


def test_rule_names_are_novas():
    assert {r.name for r in policies.list_rules()} >= NOVA_BASE_RULES


@pytest.mark.parametrize("roles,project,member,reader,admin", [
    (["admin"], "p1", True, True, True),
    (["admin"], "other", True, True, True),
    (["member", "reader"], "p1", True, True, False),
    (["reader"], "p1", False, True, False),
    (["member", "reader"], "other", False, False, False),
    ([], "p1", False, False, False),
])
def test_new_defaults(conf, roles, project, member, reader, admin):
    ctx = _ctx(roles, project=project)
    assert _allowed(ctx, "project_member_or_admin") is member
    assert _allowed(ctx, "project_reader_or_admin") is reader
    assert _allowed(ctx, "context_is_admin") is admin
    assert policy.check_is_admin(ctx) is admin


def test_service_role(conf):
    assert _allowed(_ctx(["service"]), "service_api")
    assert not _allowed(_ctx(["member"]), "service_api")
    assert _allowed(_ctx(["admin"]), "service_or_admin")


def test_legacy_defaults_when_new_defaults_off(conf):
    conf.config(enforce_new_defaults=False, group="oslo_policy")
    # the deprecated admin_or_owner rule is OR'ed in: an owner without roles
    assert _allowed(_ctx([]), "project_member_or_admin")
    assert not _allowed(_ctx([], project="other"), "project_member_or_admin")


def test_policy_file_overrides_defaults(conf, tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text('"project_reader_api": "role:auditor and '
                    'project_id:%(project_id)s"\n')
    conf.config(policy_file=str(path), group="oslo_policy")
    assert _allowed(_ctx(["auditor"]), "project_reader_or_admin")
    assert not _allowed(_ctx(["reader"]), "project_reader_or_admin")


def test_scope_enforced(conf):
    enforcer = policy.init()
    enforcer.register_default(oslo_policy.RuleDefault(
        "test:project_scoped", "role:admin", scope_types=["project"]))
    system_admin = context.RequestContext(user_id="u", roles=["admin"],
                                          system_scope="all")
    with pytest.raises(exception.PolicyNotAuthorized) as err:
        policy.authorize(system_admin, "test:project_scoped", {})
    assert str(err.value) == ("Policy doesn't allow test:project_scoped to "
                              "be performed.")
    assert policy.authorize(_ctx(["admin"]), "test:project_scoped", {})


def test_forbidden_versus_not_found(conf):
    class Missing(exception.NotFound):
        msg_fmt = "Thing could not be found."

    member = _ctx(["member", "reader"])
    reader = _ctx(["reader"])
    # another project's resource: hidden (404)
    with pytest.raises(Missing):
        policy.authorize_or_not_found(member, "project_member_or_admin",
                                      {"project_id": "other"}, Missing())
    # own resource, insufficient role: 403
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize_or_not_found(reader, "project_member_or_admin",
                                      {"project_id": "p1"}, Missing())
    assert policy.authorize_or_not_found(
        member, "project_member_or_admin", {"project_id": "p1"}, Missing())


def test_unregistered_rule_is_an_error(conf):
    with pytest.raises(oslo_policy.PolicyNotRegistered):
        policy.authorize(_ctx(["admin"]), "no:such:rule")


def test_entry_points_declared():
    names = {ep.name: ep.value for ep in
             metadata.entry_points(group="oslo.policy.policies")}
    assert names.get("keel") == "keel.policies:list_rules"
    names = {ep.name: ep.value for ep in
             metadata.entry_points(group="oslo.policy.enforcer")}
    assert names.get("keel") == "keel.policy:get_enforcer"


def test_sample_generator_on_namespace():
    tool = [sys.executable, "-c",
            "import sys; from oslo_policy.generator import "
            "generate_sample; sys.exit(generate_sample())"]
    out = subprocess.run(tool + ["--namespace", "keel"], check=True,
                         capture_output=True, text=True).stdout
    assert '#"context_is_admin": "role:admin"' in out
    assert '#"project_member_api": "role:member and ' \
           'project_id:%(project_id)s"' in out


# --- the API rules: who passes each, by persona -------------------------

from keel.policies import base as base_rules  # noqa: E402

PERSONAS = {
    "admin": dict(user_id="root", project_id="p0",
                  roles=["admin", "member", "reader"]),
    "member": dict(user_id="alice", project_id="p1",
                   roles=["member", "reader"]),
    "reader": dict(user_id="bob", project_id="p1", roles=["reader"]),
    "other_member": dict(user_id="eve", project_id="p2",
                         roles=["member", "reader"]),
    "no_roles": dict(user_id="nobody", project_id="p1", roles=[]),
    "service": dict(user_id="neutron", project_id="svc",
                    roles=["service"]),
}
TARGET = {"project_id": "p1", "user_id": "alice"}
EXPECTED = {
    base_rules.ADMIN: {"admin"},
    base_rules.PROJECT_READER_OR_ADMIN: {"admin", "member", "reader"},
    base_rules.PROJECT_MEMBER_OR_ADMIN: {"admin", "member"},
    # No persona above has the manager role: only the admin passes.
    base_rules.PROJECT_MANAGER_OR_ADMIN: {"admin"},
    base_rules.PROJECT_MEMBER: {"member"},
    base_rules.RULE_ANY: set(PERSONAS),
    base_rules.RULE_NOBODY: set(),
    base_rules.SERVICE_ROLE: {"service"},
    "(" + base_rules.ADMIN + ") or user_id:%(user_id)s": {"admin", "member"},
}
API_RULES = [r for r in policies.list_rules() if ":" in r.name]


@pytest.mark.parametrize("rule", API_RULES, ids=lambda r: r.name)
def test_policy_matrix(conf, rule):
    assert rule.check_str in EXPECTED, f"{rule.name}: unclassified default"
    allowed = {name for name, creds in PERSONAS.items()
               if policy.authorize(context.RequestContext(**creds),
                                   rule.name, TARGET, do_raise=False)}
    assert allowed == EXPECTED[rule.check_str]


def test_api_rules_are_project_scoped(conf):
    system_admin = context.RequestContext(user_id="root", roles=["admin"],
                                          system_scope="all")
    for rule in API_RULES:
        assert rule.scope_types == ["project"], rule.name
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize(system_admin, "os_compute_api:os-services:list",
                         {})


def test_well_known_nova_rule_names_exist():
    names = {r.name for r in policies.list_rules()}
    for name in ("os_compute_api:servers:index",
                 "os_compute_api:servers:detail:get_all_tenants",
                 "os_compute_api:os-flavor-manage:create",
                 "os_compute_api:os-keypairs:index",
                 "os_compute_api:limits:other_project",
                 "os_compute_api:os-quota-sets:show",
                 "os_compute_api:os-hypervisors:list-detail",
                 "os_compute_api:os-aggregates:add_host",
                 "os_compute_api:os-server-groups:index:all_projects",
                 "os_compute_api:os-instance-actions:events:details",
                 "os_compute_api:os-server-external-events:create",
                 "compute:server:topology:host:index"):
        assert name in names
