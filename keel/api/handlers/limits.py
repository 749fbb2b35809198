"""GET /limits: the project's absolute limits with what it uses (rate
limits are long gone: ``rate`` is always empty). Admins may ask for
another project with ``tenant_id``."""
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import limits as schema
from keel.api.views import quota_sets as view
from keel.compute_api import quota
from keel.policies import quotas as q_policies
from keel import policy


@wsgi.expose()
@validation.query_schema(schema.index_query, "2.1", "2.74")
@validation.query_schema(schema.index_query_v275, "2.75")
def index(req):
    ctx = req.context
    policy.authorize(ctx, q_policies.LIMITS,
                     target={"project_id": ctx.project_id})
    project_id = ctx.project_id
    if "tenant_id" in req.GET:
        project_id = req.GET.get("tenant_id")
        policy.authorize(ctx, q_policies.LIMITS + ":other_project",
                         target={"project_id": project_id})
    values = quota.get_project_quotas(ctx, project_id, usages_too=True)
    return view.limits(req, values)
