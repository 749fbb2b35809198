"""Server actions of the power family on POST /servers/{id}/action:
os-start, os-stop, reboot, pause, unpause, suspend, resume, rescue,
unrescue, lock, unlock, trigger_crash_dump (2.17) and os-getConsoleOutput,
with Nova's policies, schemas and error answers."""
import re

import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import server_power as schema
from keel.compute_api import server_create_checks
from keel.compute_api import server_power as power_api
from keel.compute_api import server_rescue as rescue_api
from keel.conf import CONF
from keel import exception
from keel.policies import server_power as names
from keel.policies import servers as server_names

# What the compute side reads besides the row (notifications, networks,
# resume's old_vm_state): sent along so it needs no lazy loads.
_ATTRS = ["flavor", "system_metadata", "info_cache"]
# Control characters a console log may carry (Nova strips them).
_CONTROL = re.compile("[\x00-\x08\x0B-\x1F]")


def conflict(exc, action, server_id):
    """Nova's 409 for InstanceInvalidState."""
    attr, state = exc.kwargs.get("attr"), exc.kwargs.get("state")
    if attr is not None and state is not None:
        text = (f"Cannot '{action}' instance {server_id} while it is in "
                f"{attr} {state}")
    else:
        text = f"Instance {server_id} is in an invalid state for '{action}'"
    return webob.exc.HTTPConflict(explanation=text)


def located(req, id, rule, in_cell=False):
    """The authorized instance; ``in_cell``: one still waiting for the
    scheduler (only a BuildRequest) cannot take the action yet (409)."""
    found = servers_handler.locate(req, id, attrs=_ATTRS)
    servers_handler.authorize_server(req, rule, found)
    if in_cell and found.cell is None:
        raise webob.exc.HTTPConflict(
            explanation=f"Instance {id} is not ready")
    return found.instance


def run(action, id, call, *args, **kwargs):
    """``call`` with Nova's error mapping for the action ``action``."""
    try:
        return call(*args, **kwargs)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f"Instance {id} could not be found.")
    except (exception.InstanceIsLocked, exception.InstanceNotReady,
            exception.UnexpectedTaskStateError) as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.InstanceInvalidState as exc:
        raise conflict(exc, action, id)
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(
            explanation="Action not supported.")


def _action(body_key, policy, action, call, status=202, schema_=None,
            min_version="2.1"):
    """Register a body-less action: locate, authorize, call."""
    @server_actions.action(body_key)
    @wsgi.expose(status=status, min_version=min_version,
                 name=f"servers.{action}")
    @validation.schema(schema_)
    def handler(req, id):
        instance = located(req, id, policy)
        run(action, id, call, req.context, instance)
        return None
    return handler


start = _action("os-start", server_names.SERVERS % "start", "start",
                power_api.start, schema_=schema.start_server)
stop = _action("os-stop", server_names.SERVERS % "stop", "stop",
               power_api.stop, schema_=schema.stop_server)
pause = _action("pause", names.PAUSE % "pause", "pause", power_api.pause,
                schema_=schema.pause)
unpause = _action("unpause", names.PAUSE % "unpause", "unpause",
                  power_api.unpause, schema_=schema.unpause)
suspend = _action("suspend", names.SUSPEND % "suspend", "suspend",
                  power_api.suspend, schema_=schema.suspend)
resume = _action("resume", names.SUSPEND % "resume", "resume",
                 power_api.resume, schema_=schema.resume)
unrescue = _action("unrescue", names.UNRESCUE, "unrescue",
                   rescue_api.unrescue, schema_=schema.unrescue)
trigger_crash_dump = _action(
    "trigger_crash_dump", server_names.SERVERS % "trigger_crash_dump",
    "trigger_crash_dump", power_api.trigger_crash_dump,
    schema_=schema.trigger_crash_dump, min_version="2.17")


@server_actions.action("reboot")
@wsgi.expose(status=202, name="servers.reboot")
@validation.schema(schema.reboot)
def reboot(req, id):
    instance = located(req, id, server_names.SERVERS % "reboot")
    reboot_type = req.json_body["reboot"]["type"].upper()
    run("reboot", id, power_api.reboot, req.context, instance, reboot_type)
    return None


@server_actions.action("rescue")
@wsgi.expose(status=200, name="servers.rescue")
@validation.schema(schema.rescue)
def rescue(req, id):
    body = req.json_body["rescue"] or {}
    password = body.get("adminPass") or \
        server_create_checks.generate_password()
    instance = located(req, id, names.RESCUE)
    try:
        run("rescue", id, rescue_api.rescue, req.context, instance,
            rescue_password=password,
            rescue_image_ref=body.get("rescue_image_ref"),
            allow_bfv_rescue=req.version_matches("2.87"))
    except (exception.InstanceNotRescuable,
            exception.UnsupportedRescueImage) as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    if CONF.api.enable_instance_password:
        return {"adminPass": password}
    return {}


@server_actions.action("lock")
@wsgi.expose(status=202, name="servers.lock")
@validation.schema(schema.lock, "2.1", "2.72")
@validation.schema(schema.lock_v273, "2.73")
def lock(req, id):
    instance = located(req, id, names.LOCK % "lock", in_cell=True)
    reason = None
    body = req.json_body["lock"]
    if req.version_matches("2.73") and isinstance(body, dict):
        reason = body.get("locked_reason")
    run("lock", id, rescue_api.lock, req.context, instance, reason=reason)
    return None


@server_actions.action("unlock")
@wsgi.expose(status=202, name="servers.unlock")
@validation.schema(schema.unlock, "2.1", "2.72")
def unlock(req, id):
    found = servers_handler.locate(req, id, attrs=_ATTRS)
    servers_handler.authorize_server(req, names.LOCK % "unlock", found)
    if found.cell is None:
        raise webob.exc.HTTPConflict(
            explanation=f"Instance {id} is not ready")
    instance = found.instance
    if not rescue_api.is_expected_locked_by(req.context, instance):
        # Locked by someone else (an admin over an owner): a further rule.
        servers_handler.authorize_server(
            req, names.LOCK % "unlock:unlock_override", found)
    run("unlock", id, rescue_api.unlock, req.context, instance)
    return None


@server_actions.action("os-getConsoleOutput")
@wsgi.expose(status=200, name="servers.get_console_output")
@validation.schema(schema.get_console_output)
def get_console_output(req, id):
    instance = located(req, id, names.CONSOLE_OUTPUT)
    length = req.json_body["os-getConsoleOutput"].get("length")
    try:
        output = run("get_console_output", id, rescue_api.get_console_output,
                     req.context, instance, length)
    except exception.ConsoleNotAvailable as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return {"output": _CONTROL.sub("", output or "")}
