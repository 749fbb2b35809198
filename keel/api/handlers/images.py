"""Nova's image proxy: GET /images, /images/detail, GET and DELETE
/images/{id}, up to microversion 2.35 (404 above, as Nova).

Images come from Glance or from the local catalogue (keel.image.api). As in
Nova there is no policy check: the image service decides who sees what.
"""
import urllib.parse

import webob.exc

from keel.api import paging
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import images as schema
from keel.api.views import images as view
from keel import exception
from keel.image import api as image_api

MAX_VERSION = "2.35"
# Query parameter -> the image API's filter name (as Nova's).
SUPPORTED_FILTERS = {
    "name": "name",
    "status": "status",
    "changes-since": "changes-since",
    "server": "property-instance_uuid",
    "type": "property-image_type",
    "minRam": "min_ram",
    "minDisk": "min_disk",
}


def glance_url(req):
    """Base of the ``alternate`` links: Glance's URL, or, with the local
    catalogue, where a Glance on this host would listen."""
    url = image_api.glance_url(req.context)
    if url:
        return url
    host = urllib.parse.urlsplit(req.host_url).hostname or "localhost"
    if ":" in host:
        host = "[%s]" % host
    return "%s://%s:9292" % (req.scheme, host)


def _filters(req):
    filters = {}
    for param in req.params:
        if param in SUPPORTED_FILTERS or param.startswith("property-"):
            filters[SUPPORTED_FILTERS.get(param, param)] = \
                req.params.get(param)
    server = filters.get("property-instance_uuid")
    if server and "/" in server:
        # A server link is accepted too: keep its last segment.
        filters["property-instance_uuid"] = server.rsplit("/", 1)[1]
    if "status" in filters:
        filters["status"] = filters["status"].lower()
    return filters


def _page_params(req):
    params = paging.pagination_params(req)
    params.pop("offset", None)  # Nova hands Glance limit, marker, page_size
    return params


def _get_all(req):
    try:
        return image_api.get_api().get_all(
            req.context, filters=_filters(req), **_page_params(req))
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose(max_version=MAX_VERSION, name="images.index")
@validation.query_schema(schema.index_query)
def index(req):
    return view.index(req, _get_all(req), glance_url(req))


@wsgi.expose(max_version=MAX_VERSION, name="images.detail")
@validation.query_schema(schema.detail_query)
def detail(req):
    return view.detail(req, _get_all(req), glance_url(req))


@wsgi.expose(max_version=MAX_VERSION, name="images.show")
@validation.query_schema(schema.show_query)
def show(req, id):
    try:
        image = image_api.get_api().get(req.context, id)
    except (exception.ImageNotFound, exception.ImageNotAuthorized):
        raise webob.exc.HTTPNotFound(explanation="Image not found.")
    return {"image": view.show(req, image, glance_url(req))}


@wsgi.expose(max_version=MAX_VERSION, status=204, name="images.delete")
def delete(req, id):
    try:
        image_api.get_api().delete(req.context, id)
    except exception.ImageNotFound:
        raise webob.exc.HTTPNotFound(explanation="Image not found.")
    except exception.ImageNotAuthorized:
        raise webob.exc.HTTPForbidden(
            explanation="You are not allowed to delete the image.")
    except exception.ImageDeleteConflict as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())
    return None


def route_entries():
    """The image routes, image metadata included."""
    from keel.api.handlers import image_metadata
    table = {
        "/images": {"GET": index},
        "/images/detail": {"GET": detail},
        "/images/{id}": {"GET": show, "DELETE": delete},
    }
    table.update(image_metadata.route_entries())
    return table
