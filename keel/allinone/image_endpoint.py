"""A Glance v2 endpoint over the all-in-one's local image catalogue.

For what talks to an image service over HTTP when there is no Glance: the
openstack CLI (``server create --image NAME`` looks the image up in the
image service), openstacksdk's ``conn.image``, and KubeVirt's CDI, which
imports a root disk from ``/v2/images/{id}/file``. The keel services
themselves read the catalogue directly.

Covered: version discovery, list (filters, paging with ``next``), show,
create, JSON-patch update, delete, data upload and download. Callers are
authenticated as by the API's development mode: ``X-Auth-Token:
user:project`` picks the project, the roles come from
``[api]/development_roles``.
"""
import json
import re
import urllib.parse

from oslo_log import log as logging
import webob
import webob.dec
import webob.exc

from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel.image import convert
from keel.image import local

LOG = logging.getLogger(__name__)

PATCH_MEDIA_TYPE = "application/openstack-images-v2.1-json-patch"
_IMAGE = re.compile(r"^/v2/images/([^/]+)(/file)?/?$")
_CREATE_KEYS = ("id", "name", "disk_format", "container_format",
                "visibility", "min_ram", "min_disk", "protected", "tags",
                "owner", "os_hidden")
# Query parameters that are not filters.
_PAGING = ("limit", "marker", "sort_key", "sort_dir", "sort")


def _context(req):
    token = req.headers.get("X-Auth-Token") or ""
    roles = list(CONF.api.development_roles)
    user, _, project = token.partition(":")
    if not project:
        return keel_context.RequestContext(
            user_id="admin", project_id="admin", roles=roles,
            is_admin="admin" in roles)
    return keel_context.RequestContext(user_id=user or None,
                                       project_id=project, roles=roles,
                                       is_admin="admin" in roles)


def _json(body, status=200):
    return webob.Response(json=body, status=status,
                          content_type="application/json", charset=None)


def _shown(doc):
    doc = dict(doc)
    doc.pop("direct_url", None)
    doc.pop("locations", None)
    doc.setdefault("tags", [])
    doc.update({"self": "/v2/images/%s" % doc["id"],
                "file": "/v2/images/%s/file" % doc["id"],
                "schema": "/v2/schemas/image"})
    return doc


def _identity_version(req):
    """A Keystone v3 version document and nothing more: the openstack CLI
    checks the identity API version before ``server list`` even with
    OS_AUTH_TYPE=none, and the all-in-one has no Keystone. Its URL is the
    banner's OS_IDENTITY_ENDPOINT_OVERRIDE."""
    return _json({"version": {
        "id": "v3.14", "status": "stable", "updated": "2020-04-07T00:00:00Z",
        "links": [{"rel": "self", "href": req.host_url + "/identity/v3/"}],
        "media-types": [{"base": "application/json",
                         "type": "application/vnd.openstack.identity-v3+json"}],
    }})


