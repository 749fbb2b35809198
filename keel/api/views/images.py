"""Nova's image proxy views: basic (id, name, links) and detailed."""
from oslo_utils import strutils

from keel.api.views import links
from keel.conf import CONF
from keel.image import convert

# Glance status -> the API's.
_STATUS = {"active": "ACTIVE", "queued": "SAVING", "saving": "SAVING",
           "deleted": "DELETED", "pending_delete": "DELETED",
           "killed": "ERROR"}
_PROGRESS = {"queued": 25, "saving": 50, "active": 100}


def _alternate(req, glance_url, image_id):
    base = links.with_prefix(glance_url, CONF.api.glance_link_prefix)
    return links.url_join(base, "images", str(image_id))


def _links(req, image_id, glance_url):
    return links.resource_links(req, "images", image_id) + [
        {"rel": "alternate", "type": "application/vnd.openstack.image",
         "href": _alternate(req, glance_url, image_id)}]


def basic(req, image, glance_url):
    return {"id": image.get("id"), "name": image.get("name"),
            "links": _links(req, image["id"], glance_url)}


def show(req, image, glance_url):
    props = image.get("properties") or {}
    out = {
        "id": image.get("id"),
        "name": image.get("name"),
        "minRam": int(image.get("min_ram") or 0),
        "minDisk": int(image.get("min_disk") or 0),
        "metadata": props,
        "created": convert.isotime(image.get("created_at")),
        "updated": convert.isotime(image.get("updated_at")),
        "status": _STATUS.get(image.get("status"), "UNKNOWN"),
        "progress": _PROGRESS.get(image.get("status"), 0),
        "OS-EXT-IMG-SIZE:size": image.get("size"),
        "links": _links(req, image["id"], glance_url),
    }
    server = props.get("instance_uuid")
    if server is not None:
        # A snapshot names the server it was taken from.
        out["server"] = {"id": server,
                         "links": links.resource_links(req, "servers",
                                                       server)}
    disk_config = props.get("auto_disk_config")
    if disk_config is not None:
        out["OS-DCF:diskConfig"] = \
            "AUTO" if strutils.bool_from_string(disk_config) else "MANUAL"
    return out


def _list(req, images, glance_url, one):
    body = {"images": [one(req, i, glance_url) for i in images]}
    next_links = links.collection_links(req, images, "images", id_key="id")
    if next_links:
        body["images_links"] = next_links
    return body


def index(req, images, glance_url):
    return _list(req, images, glance_url, basic)


def detail(req, images, glance_url):
    return _list(req, images, glance_url, show)
