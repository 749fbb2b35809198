"""/images/{image_id}/metadata: Nova's image metadata proxy, up to
microversion 2.38 (404 above). The image's properties, changed through the
image API; the number of items is held to ``[quota]/metadata_items``."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import images as schema
from keel.compute_api import quota
from keel import exception
from keel.image import api as image_api

MAX_VERSION = "2.38"


def _get_image(req, image_id):
    try:
        return image_api.get_api().get(req.context, image_id)
    except exception.ImageNotAuthorized as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.ImageNotFound:
        raise webob.exc.HTTPNotFound(explanation="Image not found.")


def _check_quota(req, metadata):
    if not metadata:
        return
    try:
        quota.limit_check(req.context, req.context.project_id,
                          metadata_items=len(metadata))
    except exception.OverQuota:
        raise webob.exc.HTTPForbidden(
            explanation="Image metadata limit exceeded")


def _save(req, image_id, image):
    try:
        return image_api.get_api().update(req.context, image_id, image,
                                          data=None, purge_props=True)
    except exception.ImageNotAuthorized as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.ImageNotFound:
        raise webob.exc.HTTPNotFound(explanation="Image not found.")
    except exception.ImageBadRequest as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose(max_version=MAX_VERSION, name="image_metadata.index")
def index(req, image_id):
    return {"metadata": _get_image(req, image_id)["properties"]}


@wsgi.expose(max_version=MAX_VERSION, name="image_metadata.show")
def show(req, image_id, id):
    metadata = _get_image(req, image_id)["properties"]
    if id not in metadata:
        raise webob.exc.HTTPNotFound()
    return {"meta": {id: metadata[id]}}


@wsgi.expose(max_version=MAX_VERSION, name="image_metadata.create")
@validation.schema(schema.metadata_create)
def create(req, image_id):
    image = _get_image(req, image_id)
    image["properties"].update(req.json_body["metadata"])
    _check_quota(req, image["properties"])
    return {"metadata": _save(req, image_id, image)["properties"]}


@wsgi.expose(max_version=MAX_VERSION, name="image_metadata.update_all")
@validation.schema(schema.metadata_update_all)
def update_all(req, image_id):
    image = _get_image(req, image_id)
    metadata = req.json_body["metadata"]
    _check_quota(req, metadata)
    image["properties"] = metadata
    _save(req, image_id, image)
    return {"metadata": metadata}


@wsgi.expose(max_version=MAX_VERSION, name="image_metadata.update")
@validation.schema(schema.metadata_update)
def update(req, image_id, id):
    meta = req.json_body["meta"]
    if id not in meta:
        raise webob.exc.HTTPBadRequest(
            explanation="Request body and URI mismatch")
    image = _get_image(req, image_id)
    image["properties"][id] = meta[id]
    _check_quota(req, image["properties"])
    _save(req, image_id, image)
    return {"meta": meta}


@wsgi.expose(max_version=MAX_VERSION, status=204,
             name="image_metadata.delete")
def delete(req, image_id, id):
    image = _get_image(req, image_id)
    if id not in image["properties"]:
        raise webob.exc.HTTPNotFound(explanation="Invalid metadata key")
    image["properties"].pop(id)
    _save(req, image_id, image)
    return None


def route_entries():
    return {
        "/images/{image_id}/metadata": {
            "GET": index, "POST": create, "PUT": update_all},
        "/images/{image_id}/metadata/{id}": {
            "GET": show, "PUT": update, "DELETE": delete},
    }