class ImageEndpoint:
    def __init__(self, path):
        self.catalogue = local.LocalImageAPI(path)

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            return self._route(req)
        except webob.exc.HTTPException as exc:
            return exc
        except exception.ImageNotFound as exc:
            return webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.ImageNotAuthorized as exc:
            return webob.exc.HTTPForbidden(explanation=exc.format_message())
        except (exception.ImageBadRequest, exception.Invalid) as exc:
            return webob.exc.HTTPBadRequest(explanation=exc.format_message())
        except exception.ImageUnacceptable:
            return webob.Response(status=204)

    def _route(self, req):
        path = req.path_info
        if path in ("", "/", "/versions"):
            return self._versions(req)
        if path.rstrip("/") in ("/identity", "/identity/v3"):
            return _identity_version(req)
        if path.rstrip("/") == "/v2/images":
            if req.method == "GET":
                return self._list(req)
            if req.method == "POST":
                return self._create(req)
            raise webob.exc.HTTPMethodNotAllowed()
        match = _IMAGE.match(path)
        if not match:
            raise webob.exc.HTTPNotFound()
        image_id, is_file = match.group(1), bool(match.group(2))
        ctxt = _context(req)
        if is_file:
            if req.method == "GET":
                return self._download(ctxt, image_id)
            if req.method == "PUT":
                self.catalogue.update(ctxt, image_id, {},
                                      data=_body_chunks(req),
                                      purge_props=False)
                return webob.Response(status=204)
            raise webob.exc.HTTPMethodNotAllowed()
        if req.method == "GET":
            return _json(_shown(self.catalogue.document(ctxt, image_id)))
        if req.method == "DELETE":
            self.catalogue.delete(ctxt, image_id)
            return webob.Response(status=204)
        if req.method == "PATCH":
            if req.content_type != PATCH_MEDIA_TYPE:
                raise webob.exc.HTTPUnsupportedMediaType()
            ops = _load(req)
            if not isinstance(ops, list):
                raise webob.exc.HTTPBadRequest(
                    explanation="Request body must be a JSON array")
            return _json(_shown(self.catalogue.patch(ctxt, image_id, ops)))
        raise webob.exc.HTTPMethodNotAllowed()

    def _versions(self, req):
        href = req.host_url + "/v2/"
        body = {"versions": [{"id": "v2.16", "status": "CURRENT",
                              "links": [{"rel": "self", "href": href}]}]}
        return _json(body, 300 if req.path_info in ("", "/") else 200)

    def _list(self, req):
        ctxt = _context(req)
        docs = self.catalogue.documents(ctxt)
        for key, value in req.GET.items():
            if key in _PAGING:
                continue
            # Glance's "in:" operator (``openstack server list`` names the
            # servers' images with ?id=in:<id>,<id>).
            wanted = set(value[3:].split(",")) if value.startswith("in:") \
                else {value}
            docs = [d for d in docs if str(d.get(key)) in wanted]
        reverse = req.GET.get("sort_dir", "desc") == "desc"
        sort_key = req.GET.get("sort_key", "created_at")
        docs.sort(key=lambda d: (str(d.get(sort_key) or ""), d["id"]),
                  reverse=reverse)
        marker = req.GET.get("marker")
        if marker:
            ids = [d["id"] for d in docs]
            if marker not in ids:
                raise webob.exc.HTTPBadRequest(
                    explanation="marker not found")
            docs = docs[ids.index(marker) + 1:]
        try:
            limit = int(req.GET.get("limit", 25))
        except ValueError:
            raise webob.exc.HTTPBadRequest(explanation="limit is not int")
        if limit < 0:
            raise webob.exc.HTTPBadRequest(explanation="limit must be >= 0")
        body = {"images": [_shown(d) for d in docs[:limit]],
                "first": "/v2/images", "schema": "/v2/schemas/images"}
        if len(docs) > limit and limit:
            query = dict(req.GET.items())
            query["marker"] = docs[limit - 1]["id"]
            body["next"] = "/v2/images?" + urllib.parse.urlencode(query)
        return _json(body)

    def _create(self, req):
        body = _load(req)
        if not isinstance(body, dict):
            raise webob.exc.HTTPBadRequest(explanation="Invalid body")
        meta = {"properties": {}}
        for key, value in body.items():
            if key in _CREATE_KEYS:
                meta[key] = value
            elif key in convert.READ_ONLY:
                raise webob.exc.HTTPForbidden(
                    explanation="Attribute '%s' is read-only." % key)
            else:
                meta["properties"][key] = value
        doc = self.catalogue.create(_context(req), meta)
        return _json(_shown(self.catalogue.document(None, doc["id"])), 201)

    def _download(self, ctxt, image_id):
        doc = self.catalogue.document(ctxt, image_id)
        chunks = self.catalogue.download(ctxt, image_id)
        resp = webob.Response(app_iter=chunks,
                              content_type="application/octet-stream")
        if doc.get("size") is not None:
            resp.content_length = doc["size"]
        if doc.get("checksum"):
            resp.headers["Content-MD5"] = doc["checksum"]
        return resp


def _load(req):
    try:
        return json.loads(req.body or b"null")
    except ValueError:
        raise webob.exc.HTTPBadRequest(explanation="Malformed JSON")


def _body_chunks(req):
    body = req.body_file_raw
    remaining = req.content_length
    while remaining is None or remaining > 0:
        size = 65536 if remaining is None else min(65536, remaining)
        chunk = body.read(size)
        if not chunk:
            return
        if remaining is not None:
            remaining -= len(chunk)
        yield chunk
