"""POST /flavors, PUT /flavors/{id} (2.55: the description), DELETE."""
import webob.exc

from keel.api.handlers import flavors as flavors_handler
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import flavors as schema
from keel.api.views import flavors as view
from keel.compute_api import flavors as flavors_api
from keel import exception
from keel.policies import flavors as fl_policies
from keel import policy


@wsgi.expose()
@validation.schema(schema.create, "2.1", "2.54")
@validation.schema(schema.create_v255, "2.55", "2.101")
@validation.schema(schema.create_v2102, "2.102")
def create(req):
    ctx = req.context
    policy.authorize(ctx, fl_policies.MANAGE % "create", target={})
    vals = req.json_body["flavor"]
    try:
        flavor = flavors_api.create(
            ctx, vals["name"], vals["ram"], vals["vcpus"], vals["disk"],
            ephemeral_gb=vals.get("OS-FLV-EXT-DATA:ephemeral", 0),
            flavorid=vals.get("id"), swap=vals.get("swap", 0),
            rxtx_factor=vals.get("rxtx_factor", 1.0),
            is_public=vals.get("os-flavor-access:is_public", True),
            description=vals.get("description")
            if req.version_matches("2.55") else None)
    except (exception.FlavorExists, exception.FlavorIdExists) as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    return view.show(req, flavor,
                     flavors_handler.can_read_extra_specs(req))


@wsgi.expose(min_version="2.55")
@validation.schema(schema.update, "2.55")
def update(req, id):
    ctx = req.context
    policy.authorize(ctx, fl_policies.MANAGE % "update", target={})
    try:
        flavor = flavors_api.update_description(
            ctx, id, req.json_body["flavor"]["description"])
    except exception.FlavorNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return view.show(req, flavor,
                     flavors_handler.can_read_extra_specs(req))


@wsgi.expose(status=202)
def delete(req, id):
    ctx = req.context
    policy.authorize(ctx, fl_policies.MANAGE % "delete", target={})
    try:
        flavors_api.destroy(ctx, id)
    except exception.FlavorNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
