"""os-hosts (deprecated; 2.1 - 2.42, then 404): the hosts of every cell,
one host's resource usage, and the host-level compute calls.

PUT sets ``status`` (the compute's enable/disable: every compute answers
it) and/or ``maintenance_mode``; maintenance and the power actions
(GET .../reboot, .../shutdown, .../startup) are driver features, and a
driver without them is answered 501, as Nova answers.
"""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import hosts as schema
from keel.compute_api import os_hosts as hosts_api
from keel import exception
from keel.policies import os_hosts as names
from keel import policy

LAST_VERSION = "2.42"
_NOT_SUPPORTED = "The requested functionality is not supported."


def _authorize(req, action):
    policy.authorize(req.context, names.HOSTS % action, target={})


@wsgi.expose(max_version=LAST_VERSION)
@validation.query_schema(schema.index_query)
def index(req):
    _authorize(req, "list")
    zone = req.GET.get("zone")
    return {"hosts": [{"host_name": host, "service": topic, "zone": zone}
                      for host, topic, zone
                      in hosts_api.list_hosts(req.context, zone)]}


def _resource(host, project, cpu, memory_mb, disk_gb):
    return {"resource": {"host": host, "project": project, "cpu": cpu,
                         "memory_mb": memory_mb, "disk_gb": disk_gb}}


def _disk(instance):
    return (instance.root_gb or 0) + (instance.ephemeral_gb or 0)


@wsgi.expose(max_version=LAST_VERSION)
def show(req, id):
    _authorize(req, "show")
    try:
        node, instances = hosts_api.host_usage(req.context, id)
    except (exception.ComputeHostNotFound,
            exception.HostMappingNotFound) as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    resources = [
        _resource(id, "(total)", node.vcpus, node.memory_mb, node.local_gb),
        _resource(id, "(used_now)", node.vcpus_used, node.memory_mb_used,
                  node.local_gb_used),
        _resource(id, "(used_max)",
                  sum(i.vcpus or 0 for i in instances),
                  sum(i.memory_mb or 0 for i in instances),
                  sum(_disk(i) for i in instances)),
    ]
    per_project = {}
    for inst in instances:
        used = per_project.setdefault(inst.project_id, [0, 0, 0])
        used[0] += inst.vcpus or 0
        used[1] += inst.memory_mb or 0
        used[2] += _disk(inst)
    resources.extend(_resource(id, project, *used)
                     for project, used in per_project.items())
    return {"host": resources}


def _call(fn, req, host, arg, answers=None):
    """Nova's answers to a host call: 501 when the driver lacks it, 404
    for an unknown host, 400 when the compute is unavailable or answers
    something unexpected."""
    try:
        result = fn(req.context, host, arg)
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(explanation=_NOT_SUPPORTED)
    except (exception.ComputeHostNotFound,
            exception.HostMappingNotFound) as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.ComputeServiceUnavailable as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    if answers is not None and result not in answers:
        raise webob.exc.HTTPBadRequest(explanation=result)
    return result


@wsgi.expose(max_version=LAST_VERSION)
@validation.schema(schema.update)
def update(req, id):
    _authorize(req, "update")
    body = req.json_body
    status = body.get("status")
    mode = body.get("maintenance_mode")
    result = {"host": id}
    if status is not None:
        result["status"] = _call(
            hosts_api.set_host_enabled, req, id,
            status.strip().lower() == "enable", ("enabled", "disabled"))
    if mode is not None:
        result["maintenance_mode"] = _call(
            hosts_api.set_host_maintenance, req, id,
            mode.strip().lower() == "enable",
            ("on_maintenance", "off_maintenance"))
    return result


def _power(action, rule):
    @wsgi.expose(max_version=LAST_VERSION, name=f"{__name__}.{action}")
    def handler(req, id):
        _authorize(req, rule)
        result = _call(hosts_api.host_power_action, req, id, action)
        return {"host": id, "power_action": result}
    return handler


def route_entries():
    return {
        "/os-hosts": {"GET": index},
        "/os-hosts/{id}": {"GET": show, "PUT": update},
        "/os-hosts/{id}/reboot": {"GET": _power("reboot", "reboot")},
        "/os-hosts/{id}/shutdown": {"GET": _power("shutdown", "shutdown")},
        "/os-hosts/{id}/startup": {"GET": _power("startup", "start")},
    }
