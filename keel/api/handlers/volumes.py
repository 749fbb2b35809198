"""Nova's volume proxies (up to 2.35): os-volumes and os-snapshots, read
from and written to Cinder (keel.clients.cinder). Without Cinder there are
no volumes or snapshots: lists are empty, lookups 404, and creating a
volume is refused with a 400 that says Cinder is not configured."""
import functools

import webob.exc
from oslo_utils import strutils

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import proxy_common as common
from keel.api.schemas import volumes as schema
from keel.api.views import volumes as view
from keel.clients import cinder
from keel.conf import CONF
from keel import exception
from keel.policies import network_proxies as names
from keel import policy

MAX = common.MAX_PROXY_VERSION
NO_CINDER = ("Volumes need the block storage service (Cinder), which is "
             "not configured.")


def _cinder_errors(func):
    """Cinder down or failing: a 503 that says so (Nova lets it be a 500)."""
    @functools.wraps(func)
    def wrapper(req, **kwargs):
        try:
            return func(req, **kwargs)
        except exception.CinderConnectionFailed as exc:
            raise webob.exc.HTTPServiceUnavailable(
                explanation=exc.format_message())
    return wrapper


def _authorize(req, action):
    policy.authorize(req.context, names.VOLUMES % action,
                     {"project_id": req.context.project_id})


def _api():
    return cinder.API() if cinder.is_configured(CONF) else None


def _volume_list(req, action):
    _authorize(req, action)
    api = _api()
    vols = api.get_all(req.context) if api else []
    return {"volumes": [view.volume(v) for v in common.limited(vols, req)]}


@wsgi.expose(max_version=MAX, name="volumes.index")
@_cinder_errors
@validation.query_schema(schema.index_query)
def index(req):
    return _volume_list(req, "list")


@wsgi.expose(max_version=MAX, name="volumes.detail")
@_cinder_errors
@validation.query_schema(schema.detail_query)
def detail(req):
    return _volume_list(req, "detail")


@wsgi.expose(max_version=MAX, name="volumes.show")
@_cinder_errors
@validation.query_schema(schema.show_query)
def show(req, id):
    _authorize(req, "show")
    api = _api()
    try:
        if api is None:
            raise exception.VolumeNotFound(volume_id=id)
        return {"volume": view.volume(api.get(req.context, id))}
    except exception.VolumeNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


@wsgi.expose(max_version=MAX, name="volumes.create")
@_cinder_errors
@validation.schema(schema.create)
def create(req):
    _authorize(req, "create")
    api = _api()
    if api is None:
        raise webob.exc.HTTPBadRequest(explanation=NO_CINDER)
    vol = req.json_body["volume"]
    snapshot = None
    if vol.get("snapshot_id") is not None:
        try:
            snapshot = api.get_snapshot(req.context, vol["snapshot_id"])
        except exception.SnapshotNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    size = int(vol["size"])
    try:
        created = api.create(
            req.context, size, vol.get("display_name"),
            vol.get("display_description"), snapshot=snapshot,
            volume_type=vol.get("volume_type"),
            metadata=vol.get("metadata"),
            availability_zone=vol.get("availability_zone"))
    except exception.InvalidInput as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    except exception.OverQuota as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    location = "%s/%s" % (req.path_url, created["id"])
    return wsgi.Result({"volume": view.volume(created)},
                       headers={"Location": location})


@wsgi.expose(max_version=MAX, status=202, name="volumes.delete")
@_cinder_errors
def delete(req, id):
    _authorize(req, "delete")
    api = _api()
    try:
        if api is None:
            raise exception.VolumeNotFound(volume_id=id)
        api.delete(req.context, id)
    except exception.VolumeNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return None


# -- snapshots ---------------------------------------------------------------

def _snapshot_list(req, action):
    _authorize(req, "snapshots:" + action)
    api = _api()
    snaps = api.get_all_snapshots(req.context) if api else []
    return {"snapshots": [view.snapshot(s)
                          for s in common.limited(snaps, req)]}


@wsgi.expose(max_version=MAX, name="snapshots.index")
@_cinder_errors
@validation.query_schema(schema.snapshot_index_query)
def snapshot_index(req):
    return _snapshot_list(req, "list")


@wsgi.expose(max_version=MAX, name="snapshots.detail")
@_cinder_errors
@validation.query_schema(schema.snapshot_detail_query)
def snapshot_detail(req):
    return _snapshot_list(req, "detail")


@wsgi.expose(max_version=MAX, name="snapshots.show")
@_cinder_errors
@validation.query_schema(schema.snapshot_show_query)
def snapshot_show(req, id):
    _authorize(req, "snapshots:show")
    api = _api()
    try:
        if api is None:
            raise exception.SnapshotNotFound(snapshot_id=id)
        return {"snapshot": view.snapshot(api.get_snapshot(req.context, id))}
    except exception.SnapshotNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())


@wsgi.expose(max_version=MAX, name="snapshots.create")
@_cinder_errors
@validation.schema(schema.snapshot_create)
def snapshot_create(req):
    _authorize(req, "snapshots:create")
    body = req.json_body["snapshot"]
    api = _api()
    try:
        if api is None:
            raise exception.VolumeNotFound(volume_id=body["volume_id"])
        force = strutils.bool_from_string(body.get("force", False),
                                          strict=True)
        make = api.create_snapshot_force if force else api.create_snapshot
        snap = make(req.context, body["volume_id"], body.get("display_name"),
                    body.get("display_description"))
    except exception.VolumeNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.OverQuota as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return {"snapshot": view.snapshot(snap)}


@wsgi.expose(max_version=MAX, status=202, name="snapshots.delete")
@_cinder_errors
def snapshot_delete(req, id):
    _authorize(req, "snapshots:delete")
    api = _api()
    try:
        if api is None:
            raise exception.SnapshotNotFound(snapshot_id=id)
        api.delete_snapshot(req.context, id)
    except exception.SnapshotNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return None


def route_entries():
    return {
        "/os-volumes": {"GET": index, "POST": create},
        "/os-volumes/detail": {"GET": detail},
        "/os-volumes/{id}": {"GET": show, "DELETE": delete},
        "/os-snapshots": {"GET": snapshot_index, "POST": snapshot_create},
        "/os-snapshots/detail": {"GET": snapshot_detail},
        "/os-snapshots/{id}": {"GET": snapshot_show,
                               "DELETE": snapshot_delete},
    }
