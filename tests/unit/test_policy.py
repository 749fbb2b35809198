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
    base_rules.PROJECT_READER: {"member", "reader"},
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


# --- the cached argspec of oslo.policy's _check ---------------------------

import inspect  # noqa: E402

from oslo_policy import _checks as oslo_checks  # noqa: E402

TARGETS = [{"project_id": "p1", "user_id": "alice"},
           {"project_id": "p2", "user_id": "eve"}, {}]
OVERRIDE = """
"project_reader_api": "role:auditor and project_id:%(project_id)s"
"project_member_api": "(role:member or role:operator) and not role:banned"
"os_compute_api:servers:show": "rule:project_reader_api or user_id:%(user_id)s"
"os_compute_api:servers:create": "@"
"os_compute_api:servers:delete": "!"
"os_compute_api:servers:index": "'p1':%(project_id)s or is_admin:True"
"context_is_admin": "role:admin or role:cloud_admin"
"""
EXTRA_PERSONAS = {
    "auditor": dict(user_id="carol", project_id="p1", roles=["auditor"]),
    "operator": dict(user_id="dan", project_id="p1",
                     roles=["operator", "reader"]),
    "banned": dict(user_id="mallory", project_id="p1",
                   roles=["member", "banned"]),
    "cloud_admin": dict(user_id="ops", project_id="p9",
                        roles=["cloud_admin"]),
}


def _decisions():
    """Every registered rule for every persona and target."""
    personas = dict(PERSONAS, **EXTRA_PERSONAS)
    out = {}
    for rule in policies.list_rules():
        for name, creds in personas.items():
            ctx = context.RequestContext(**creds)
            for i, target in enumerate(TARGETS):
                out[rule.name, name, i] = bool(policy.authorize(
                    ctx, rule.name, dict(target), do_raise=False))
    return out


def _decisions_both_ways(monkeypatch):
    """(with keel's _check, with oslo's own), from fresh enforcers."""
    assert oslo_checks._check is policy._check
    policy.reset()
    cached = _decisions()
    with monkeypatch.context() as m:
        m.setattr(oslo_checks, "_check", policy._oslo_check)
        policy.reset()
        original = _decisions()
    policy.reset()
    return cached, original


@pytest.mark.parametrize("new_defaults", [True, False])
def test_cached_check_decides_as_oslo_on_default_rules(conf, monkeypatch,
                                                       new_defaults):
    conf.config(enforce_new_defaults=new_defaults, group="oslo_policy")
    cached, original = _decisions_both_ways(monkeypatch)
    assert cached == original
    # the comparison is not vacuous: both outcomes occur
    assert set(cached.values()) == {True, False}


def test_cached_check_decides_as_oslo_with_a_policy_file(conf, tmp_path,
                                                         monkeypatch):
    path = tmp_path / "policy.yaml"
    path.write_text(OVERRIDE)
    conf.config(policy_file=str(path), group="oslo_policy")
    cached, original = _decisions_both_ways(monkeypatch)
    assert cached == original
    # the file is in force: the auditor reads, the banned member does not
    # pass project_member_api, delete is nobody's
    assert cached["os_compute_api:servers:show", "auditor", 0]
    assert not cached["os_compute_api:servers:show", "reader", 0]
    assert cached["os_compute_api:servers:create", "no_roles", 1]
    assert not any(v for k, v in cached.items()
                   if k[0] == "os_compute_api:servers:delete")
    assert cached["context_is_admin", "cloud_admin", 2]


def test_no_argspec_per_check(conf, monkeypatch):
    calls = []
    real = inspect.getfullargspec
    monkeypatch.setattr(inspect, "getfullargspec",
                        lambda f: calls.append(f) or real(f))
    ctx = context.RequestContext(**PERSONAS["member"])
    rules = ("os_compute_api:servers:show", "os_compute_api:servers:create",
             "context_is_admin", "project_member_or_admin")
    for rule in rules:       # each check class seen once
        policy.authorize(ctx, rule, dict(TARGET), do_raise=False)
    calls.clear()
    for _ in range(3):
        for rule in rules:
            policy.authorize(ctx, rule, dict(TARGET), do_raise=False)
    assert calls == []
    # oslo's own _check asks on every check
    monkeypatch.setattr(oslo_checks, "_check", policy._oslo_check)
    policy.authorize(ctx, rules[0], dict(TARGET), do_raise=False)
    assert len(calls) >= 2


class _LegacyCheck(oslo_checks.Check):
    """A check written before oslo.policy passed current_rule."""

    seen = []

    def __call__(self, target, creds, enforcer):
        self.seen.append(None)
        return self.match == "yes"


class _RuleAwareCheck(oslo_checks.Check):
    seen = []

    def __call__(self, target, creds, enforcer, current_rule=None):
        self.seen.append(current_rule)
        return True


def test_legacy_and_rule_aware_checks(conf, monkeypatch):
    monkeypatch.setitem(oslo_checks.registered_checks, "keellegacy",
                        _LegacyCheck)
    monkeypatch.setitem(oslo_checks.registered_checks, "keelaware",
                        _RuleAwareCheck)
    enforcer = policy.init()
    enforcer.register_default(oslo_policy.RuleDefault(
        "test:legacy", "keellegacy:yes and keelaware:x"))
    enforcer.register_default(oslo_policy.RuleDefault(
        "test:legacy_no", "keellegacy:no or not keelaware:x"))
    ctx = _ctx(["member"])
    assert policy.authorize(ctx, "test:legacy", {}) is True
    assert _RuleAwareCheck.seen[-1] == "test:legacy"
    assert policy.authorize(ctx, "test:legacy_no", {},
                            do_raise=False) is False
    assert _LegacyCheck.seen


class _EchoRuleCheck(oslo_checks.Check):
    def __call__(self, target, creds, enforcer, current_rule=None):
        return current_rule


def test_instance_level_call_goes_the_oslo_way(conf):
    check = _EchoRuleCheck("echo", "x")
    assert policy._check(check, {}, {}, None, "r") == "r"
    check.__call__ = lambda target, creds, enforcer: "never called"
    # oslo inspects the instance's __call__ (3 arguments: the legacy call,
    # no current_rule) but calls the class's; keel's _check does the same
    assert policy._oslo_check(check, {}, {}, None, "r") is None
    assert policy._check(check, {}, {}, None, "r") is None
