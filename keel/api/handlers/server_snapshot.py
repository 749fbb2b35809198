"""createImage and createBackup on POST /servers/{id}/action (Nova's
servers.py _action_create_image and create_backup.py): 202 with the
image's URL in Location before 2.45, ``{"image_id": ...}`` from 2.45."""
import webob.exc

from keel.api import validation
from keel.api.handlers import server_actions
from keel.api.handlers import server_power as power_handler
from keel.api.schemas import server_snapshot as schema
from keel.api.views import links
from keel.api import wsgi
from keel.compute_api import server_snapshot as snapshot_api
from keel import exception
from keel.image import api as image_api
from keel.policies import server_moves as moves_names
from keel.policies import servers as server_names


def _image_url(req, image_id):
    """Glance's URL of the image (Nova's generate_image_url); the compute
    API's image proxy when images live in the local catalogue."""
    glance = image_api.glance_url(req.context)
    if glance:
        return links.url_join(glance, "images", str(image_id))
    return links.href(req, "images", image_id)


def _answer(req, image, located=True):
    image_id = str(image["id"])
    if req.version_matches("2.45"):
        return {"image_id": image_id}
    # A backup with rotation 0 is rotated away at once: no Location.
    headers = {"Location": _image_url(req, image_id)} if located else {}
    return wsgi.Result(None, status=202, headers=headers)


def _run(action, id, call, *args, **kwargs):
    try:
        return power_handler.run(action, id, call, *args, **kwargs)
    except exception.OverQuota:
        raise webob.exc.HTTPForbidden(
            explanation="Image metadata limit exceeded")
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@server_actions.action("createImage")
@wsgi.expose(status=202, name="servers.create_image")
@validation.schema(schema.create_image)
def create_image(req, id):
    body = req.json_body["createImage"]
    instance = power_handler.located(req, id,
                                     server_names.SERVERS % "create_image",
                                     in_cell=True)
    image = _run("createImage", id, snapshot_api.snapshot, req.context,
                 instance, body["name"],
                 extra_properties=body.get("metadata") or {})
    return _answer(req, image)


@server_actions.action("createBackup")
@wsgi.expose(status=202, name="servers.create_backup")
@validation.schema(schema.create_backup)
def create_backup(req, id):
    body = req.json_body["createBackup"]
    instance = power_handler.located(req, id, moves_names.CREATE_BACKUP,
                                     in_cell=True)
    image = _run("createBackup", id, snapshot_api.backup, req.context,
                 instance, body["name"], body["backup_type"],
                 int(body["rotation"]),
                 extra_properties=body.get("metadata") or {})
    return _answer(req, image, located=int(body["rotation"]) > 0)
