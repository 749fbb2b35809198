"""os-aggregates: CRUD, host membership, metadata and (2.81) image cache
requests. Aggregate ids in paths are integers (400 otherwise), as Nova."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import aggregates as schema
from keel.api.views import aggregates as view
from keel.compute_api import aggregates as agg_api
from keel import exception
from keel import policy

POLICY = "os_compute_api:os-aggregates:%s"


def _authorize(req, action, rule=None):
    policy.authorize(req.context, rule or POLICY % action, target={})


def _int_id(id):
    try:
        return int(id)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation="Invalid input received: id must be an integer")


def _one(req, agg):
    return {"aggregate": view.aggregate(req, agg)}


@wsgi.expose(name="aggregates.index")
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req):
    _authorize(req, "index")
    return {"aggregates": [view.aggregate(req, a)
                           for a in agg_api.get_all(req.context)]}


@wsgi.expose(name="aggregates.create")
@validation.schema(schema.create)
def create(req):
    _authorize(req, "create")
    body = req.json_body["aggregate"]
    name = body["name"].strip()
    zone = body.get("availability_zone")
    zone = zone.strip() if zone else zone
    try:
        agg = agg_api.create(req.context, name, zone)
    except exception.AggregateNameExists as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.InvalidAggregateAction as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return {"aggregate": view.aggregate(req, agg, brief=True)}


@wsgi.expose(name="aggregates.show")
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, id):
    _authorize(req, "show")
    agg_id = _int_id(id)
    try:
        return _one(req, agg_api.get(req.context, agg_id))
    except exception.AggregateNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


@wsgi.expose(name="aggregates.update")
@validation.schema(schema.update)
def update(req, id):
    _authorize(req, "update")
    agg_id = _int_id(id)
    values = dict(req.json_body["aggregate"])
    if "name" in values:
        values["name"] = values["name"].strip()
    try:
        return _one(req, agg_api.update(req.context, agg_id, values))
    except exception.AggregateNameExists as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.AggregateNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.InvalidAggregateAction as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose(name="aggregates.delete")
def delete(req, id):
    _authorize(req, "delete")
    agg_id = _int_id(id)
    try:
        agg_api.delete(req.context, agg_id)
    except exception.AggregateNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.InvalidAggregateAction as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return None


@wsgi.expose(name="aggregates.add_host")
@validation.schema(schema.add_host)
def add_host(req, id):
    _authorize(req, "add_host")
    agg_id = _int_id(id)
    host = req.json_body["add_host"]["host"]
    try:
        return _one(req, agg_api.add_host(req.context, agg_id, host))
    except (exception.AggregateNotFound, exception.HostMappingNotFound,
            exception.ComputeHostNotFound) as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except (exception.AggregateHostExists,
            exception.InvalidAggregateAction) as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())


@wsgi.expose(name="aggregates.remove_host")
@validation.schema(schema.remove_host)
def remove_host(req, id):
    _authorize(req, "remove_host")
    agg_id = _int_id(id)
    host = req.json_body["remove_host"]["host"]
    try:
        return _one(req, agg_api.remove_host(req.context, agg_id, host))
    except (exception.AggregateNotFound, exception.AggregateHostNotFound,
            exception.HostMappingNotFound, exception.ComputeHostNotFound):
        raise webob.exc.HTTPNotFound(
            explanation=f"Cannot remove host {host} in aggregate {id}")
    except exception.InvalidAggregateAction as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())


@wsgi.expose(name="aggregates.set_metadata")
@validation.schema(schema.set_metadata)
def set_metadata(req, id):
    _authorize(req, "set_metadata")
    agg_id = _int_id(id)
    metadata = req.json_body["set_metadata"]["metadata"]
    try:
        return _one(req, agg_api.update_metadata(req.context, agg_id,
                                                 metadata))
    except exception.AggregateNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.InvalidAggregateAction as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose(min_version="2.81", status=202, name="aggregates.images")
@validation.schema(schema.images)
def images(req, id):
    _authorize(req, None, rule="compute:aggregates:images")
    agg_id = _int_id(id)
    image_ids = [item["id"] for item in req.json_body["cache"]]
    if len(set(image_ids)) != len(image_ids):
        raise webob.exc.HTTPBadRequest(
            explanation="Duplicate images in request")
    try:
        agg_api.request_image_cache(req.context, agg_id, image_ids)
    except exception.AggregateNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.NovaException as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return None


def route_entries():
    return {
        "/os-aggregates": {"GET": index, "POST": create},
        "/os-aggregates/{id}": {"GET": show, "PUT": update,
                                "DELETE": delete},
        "/os-aggregates/{id}/action": {"POST": wsgi.ActionDispatcher({
            "add_host": add_host, "remove_host": remove_host,
            "set_metadata": set_metadata})},
        "/os-aggregates/{id}/images": {"POST": images},
    }
