"""os-quota-class-sets: show and update a quota class (Nova only ever
uses ``default``, whose limits override the [quota] options)."""
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import quota_classes as schema
from keel.api.views import quota_sets as view
from keel.compute_api import quota
from keel.policies import quotas as q_policies
from keel import policy

ROOT = "quota_class_set"


@wsgi.expose()
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, id):
    ctx = req.context
    policy.authorize(ctx, q_policies.QUOTA_CLASS % "show",
                     target={"quota_class": id})
    return view.quota_set(quota.get_class_quotas(ctx, id),
                          view.hidden_class_quotas(req), id, root=ROOT)


@wsgi.expose()
@validation.schema(schema.update, "2.1", "2.49")
@validation.schema(schema.update_v250, "2.50", "2.56")
@validation.schema(schema.update_v257, "2.57")
def update(req, id):
    ctx = req.context
    policy.authorize(ctx, q_policies.QUOTA_CLASS % "update", target={})
    for key, value in req.json_body[ROOT].items():
        quota.set_class_limit(ctx, id, key, int(value))
    return view.quota_set(quota.get_class_quotas(ctx, id),
                          view.hidden_class_quotas(req), root=ROOT)
