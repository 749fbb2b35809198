"""/flavors/{flavor_id}/os-extra_specs[/{id}].

Numbers are accepted as values (stored as strings, at most 255
characters); from 2.86 keys of the namespaces we know are validated
(keel.api.extra_specs).
"""
import webob.exc

from keel.api import extra_specs
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import flavor_extra_specs as schema
from keel.compute_api import flavors as flavors_api
from keel import exception
from keel.policies import flavors as fl_policies
from keel import policy


def _authorize(ctx, action):
    target = {"project_id": ctx.project_id} \
        if action in ("index", "show") else {}
    policy.authorize(ctx, fl_policies.EXTRA_SPECS % action, target=target)


def _flavor(ctx, flavor_id):
    try:
        return flavors_api.get(ctx, flavor_id)
    except exception.FlavorNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


def _checked(req, specs):
    """The specs as strings, after the length and (2.86) key checks."""
    out = {}
    for key, value in specs.items():
        text = value if isinstance(value, str) else str(value)
        if len(text) > 255:
            raise webob.exc.HTTPBadRequest(explanation=(
                "Invalid input received: extra_specs value has more than "
                "255 characters."))
        if req.version_matches("2.86"):
            extra_specs.validate(key, text)
        out[key] = text
    return out


def _not_found(flavor_id, key):
    return webob.exc.HTTPNotFound(explanation=(
        f"Flavor {flavor_id} has no extra specs with key {key}."))


@wsgi.expose()
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req, flavor_id):
    _authorize(req.context, "index")
    return {"extra_specs": dict(_flavor(req.context, flavor_id)
                                .extra_specs)}


@wsgi.expose()
@validation.schema(schema.create)
def create(req, flavor_id):
    ctx = req.context
    _authorize(ctx, "create")
    specs = _checked(req, req.json_body["extra_specs"])
    flavors_api.set_extra_specs(ctx, _flavor(ctx, flavor_id), specs)
    return req.json_body


@wsgi.expose()
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, flavor_id, id):
    _authorize(req.context, "show")
    specs = _flavor(req.context, flavor_id).extra_specs
    if id not in specs:
        raise _not_found(flavor_id, id)
    return {id: specs[id]}


@wsgi.expose()
@validation.schema(schema.update)
def update(req, flavor_id, id):
    ctx = req.context
    _authorize(ctx, "update")
    specs = _checked(req, req.json_body)
    if id not in specs:
        raise webob.exc.HTTPBadRequest(
            explanation="Request body and URI mismatch")
    flavors_api.set_extra_specs(ctx, _flavor(ctx, flavor_id), specs)
    return req.json_body


@wsgi.expose()
def delete(req, flavor_id, id):
    ctx = req.context
    _authorize(ctx, "delete")
    flavor = _flavor(ctx, flavor_id)
    if id not in flavor.extra_specs:
        raise _not_found(flavor_id, id)
    flavors_api.delete_extra_spec(ctx, flavor, id)
