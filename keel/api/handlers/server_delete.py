"""DELETE /servers/{id} (204), and the restore / forceDelete actions of
deferred delete (202), with Nova's policies and error answers."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import server_delete as schema
from keel.compute_api import server_delete as delete_api
from keel.conf import CONF
from keel import exception
from keel.policies import deferred_delete as dd_names
from keel.policies import servers as names

# What the delete paths read besides the instance row (notifications).
_ATTRS = ["flavor", "system_metadata"]


def _conflict(exc, action, server_id):
    """Nova's 409 for a refused state: with the attribute and state when
    known, else the generic wording (a locked server under restore)."""
    attr, state = exc.kwargs.get("attr"), exc.kwargs.get("state")
    if attr is not None and state is not None:
        text = (f"Cannot '{action}' instance {server_id} while it is in "
                f"{attr} {state}")
    else:
        text = (f"Instance {server_id} is in an invalid state for "
                f"'{action}'")
    return webob.exc.HTTPConflict(explanation=text)


def _located(req, id, rule):
    located = servers_handler.locate(req, id, attrs=_ATTRS)
    servers_handler.authorize_server(req, rule, located)
    return located


@wsgi.expose(status=204, name="servers.delete")
def delete(req, id):
    ctx = req.context
    located = _located(req, id, names.SERVERS % "delete")
    try:
        if CONF.reclaim_instance_interval > 0:
            try:
                delete_api.soft_delete(ctx, located)
            except exception.InstanceInvalidState:
                # Never launched: nothing to keep, delete it for good.
                delete_api.delete(ctx, located)
        else:
            delete_api.delete(ctx, located)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation="Instance could not be found")
    except (exception.InstanceIsLocked,
            exception.AllocationDeleteFailed) as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.InstanceInvalidState as exc:
        raise _conflict(exc, "delete", id)
    return None


@server_actions.action("restore")
@wsgi.expose(status=202, name="servers.restore")
@validation.schema(schema.restore)
def restore(req, id):
    located = _located(req, id, dd_names.BASE % "restore")
    try:
        delete_api.restore(req.context, located)
    except exception.OverQuota as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.InstanceInvalidState as exc:
        raise _conflict(exc, "restore", id)
    return None


@server_actions.action("forceDelete")
@wsgi.expose(status=202, name="servers.force_delete")
@validation.schema(schema.force_delete)
def force_delete(req, id):
    located = _located(req, id, dd_names.BASE % "force")
    try:
        delete_api.force_delete(req.context, located)
    except exception.InstanceIsLocked as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.AllocationDeleteFailed as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    return None


def route_entries():
    return {"/servers/{id}": {"DELETE": delete}}
