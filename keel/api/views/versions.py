"""The version documents of ``/``, ``/v2.1/`` and ``/v2/``."""
import copy

from keel.api import microversion
from keel.api.views import links

DOCS_URL = "http://docs.openstack.org/"

VERSIONS = {
    "v2.0": {
        "id": "v2.0",
        "status": "DEPRECATED",
        "version": "",
        "min_version": "",
        "updated": "2025-07-04T12:00:00Z",
        "links": [{"rel": "describedby", "type": "text/html",
                   "href": DOCS_URL}],
        "media-types": [{
            "base": "application/json",
            "type": "application/vnd.openstack.compute+json;version=2"}],
    },
    "v2.1": {
        "id": "v2.1",
        "status": "CURRENT",
        "version": str(microversion.MAX_VERSION),
        "min_version": str(microversion.MIN_VERSION),
        "updated": "2013-07-23T11:33:21Z",
        "links": [{"rel": "describedby", "type": "text/html",
                   "href": DOCS_URL}],
        "media-types": [{
            "base": "application/json",
            "type": "application/vnd.openstack.compute+json;version=2.1"}],
    },
}


def _href(prefix, version_id, path=""):
    # v2.0 lives at /v2, every other id at its own name.
    segment = "v2.1" if version_id.startswith("v2.1") else "v2"
    return links.url_join(prefix, segment, path or "")


def version_list(req):
    prefix = links.compute_prefix(req)
    return {"versions": [{
        "id": v["id"], "status": v["status"], "version": v["version"],
        "min_version": v["min_version"], "updated": v["updated"],
        "links": [{"rel": "self", "href": _href(prefix, v["id"])}],
    } for _k, v in sorted(VERSIONS.items())]}


def choices(req):
    prefix = links.compute_prefix(req)
    return {"choices": [{
        "id": v["id"], "status": v["status"],
        "links": [{"rel": "self", "href": _href(prefix, v["id"], req.path)}],
        "media-types": copy.deepcopy(v["media-types"]),
    } for _k, v in sorted(VERSIONS.items())]}


def version(req, version_id):
    doc = copy.deepcopy(VERSIONS[version_id])
    self_href = links.compute_prefix(req).rstrip("/") + "/"
    doc["links"].insert(0, {"rel": "self", "href": self_href})
    return {"version": doc}
