"""changePassword on POST /servers/{id}/action (Nova's os-admin-password):
202 once the compute has set the password; the compute's refusals are
409, a driver that cannot set passwords 501."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power
from keel.api.schemas import server_admin_password as schema
from keel.compute_api import server_admin_password as password_api
from keel import exception
from keel.policies import admin_password as names

_REFUSALS = (exception.InstancePasswordSetFailed,
             exception.SetAdminPasswdNotSupported,
             exception.InstanceAgentNotEnabled)


def _set_password(ctx, instance, password):
    try:
        password_api.set_admin_password(ctx, instance, password)
    except _REFUSALS as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(
            explanation="Unable to set password on instance")


@server_actions.action("changePassword")
@wsgi.expose(status=202, name="servers.change_password")
@validation.schema(schema.change_password)
def change_password(req, id):
    instance = server_power.located(req, id, names.CHANGE_PASSWORD,
                                    in_cell=True)
    password = req.json_body["changePassword"]["adminPass"]
    server_power.run("changePassword", id, _set_password, req.context,
                     instance, password)
    return None
