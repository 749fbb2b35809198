"""shelve, shelveOffload and unshelve on POST /servers/{id}/action
(Nova's os-shelve), with Nova's policies, schemas and error answers."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power as power_handler
from keel.api.schemas import server_shelve as schema
from keel.compute_api import server_shelve as shelve_api
from keel import exception
from keel import policy
from keel.policies import server_shelve as names


def _run(action, id, call, *args, **kwargs):
    """``call`` with Nova's answers for the shelve family (the unshelve
    ones first: UnshelveInstanceInvalidState is an InstanceInvalidState
    whose own words Nova returns)."""
    def guarded():
        try:
            return call(*args, **kwargs)
        except (exception.UnshelveInstanceInvalidState,
                exception.UnshelveHostNotInAZ,
                exception.MismatchVolumeAZException) as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except (exception.InvalidRequest,
                exception.ComputeHostNotFound) as exc:
            raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
        except exception.OverQuota as exc:
            raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    return power_handler.run(action, id, guarded)


@server_actions.action("shelve")
@wsgi.expose(status=202, name="servers.shelve")
@validation.schema(schema.shelve)
def shelve(req, id):
    instance = power_handler.located(req, id, names.SHELVE, in_cell=True)
    _run("shelve", id, shelve_api.shelve, req.context, instance)
    return None


@server_actions.action("shelveOffload")
@wsgi.expose(status=202, name="servers.shelve_offload")
@validation.schema(schema.shelve_offload)
def shelve_offload(req, id):
    instance = power_handler.located(req, id, names.SHELVE_OFFLOAD,
                                     in_cell=True)
    _run("shelveOffload", id, shelve_api.shelve_offload, req.context,
         instance)
    return None


@server_actions.action("unshelve")
@wsgi.expose(status=202, name="servers.unshelve")
@validation.schema(schema.unshelve, "2.1", "2.76")
@validation.schema(schema.unshelve_v277, "2.77", "2.90")
@validation.schema(schema.unshelve_v291, "2.91")
def unshelve(req, id):
    instance = power_handler.located(req, id, names.UNSHELVE, in_cell=True)
    body = req.json_body["unshelve"]
    kwargs = {}
    if isinstance(body, dict) and body:
        if req.version_matches("2.77") and "availability_zone" in body:
            kwargs["new_az"] = body["availability_zone"]
        if req.version_matches("2.91"):
            kwargs["host"] = body.get("host")

    def authorize_host():
        policy.authorize(req.context, names.UNSHELVE_TO_HOST,
                         {"project_id": instance.project_id})

    _run("unshelve", id, shelve_api.unshelve, req.context, instance,
         authorize_host=authorize_host, **kwargs)
    return None
