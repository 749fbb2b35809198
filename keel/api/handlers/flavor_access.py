"""GET /flavors/{id}/os-flavor-access and the addTenantAccess /
removeTenantAccess actions (from 2.7 a public flavor refuses access)."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import flavor_access as schema
from keel.api.views import flavors as view
from keel.compute_api import flavors as flavors_api
from keel import exception
from keel.policies import flavors as fl_policies
from keel import policy


def _flavor(ctx, flavor_id):
    try:
        return flavors_api.get(ctx, flavor_id)
    except exception.FlavorNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


@wsgi.expose()
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req, flavor_id):
    ctx = req.context
    policy.authorize(ctx, fl_policies.ACCESS, target={})
    flavor = _flavor(ctx, flavor_id)
    if flavor.is_public:
        raise webob.exc.HTTPNotFound(
            explanation="Access list not available for public flavors.")
    return view.access_list(flavor)


@wsgi.expose()
@validation.schema(schema.add_tenant_access)
def add_tenant_access(req, id):
    ctx = req.context
    policy.authorize(ctx, fl_policies.ACCESS_ROOT % "add_tenant_access",
                     target={})
    tenant = req.json_body["addTenantAccess"]["tenant"]
    flavor = _flavor(ctx, id)
    if flavor.is_public and req.version_matches("2.7"):
        raise webob.exc.HTTPConflict(
            explanation="Can not add access to a public flavor.")
    try:
        flavor.add_access(tenant)
    except exception.FlavorAccessExists as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    return view.access_list(flavor)


@wsgi.expose()
@validation.schema(schema.remove_tenant_access)
def remove_tenant_access(req, id):
    ctx = req.context
    policy.authorize(ctx, fl_policies.ACCESS_ROOT % "remove_tenant_access",
                     target={})
    tenant = req.json_body["removeTenantAccess"]["tenant"]
    flavor = _flavor(ctx, id)
    try:
        flavor.remove_access(tenant)
    except exception.FlavorAccessNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return view.access_list(flavor)


ACTIONS = {"addTenantAccess": add_tenant_access,
           "removeTenantAccess": remove_tenant_access}
