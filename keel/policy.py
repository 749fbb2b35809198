"""Authorisation with oslo.policy, using Nova's rule names and defaults.

``[oslo_policy]`` (policy_file, enforce_scope, enforce_new_defaults, …) is
read by oslo.policy itself; a policy.yaml overrides any default. A check that
fails raises PolicyNotAuthorized (403 "Policy doesn't allow X to be
performed."), also when the token's scope is wrong for the rule.
"""
import inspect
import threading
import time
import types

from oslo_config import cfg
from oslo_log import log as logging
from oslo_policy import _checks as oslo_checks
from oslo_policy import policy as oslo_policy

from keel import exception
from keel import policies
from keel.conf import CONF

LOG = logging.getLogger(__name__)

_ENFORCER = None
_LOCK = threading.Lock()


# oslo.policy evaluates every check of a rule through ``_checks._check``,
# which asks inspect.getfullargspec(check.__call__) each time whether the
# check takes ``current_rule`` (~30 us a check, ~3-4% of a POST /servers).
# The answer depends only on the check class's __call__ function, so it is
# worked out once per function; the call made is the same as oslo's.
_oslo_check = oslo_checks._check
_takes_current_rule = {}


def _check(rule, target, creds, enforcer, current_rule):
    call = getattr(type(rule), "__call__", None)
    # A plain method of the class (every oslo and keel check): cached. An
    # instance-level __call__ or another kind of callable: oslo's own way.
    if type(call) is not types.FunctionType or \
            "__call__" in getattr(rule, "__dict__", ()):
        return _oslo_check(rule, target, creds, enforcer, current_rule)
    takes = _takes_current_rule.get(call)
    if takes is None:
        takes = len(inspect.getfullargspec(rule.__call__).args) > 4
        _takes_current_rule[call] = takes
    if takes:
        return rule(target, creds, enforcer, current_rule)
    return rule(target, creds, enforcer)  # a legacy 3-argument check


def _oslo_check_is_known():
    """The oslo.policy code this was written against: a module-level
    ``_check(rule, target, creds, enforcer, current_rule)`` that calls
    getfullargspec (composite checks and Enforcer.enforce look it up in
    the module on each call, so replacing it reaches them all)."""
    code = getattr(_oslo_check, "__code__", None)
    return (code is not None and "getfullargspec" in code.co_names and
            code.co_varnames[:5] == ("rule", "target", "creds", "enforcer",
                                     "current_rule"))


def install_check_cache():
    """Use the cached-argspec _check (idempotent; another oslo.policy whose
    _check is not the one above is left alone)."""
    if oslo_checks._check is _oslo_check and _oslo_check_is_known():
        oslo_checks._check = _check


install_check_cache()


class _Enforcer(oslo_policy.Enforcer):
    """oslo's Enforcer, looking for policy file changes at most once a
    second instead of on every check (a stat() per rule per request)."""

    recheck_seconds = 1.0
    _checked = 0.0
    _registered = -1

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        registered = len(self.registered_rules)
        if not force_reload and self.rules and \
                registered == self._registered and \
                now - self._checked < self.recheck_seconds:
            return
        self._checked, self._registered = now, registered
        super().load_rules(force_reload)


def init(conf=CONF, policy_file=None, rules=None, suppress_deprecation=False):
    """Build the enforcer once (thread-safe); later calls are no-ops."""
    global _ENFORCER
    if _ENFORCER is not None:
        return _ENFORCER
    with _LOCK:
        if _ENFORCER is None:
            enforcer = _Enforcer(
                conf, policy_file=policy_file, rules=rules, use_conf=True)
            enforcer.suppress_deprecation_warnings = suppress_deprecation
            enforcer.register_defaults(policies.list_rules())
            enforcer.load_rules()
            _ENFORCER = enforcer
    return _ENFORCER


def reset():
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def get_enforcer():
    """``oslo.policy.enforcer`` entry point for the oslopolicy-* tools."""
    try:  # tools call this before any parsing
        CONF.config_file
    except cfg.NoSuchOptError:
        CONF([], project="nova")
    return init()


def default_target(context):
    return {"project_id": context.project_id, "user_id": context.user_id}


def authorize(context, action, target=None, do_raise=True, exc=None):
    """Check ``action`` for ``context`` against ``target``.

    Returns the result, or raises ``exc`` (PolicyNotAuthorized by default)
    when ``do_raise``; an unregistered action is a programming error.
    """
    enforcer = init()
    if target is None:
        target = default_target(context)
    exc = exc or exception.PolicyNotAuthorized
    credentials = context.to_policy_values()
    try:
        return enforcer.authorize(action, target, credentials,
                                  do_raise=do_raise, exc=exc, action=action)
    except oslo_policy.PolicyNotRegistered:
        LOG.exception("Policy %s is not registered", action)
        raise
    except oslo_policy.InvalidScope:
        LOG.debug("Scope of the token does not fit policy %s", action)
        if do_raise:
            raise exc(action=action)
        return False


def check_is_admin(context):
    """Whether the context passes ``context_is_admin`` (sets is_admin)."""
    enforcer = init()
    credentials = context.to_policy_values()
    return enforcer.authorize("context_is_admin", default_target(context),
                              credentials)


def authorize_or_not_found(context, action, target, not_found):
    """Nova's 403-versus-404: hide what belongs to another project.

    A caller who fails the policy on a resource of another project is told
    the resource does not exist (``not_found`` raised, 404), exactly as
    Nova's project-filtered lookups answer; on its own project's resources
    the caller gets the 403.
    """
    if authorize(context, action, target, do_raise=False):
        return True
    owner = (target or {}).get("project_id")
    if owner is not None and owner != context.project_id:
        raise not_found
    raise exception.PolicyNotAuthorized(action=action)
