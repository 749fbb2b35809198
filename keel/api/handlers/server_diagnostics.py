"""GET /servers/{server_id}/diagnostics (admin): the driver's free-form
dict before 2.48, the standard Diagnostics view from 2.48 (Nova's
server_diagnostics controller and view)."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_power
from keel.api.schemas import server_diagnostics as schema
from keel.compute_api import server_diagnostics as diagnostics_api
from keel import exception
from keel.policies import server_diagnostics as names

_PRIMITIVES = ("state", "driver", "hypervisor", "hypervisor_os", "uptime",
               "config_drive", "num_cpus", "num_nics", "num_disks")
_LISTS = {
    "cpu_details": ("id", "time", "utilisation"),
    "nic_details": ("mac_address", "rx_octets", "rx_errors", "rx_drop",
                    "rx_packets", "rx_rate", "tx_octets", "tx_errors",
                    "tx_drop", "tx_packets", "tx_rate"),
    "disk_details": ("read_bytes", "read_requests", "write_bytes",
                     "write_requests", "errors_count"),
}
_MEMORY = ("maximum", "used")


def _get(obj, name):
    return getattr(obj, name) if obj.obj_attr_is_set(name) else None


def diagnostics_view(diags):
    """The 2.48 body of a Diagnostics object."""
    body = {name: _get(diags, name) for name in _PRIMITIVES}
    for list_name, names in _LISTS.items():
        body[list_name] = [{n: _get(item, n) for n in names}
                           for item in (_get(diags, list_name) or [])]
    memory = _get(diags, "memory_details")
    body["memory_details"] = {n: _get(memory, n) if memory is not None
                              else None for n in _MEMORY}
    return body


def _diagnostics(req, server_id, instance):
    try:
        if req.version_matches("2.48"):
            return diagnostics_view(diagnostics_api.get_instance_diagnostics(
                req.context, instance))
        return diagnostics_api.get_diagnostics(req.context, instance)
    except exception.InstanceInvalidState as exc:
        raise server_power.conflict(exc, "get_diagnostics", server_id)
    except exception.InstanceNotReady as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(
            explanation="The requested functionality is not supported.")


@wsgi.expose(name="server_diagnostics.index")
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req, server_id):
    instance = server_power.located(req, server_id, names.SHOW)
    return _diagnostics(req, server_id, instance)


def route_entries():
    return {"/servers/{server_id}/diagnostics": {"GET": index}}
