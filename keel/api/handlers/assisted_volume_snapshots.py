"""os-assisted-volume-snapshots: Cinder asks Nova to create (POST, 200
with the snapshot's id and volume) or delete (DELETE ?delete_info=<JSON
with volume_id>, 204) a snapshot of a volume attached to an instance; the
instance's compute does the work (a driver without it fails there).
Nova answers an unknown volume, a multi-attached one and an instance not
ready or busy with 400."""
import json

import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import assisted_volume_snapshots as schema
from keel.compute_api import assisted_volume_snapshots as snapshots_api
from keel import exception
from keel.policies import assisted_volume_snapshots as names
from keel import policy

_BAD_REQUEST = (exception.VolumeBDMNotFound,
                exception.VolumeBDMIsMultiattach, exception.InvalidVolume,
                exception.InstanceInvalidState, exception.InstanceNotReady)


def _authorize(req, action):
    policy.authorize(req.context, names.SNAPSHOTS % action, target={})


@wsgi.expose()
@validation.schema(schema.create)
def create(req):
    _authorize(req, "create")
    snapshot = req.json_body["snapshot"]
    try:
        return snapshots_api.volume_snapshot_create(
            req.context, snapshot["volume_id"], snapshot["create_info"])
    except _BAD_REQUEST as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


def _delete_info(req):
    """Nova's parse: a missing key or bad JSON is a 400 naming it."""
    try:
        info = json.loads(req.GET["delete_info"])
        return info, info["volume_id"]
    except (KeyError, ValueError, TypeError) as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))


@wsgi.expose(status=204)
@validation.query_schema(schema.delete_query, "2.1", "2.74")
@validation.query_schema(schema.delete_query_v275, "2.75")
def delete(req, id):
    _authorize(req, "delete")
    info, volume_id = _delete_info(req)
    try:
        snapshots_api.volume_snapshot_delete(req.context, volume_id, id,
                                             info)
    except _BAD_REQUEST as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    except exception.NotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


def route_entries():
    return {"/os-assisted-volume-snapshots": {"POST": create},
            "/os-assisted-volume-snapshots/{id}": {"DELETE": delete}}
