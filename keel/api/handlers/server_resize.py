"""resize, confirmResize, revertResize and migrate on
POST /servers/{id}/action, with Nova's policies and error answers."""
import webob.exc

from keel.api import validation
from keel.api.handlers import server_actions
from keel.api.handlers import server_power as power_handler
from keel.api import wsgi
from keel.api.schemas import server_resize as schema
from keel.compute_api import server_resize as resize_api
from keel import exception
from keel.policies import server_moves as moves_names
from keel.policies import servers as server_names

_NOT_RESIZED = "Instance has not been resized."


def _run(action, id, call, *args, **kwargs):
    try:
        return power_handler.run(action, id, call, *args, **kwargs)
    except exception.OverQuota as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.ServiceUnavailable as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except exception.MigrationNotFound:
        raise webob.exc.HTTPBadRequest(explanation=_NOT_RESIZED)
    except exception.FlavorNotFound:
        raise webob.exc.HTTPBadRequest(
            explanation="Unable to locate requested flavor.")
    except exception.CannotResizeToSameFlavor:
        raise webob.exc.HTTPBadRequest(
            explanation="Resize requires a flavor change.")
    except (exception.CannotResizeDisk, exception.ComputeHostNotFound,
            exception.CannotMigrateToSameHost) as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@server_actions.action("resize")
@wsgi.expose(status=202, name="servers.resize")
@validation.schema(schema.resize)
def resize(req, id):
    flavor_ref = str(req.json_body["resize"]["flavorRef"])
    instance = power_handler.located(req, id, server_names.SERVERS %
                                     "resize", in_cell=True)
    _run("resize", id, resize_api.resize, req.context, instance,
         flavor_id=flavor_ref)
    return None


@server_actions.action("migrate")
@wsgi.expose(status=202, name="servers.migrate")
@validation.schema(schema.migrate, "2.1", "2.55")
@validation.schema(schema.migrate_v256, "2.56")
def migrate(req, id):
    body = req.json_body["migrate"] or {}
    host = body.get("host") if req.version_matches("2.56") else None
    instance = power_handler.located(req, id, moves_names.MIGRATE,
                                     in_cell=True)
    if host:
        power_handler.located(req, id, moves_names.MIGRATE_HOST)
    _run("migrate", id, resize_api.resize, req.context, instance,
         host_name=host)
    return None


@server_actions.action("confirmResize")
@wsgi.expose(status=204, name="servers.confirm_resize")
@validation.schema(schema.confirm_resize)
def confirm_resize(req, id):
    instance = power_handler.located(req, id, server_names.SERVERS %
                                     "confirm_resize", in_cell=True)
    _run("confirmResize", id, resize_api.confirm_resize, req.context,
         instance)
    return None


@server_actions.action("revertResize")
@wsgi.expose(status=202, name="servers.revert_resize")
@validation.schema(schema.revert_resize)
def revert_resize(req, id):
    instance = power_handler.located(req, id, server_names.SERVERS %
                                     "revert_resize", in_cell=True)
    _run("revertResize", id, resize_api.revert_resize, req.context,
         instance)
    return None
