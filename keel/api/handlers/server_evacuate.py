"""evacuate on POST /servers/{id}/action (Nova's EvacuateController), with
Nova's policy, schemas and answers: 200 with ``{"adminPass": ...}`` before
2.14 (when [api]/enable_instance_password), no body from 2.14."""
from oslo_utils import strutils
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power as power_handler
from keel.api.schemas import server_evacuate as schema
from keel.compute_api import server_create_checks as checks
from keel.compute_api import server_evacuate as evacuate_api
from keel.conf import CONF
from keel import exception
from keel.policies import server_evacuate as names

STOPPED = "stopped"


def _bad(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def _password(req, body, on_shared_storage):
    password = body.get("adminPass")
    if not req.version_matches("2.14") and on_shared_storage and \
            password is not None:
        raise _bad("admin password can't be changed on existing disk")
    if password is None:
        password = checks.generate_password()
    return password



@server_actions.action("evacuate")
@wsgi.expose(status=200, name="servers.evacuate")
@validation.schemas(schema.BY_VERSION)
def evacuate(req, id):
    body = req.json_body["evacuate"]
    instance = power_handler.located(req, id, names.EVACUATE, in_cell=True)
    host = body.get("host")
    # From 2.95 an evacuated server always ends stopped.
    target_state = STOPPED if req.version_matches("2.95") else None
    on_shared_storage = None
    if not req.version_matches("2.14"):
        on_shared_storage = strutils.bool_from_string(
            body["onSharedStorage"])
    force = None
    if req.version_matches("2.29") and not req.version_matches("2.68"):
        force = strutils.bool_from_string(body.get("force", False),
                                          strict=True)
        if force and not host:
            raise _bad("Can't force to a non-provided destination")
    elif req.version_matches("2.68"):
        force = False
    password = _password(req, body, on_shared_storage)
    if host is not None:
        try:
            evacuate_api.check_host_exists(req.context, host)
        except (exception.ComputeHostNotFound,
                exception.HostMappingNotFound):
            raise webob.exc.HTTPNotFound(
                explanation=f"Compute host {host} not found.")
    if instance.host == host:
        raise _bad("The target host can't be the same one.")
    try:
        power_handler.run("evacuate", id, evacuate_api.evacuate,
                          req.context, instance, host, on_shared_storage,
                          admin_password=password, force=force,
                          target_state=target_state)
    except exception.ComputeServiceInUse as exc:
        raise _bad(exc.format_message())
    if not req.version_matches("2.14") and \
            CONF.api.enable_instance_password:
        return {"adminPass": password}
    return None
