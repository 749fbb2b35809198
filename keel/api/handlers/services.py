"""os-services: list, enable/disable/force-down, delete.

Before 2.53 ``PUT /os-services/{action}`` names the action in the path and
the service by host and binary in the body; from 2.53 the path holds the
service uuid. Only nova-compute services can be updated.
"""
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import services as schema
from keel.api.views import services as view
from keel.compute_api import host_api
from keel import exception
from keel import policy

POLICY = "os_compute_api:os-services:%s"
# API services do not heartbeat through the servicegroup: never listed.
_API_BINARIES = ("nova-osapi_compute", "nova-metadata")


def _authorize(req, action):
    policy.authorize(req.context, POLICY % action, target={})


@wsgi.expose()
@validation.query_schema(schema.index_query, "2.1", "2.74")
@validation.query_schema(schema.index_query_v275, "2.75")
def index(req):
    _authorize(req, "list")
    down_support = req.version_matches("2.69")
    services = [s for s in host_api.service_get_all(
        req.context, cell_down_support=down_support)
        if s.binary not in _API_BINARIES]
    host = req.GET.get("host")
    binary = req.GET.get("binary")
    if host:
        services = [s for s in services if s.host == host]
    if binary:
        services = [s for s in services if s.binary == binary]
    return {"services": [view.service(req, s, down_support)
                         for s in services]}


def _not_compute(binary):
    return webob.exc.HTTPBadRequest(
        explanation=f"Updating a {binary} service is not supported. Only "
                    f"nova-compute services can be updated.")


def _check_for_evacuations(svc):
    if host_api.has_done_evacuations(svc._context, svc.host):
        raise webob.exc.HTTPBadRequest(
            explanation=f"Unable to force up host {svc.host} as `done` "
                        "evacuation migration records remain associated "
                        "with the host. Ensure the compute service has "
                        "been restarted, allowing these records to move to "
                        "`completed` before retrying this request.")


def _legacy_update(req, host, binary, changes):
    if binary != host_api.COMPUTE:
        raise _not_compute(binary)
    try:
        svc = host_api.service_get_by_host_and_binary(req.context, host,
                                                      binary)
    except (exception.HostBinaryNotFound,
            exception.HostMappingNotFound) as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    if changes.get("forced_down") is False:
        _check_for_evacuations(svc)
    for key, value in changes.items():
        setattr(svc, key, value)
    host_api.service_update(req.context, svc)


def _enable_disable(req, body, status, changes):
    answer = {"host": body["host"], "binary": body["binary"],
              "status": status}
    if changes.get("disabled_reason"):
        answer["disabled_reason"] = changes["disabled_reason"]
    _legacy_update(req, body["host"], body["binary"], changes)
    return {"service": answer}


def _enable(req, body):
    return _enable_disable(req, body, "enabled",
                           {"disabled": False, "disabled_reason": None})


def _disable(req, body):
    return _enable_disable(req, body, "disabled", {"disabled": True})


def _disable_log_reason(req, body):
    if "disabled_reason" not in body:
        raise webob.exc.HTTPBadRequest(
            explanation="Missing disabled reason field")
    return _enable_disable(req, body, "disabled",
                           {"disabled": True,
                            "disabled_reason": body["disabled_reason"]})


def _force_down(req, body):
    if "forced_down" not in body:
        raise webob.exc.HTTPBadRequest(
            explanation="Missing forced_down field")
    forced = strutils.bool_from_string(body["forced_down"])
    _legacy_update(req, body["host"], body["binary"],
                   {"forced_down": forced})
    return {"service": {"host": body["host"], "binary": body["binary"],
                        "forced_down": forced}}


_ACTIONS = {"enable": _enable, "disable": _disable,
            "disable-log-reason": _disable_log_reason}


@wsgi.expose(max_version="2.52", name="services.update")
@validation.schema(schema.update, "2.1", "2.10")
@validation.schema(schema.update_v211, "2.11", "2.52")
def update_legacy(req, id):
    _authorize(req, "update")
    actions = dict(_ACTIONS)
    if req.version_matches("2.11"):
        actions["force-down"] = _force_down
    action = actions.get(id)
    if action is None:
        raise webob.exc.HTTPNotFound(explanation="Unknown action")
    return action(req, req.json_body)


def _invalid_uuid(value):
    return webob.exc.HTTPBadRequest(explanation=f"Invalid uuid {value}")


@wsgi.expose(min_version="2.53", name="services.update")
@validation.schema(schema.update_v253)
def update(req, id):
    if not uuidutils.is_uuid_like(id):
        raise _invalid_uuid(id)
    _authorize(req, "update")
    body = req.json_body
    try:
        svc, _cctxt = host_api.service_get_by_id(req.context, id)
    except exception.ServiceNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    if svc.binary != host_api.COMPUTE:
        raise _not_compute(svc.binary)
    if body.get("status") == "enabled":
        if body.get("disabled_reason"):
            raise webob.exc.HTTPBadRequest(
                explanation="Specifying 'disabled_reason' with status "
                            "'enabled' is invalid.")
        svc.disabled = False
        svc.disabled_reason = None
    elif body.get("status") == "disabled":
        svc.disabled = True
        svc.disabled_reason = body.get("disabled_reason")
    if "forced_down" in body:
        svc.forced_down = strutils.bool_from_string(body["forced_down"],
                                                    strict=True)
        if svc.forced_down is False:
            _check_for_evacuations(svc)
    if not svc.obj_what_changed():
        raise webob.exc.HTTPBadRequest(
            explanation="No updates were requested. Fields 'status' or "
                        "'forced_down' should be specified.")
    host_api.service_update(req.context, svc)
    host_api.set_zones(req.context, [svc])
    return {"service": view.service(req, svc)}


@wsgi.expose(status=204)
def delete(req, id):
    _authorize(req, "delete")
    if req.version_matches("2.53"):
        if not uuidutils.is_uuid_like(id):
            raise _invalid_uuid(id)
    else:
        try:
            int(id)
        except ValueError:
            raise webob.exc.HTTPBadRequest(
                explanation="Invalid input received: id must be an integer")
    try:
        host_api.service_delete(req.context, id)
    except exception.ServiceNotFound:
        raise webob.exc.HTTPNotFound(explanation=f"Service {id} not found.")
    except exception.ServiceNotUnique:
        raise webob.exc.HTTPBadRequest(
            explanation=f"Service id {id} refers to multiple services.")
    return None


def route_entries():
    return {
        "/os-services": {"GET": index},
        "/os-services/{id}": {"PUT": update, "DELETE": delete},
    }
