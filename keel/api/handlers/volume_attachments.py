"""/servers/{server_id}/os-volume_attachments: list, show, attach, detach
and (2.85) update delete_on_termination, with Nova's views per
microversion (tag 2.70, delete_on_termination 2.79, attachment_id and
bdm_uuid instead of id 2.89, attach answers 202 without body 2.101)."""
import functools

import webob.exc
from oslo_utils import strutils

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import proxy_common
from keel.api.handlers import server_power
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import volume_attachments as schema
from keel.compute_api import volume_attachments as attach_api
from keel import exception
from keel.policies import volume_attachments as names
from keel import policy

# Before 2.20 a shelved server takes no volume changes (Nova's 409).
_SHELVED = ("shelved", "shelved_offloaded")


def _errors(action):
    """Nova's answers for the errors of an attachment call."""
    def decorator(func):
        @functools.wraps(func)
        def wrapper(req, **kwargs):
            server_id = kwargs.get("server_id")
            try:
                return func(req, **kwargs)
            except exception.VolumeNotFound as exc:
                raise webob.exc.HTTPNotFound(
                    explanation=exc.format_message())
            except (exception.InstanceIsLocked, exception.InstanceNotReady,
                    exception.DevicePathInUse,
                    exception.UnexpectedTaskStateError) as exc:
                raise webob.exc.HTTPConflict(
                    explanation=exc.format_message())
            except exception.InstanceInvalidState as exc:
                raise server_power.conflict(exc, action, server_id)
            except exception.TooManyDiskDevices as exc:
                raise webob.exc.HTTPForbidden(
                    explanation=exc.format_message())
            except (exception.InvalidVolume, exception.InvalidInput,
                    exception.VolumeTaggedAttachNotSupported,
                    attach_api.CinderNotConfigured) as exc:
                raise webob.exc.HTTPBadRequest(
                    explanation=exc.format_message())
            except exception.CinderConnectionFailed as exc:
                raise webob.exc.HTTPServiceUnavailable(
                    explanation=exc.format_message())
        return wrapper
    return decorator


def _instance(req, server_id, rule):
    found = servers_handler.locate(req, server_id)
    servers_handler.authorize_server(req, names.ATTACHMENTS % rule, found)
    if found.cell is None:
        raise webob.exc.HTTPConflict(
            explanation=f"Instance {server_id} is not ready")
    return found.instance


def _check_shelved(req, instance, method):
    if instance.vm_state in _SHELVED and not req.version_matches("2.20"):
        raise exception.InstanceInvalidState(
            attr="vm_state", instance_uuid=instance.uuid,
            state=instance.vm_state, method=method)


def _bdm(instance, server_id, volume_id):
    try:
        return attach_api.get_bdm(instance, volume_id)
    except exception.VolumeBDMNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {server_id} is not attached to volume "
                        f"{volume_id}")


def view(req, bdm, server_id):
    """Nova's _translate_attachment_detail_view."""
    new_ids = req.version_matches("2.89")
    out = {} if new_ids else {"id": bdm.volume_id}
    out.update(volumeId=bdm.volume_id, serverId=server_id)
    if bdm.device_name:
        out["device"] = bdm.device_name
    if req.version_matches("2.70"):
        out["tag"] = bdm.tag
    if req.version_matches("2.79"):
        out["delete_on_termination"] = bdm.delete_on_termination
    if new_ids:
        out["attachment_id"] = bdm.attachment_id
        out["bdm_uuid"] = bdm.uuid
    return out


@wsgi.expose(name="volume_attachments.index")
@validation.query_schema(schema.index_query, "2.1", "2.74")
@validation.query_schema(schema.index_query_v275, "2.75")
def index(req, server_id):
    instance = _instance(req, server_id, "index")
    bdms = proxy_common.limited(attach_api.list_bdms(instance), req)
    return {"volumeAttachments": [view(req, b, server_id) for b in bdms]}


@wsgi.expose(name="volume_attachments.show")
@validation.query_schema(schema.show_query)
def show(req, server_id, id):
    volume_id = id
    instance = _instance(req, server_id, "show")
    return {"volumeAttachment": view(req, _bdm(instance, server_id,
                                               volume_id), server_id)}


