"""os-quota-sets: show, detail, defaults, update (with ``force``) and
delete, for a project or (``?user_id=``) one of its users."""
from oslo_utils import strutils
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import quota_sets as schema
from keel.api.views import quota_sets as view
from keel.compute_api import quota
from keel.policies import quotas as q_policies
from keel import policy


def _authorize(req, action, project_id):
    policy.authorize(req.context, q_policies.QUOTA % action,
                     target={"project_id": project_id})


def _limits(ctx, project_id, user_id, usages=False):
    if user_id:
        values = quota.get_user_quotas(ctx, project_id, user_id, usages)
    else:
        values = quota.get_project_quotas(ctx, project_id, usages)
    return values if usages else {k: v["limit"] for k, v in values.items()}


def _user_query(kind):
    def decorate(func):
        func = validation.query_schema(getattr(schema, f"{kind}_query"),
                                       "2.1", "2.74")(func)
        return validation.query_schema(
            getattr(schema, f"{kind}_query_v275"), "2.75")(func)
    return decorate


@wsgi.expose()
@_user_query("show")
def show(req, id):
    _authorize(req, "show", id)
    values = _limits(req.context, id, req.GET.get("user_id"))
    return view.quota_set(values, view.hidden_quotas(req), id)


@wsgi.expose()
@_user_query("detail")
def detail(req, id):
    _authorize(req, "detail", id)
    values = _limits(req.context, id, req.GET.get("user_id"), usages=True)
    return view.quota_set(values, view.hidden_quotas(req), id)


@wsgi.expose()
@validation.query_schema(schema.defaults_query)
def defaults(req, id):
    _authorize(req, "defaults", id)
    return view.quota_set(quota.get_defaults(req.context),
                          view.hidden_quotas(req), id)


def _check_limit(resource, limit, minimum, maximum):
    def inf(value):
        return float("inf") if value == -1 else value
    if inf(limit) < inf(minimum):
        raise webob.exc.HTTPBadRequest(explanation=(
            f"Quota limit {limit} for {resource} must be greater than or "
            f"equal to already used and reserved {minimum}."))
    if inf(limit) > inf(maximum):
        raise webob.exc.HTTPBadRequest(explanation=(
            f"Quota limit {limit} for {resource} must be less than or "
            f"equal to {maximum}."))


@wsgi.expose()
@validation.schema(schema.update, "2.1", "2.35")
@validation.schema(schema.update_v236, "2.36", "2.56")
@validation.schema(schema.update_v257, "2.57")
@_user_query("update")
def update(req, id):
    ctx = req.context
    _authorize(req, "update", id)
    user_id = req.GET.get("user_id")
    values = req.json_body["quota_set"]
    force = strutils.bool_from_string(values.get("force", "False"))
    settable = None if force else \
        quota.get_settable_quotas(ctx, id, user_id=user_id)
    valid = {}
    # Check everything first, so that one bad value changes nothing.
    for key, value in values.items():
        if key == "force" or (not value and value != 0):
            continue
        value = int(value)
        if settable is not None:
            _check_limit(key, value, settable[key]["minimum"],
                         settable[key]["maximum"])
        valid[key] = value
    for key, value in valid.items():
        quota.set_limit(ctx, id, key, value, user_id=user_id)
    return view.quota_set(_limits(ctx, id, user_id),
                          view.hidden_quotas(req))


@wsgi.expose(status=202)
@_user_query("delete")
def delete(req, id):
    ctx = req.context
    _authorize(req, "delete", id)
    user_id = req.GET.get("user_id")
    if user_id:
        quota.destroy_all_by_project_and_user(ctx, id, user_id)
    else:
        quota.destroy_all_by_project(ctx, id)