@_errors("attach_volume")
def _attach(req, server_id):
    body = req.json_body["volumeAttachment"]
    instance = _instance(req, server_id, "create")
    _check_shelved(req, instance, "attach_volume")
    dot = body.get("delete_on_termination", False)
    return attach_api.attach_volume(
        req.context, instance, body["volumeId"], device=body.get("device"),
        tag=body.get("tag"),
        delete_on_termination=strutils.bool_from_string(dot, strict=True))


@wsgi.expose(max_version="2.100", name="volume_attachments.create")
@validation.schema(schema.create, "2.1", "2.48")
@validation.schema(schema.create_v249, "2.49", "2.78")
@validation.schema(schema.create_v279, "2.79")
def create(req, server_id):
    bdm = _attach(req, server_id=server_id)
    out = {"id": bdm.volume_id, "serverId": server_id,
           "volumeId": bdm.volume_id}
    if bdm.device_name:
        out["device"] = bdm.device_name
    if req.version_matches("2.70"):
        out["tag"] = bdm.tag
    if req.version_matches("2.79"):
        out["delete_on_termination"] = bdm.delete_on_termination
    return {"volumeAttachment": out}


@wsgi.expose(min_version="2.101", status=202,
             name="volume_attachments.create")
@validation.schema(schema.create_v279)
def create_v2101(req, server_id):
    _attach(req, server_id=server_id)
    return None


@wsgi.expose(status=202, name="volume_attachments.update")
@validation.schema(schema.update, "2.1", "2.84")
@validation.schema(schema.update_v285, "2.85")
@_errors("swap_volume")
def update(req, server_id, id):
    volume_id = id
    body = req.json_body["volumeAttachment"]
    swap = not req.version_matches("2.85") or body["volumeId"] != volume_id
    found = servers_handler.locate(req, server_id)
    if swap:
        # Cinder calls this for a volume migration, with its own project:
        # the rule is checked without the server's project as target.
        policy.authorize(req.context, names.ATTACHMENTS % "swap", {})
    else:
        servers_handler.authorize_server(req, names.ATTACHMENTS % "update",
                                         found)
    instance = found.instance
    if req.version_matches("2.85"):
        _update_properties(instance, server_id, volume_id, body, req)
    if swap:
        old = attach_api.volume_api().get(req.context, volume_id)
        if not old.get("migration_status"):
            raise webob.exc.HTTPConflict(
                explanation=f"volume {volume_id} is not migrating; this API "
                            f"should only be called by Cinder")
        # keel's drivers have no swap_volume: refuse before any change.
        raise webob.exc.HTTPBadRequest(
            explanation="Swapping volumes is not supported by the compute "
                        "driver.")
    return None


def _update_properties(instance, server_id, volume_id, body, req):
    """2.85: only delete_on_termination may change; the others must keep
    their values (Nova's "not mutable" answers)."""
    bdm = _bdm(instance, server_id, volume_id)
    for key, current in (("id", volume_id), ("serverId", instance.uuid),
                         ("device", bdm.device_name), ("tag", bdm.tag)):
        if key in body and body[key] != current:
            raise webob.exc.HTTPBadRequest(
                explanation=f"The {key} property is not mutable")
    if "delete_on_termination" in body:
        attach_api.update_delete_on_termination(
            req.context, instance, bdm, strutils.bool_from_string(
                body["delete_on_termination"], strict=True))


@wsgi.expose(status=202, name="volume_attachments.delete")
@_errors("detach_volume")
def delete(req, server_id, id):
    volume_id = id
    instance = _instance(req, server_id, "delete")
    _check_shelved(req, instance, "detach_volume")
    # Nova looks the volume up first: an unknown volume is its 404.
    attach_api.volume_api().get(req.context, volume_id)
    bdm = _bdm(instance, server_id, volume_id)
    if bdm.is_root:
        raise webob.exc.HTTPBadRequest(
            explanation="Cannot detach a root device volume")
    attach_api.detach_volume(req.context, instance, bdm)
    return None


def route_entries():
    base = "/servers/{server_id}/os-volume_attachments"
    return {base: {"GET": index, "POST": create},
            base + "/{id}": {"GET": show, "PUT": update, "DELETE": delete}}
