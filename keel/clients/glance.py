"""Glance v2 REST client on a keystoneauth1 session.

Options are Nova's ``[glance]`` ones: ``api_servers`` (tried in turn, as
Nova's client wrapper cycles them), else ``endpoint_override`` or the
service catalog (``service_type``, ``valid_interfaces``, ``region_name``).
Authentication: the ``[glance]`` auth plugin when ``auth_type`` is set,
else the caller's token and catalog from the request context (what Nova
does), else none (a Glance without authentication).

Every request carries the caller's ``X-OpenStack-Request-ID``. A request
that cannot reach Glance (connection refused or reset, timeout, 503) is
retried ``num_retries`` times, moving to the next api server, then raises
``GlanceConnectionFailed``. Other errors come back as ``HTTPError`` with
Glance's status; keel.image.glance translates them into Nova's
exceptions per call, as Nova does.
"""
import hashlib
import itertools
import logging
import random
import re
import threading
import time
import urllib.parse

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import plugin as ks_plugin

from keel import exception

LOG = logging.getLogger(__name__)

GROUP = "glance"
PATCH_MEDIA_TYPE = "application/openstack-images-v2.1-json-patch"
CHUNK = 64 * 1024
_VERSION_SUFFIX = re.compile(r"/v\d+(\.\d+)?/?$")


class HTTPError(Exception):
    """Glance answered with an error status."""

    def __init__(self, status, text, method=None, url=None):
        self.status = status
        self.text = text
        super().__init__("%s %s: %s %s" % (method, url, status, text))


class ContextAuth(ks_plugin.BaseAuthPlugin):
    """The request's own token, and its service catalog for endpoints."""

    def __init__(self, context):
        super().__init__()
        self.context = context

    def get_token(self, session, **kwargs):
        return self.context.auth_token

    def get_endpoint(self, session, service_type=None, interface=None,
                     region_name=None, **kwargs):
        interfaces = interface if isinstance(interface, (list, tuple)) \
            else [interface or "public"]
        for iface in interfaces:
            iface = (iface or "public").replace("URL", "")
            for svc in getattr(self.context, "service_catalog", None) or []:
                if svc.get("type") != service_type:
                    continue
                for ep in svc.get("endpoints", []):
                    if region_name and ep.get("region") not in (
                            region_name, None) and ep.get(
                            "region_id") != region_name:
                        continue
                    url = ep.get("url") or ep.get(iface + "URL")
                    if ep.get("interface", iface) == iface and url:
                        return url
        return None


def configured(conf):
    """Whether ``[glance]`` names an endpoint or credentials."""
    group = conf[GROUP]
    return bool(group.api_servers or group.endpoint_override or
                group.auth_type)


def strip_version(url):
    return _VERSION_SUFFIX.sub("", url.rstrip("/") + "/").rstrip("/")


def _global_id(context):
    if context is None:
        return None
    return getattr(context, "global_id", None) or getattr(
        context, "request_id", None)


class GlanceClient:
    """One method per Glance v2 call keel needs; documents as Glance sends
    them (flat properties)."""

    retry_interval = 1.0  # seconds between attempts, as Nova

    def __init__(self, conf=None):
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf
        self._session = None
        self._conf_auth = None
        self._lock = threading.Lock()
        servers = list(conf[GROUP].api_servers or [])
        random.shuffle(servers)
        self._servers = itertools.cycle(servers) if servers else None

    # -- transport -----------------------------------------------------------
    def _session_and_auth(self, context):
        with self._lock:
            if self._session is None:
                if self.conf[GROUP].auth_type:
                    self._conf_auth = ks_loading.load_auth_from_conf_options(
                        self.conf, GROUP)
                self._session = ks_loading.load_session_from_conf_options(
                    self.conf, GROUP, auth=self._conf_auth)
        if self._conf_auth is not None:
            return self._session, self._conf_auth
        if context is not None and getattr(context, "auth_token", None):
            from keel import service_auth
            return self._session, service_auth.get_auth_plugin(
                ContextAuth(context), self.conf)
        return self._session, None

    def _endpoint(self, session, auth):
        if self._servers is not None:
            server = next(self._servers)
            if "//" not in server:
                server = "http://" + server
            return strip_version(server)
        adap = ks_loading.load_adapter_from_conf_options(
            self.conf, GROUP, session=session, auth=auth)
        try:
            url = adap.get_endpoint()
        except ks_exc.ClientException:
            # No catalog to look in (no token, no auth plugin) or no image
            # service in it: no endpoint.
            url = None
        if not url:
            raise exception.GlanceConnectionFailed(
                server="(none)", reason="no Glance endpoint: set "
                "[glance]/endpoint_override or api_servers, or give a "
                "service catalog with an image service")
        return strip_version(url)

    def request(self, context, method, path, json=None, data=None,
                headers=None, params=None, stream=False, ok=(200,)):
        """One call, retried on connection failures; ``path`` starts with
        ``/v2``. Returns the response of a status in ``ok``."""
        session, auth = self._session_and_auth(context)
        hdrs = {"Accept": "application/json"}
        hdrs.update(headers or {})
        gid = _global_id(context)
        if gid:
            hdrs["X-OpenStack-Request-ID"] = gid
        attempts = 1 + self.conf[GROUP].num_retries
        for attempt in range(1, attempts + 1):
            base = None
            try:
                base = self._endpoint(session, auth)
                url = base + path
                if params:
                    url += "?" + urllib.parse.urlencode(params, doseq=True)
                resp = session.request(
                    url, method, json=json, data=data, headers=hdrs,
                    auth=auth, authenticated=auth is not None,
                    raise_exc=False, stream=stream,
                    logger=LOG if self.conf[GROUP].debug else None,
                    connect_retries=0)
                if resp.status_code == 503:
                    # Glance overloaded or restarting: retried as a
                    # connection failure, as Nova's client wrapper does.
                    resp.close()
                    raise ks_exc.ServiceUnavailable()
            except (ks_exc.ConnectionError, ks_exc.ServiceUnavailable,
                    ks_exc.EndpointNotFound) as exc:
                extra = "retrying" if attempt < attempts else "done trying"
                LOG.warning("Error contacting glance server '%s' for "
                            "'%s %s', %s.", base, method, path, extra)
                if attempt == attempts:
                    raise exception.GlanceConnectionFailed(
                        server=str(base), reason=str(exc))
                time.sleep(self.retry_interval)
                continue
            if resp.status_code not in ok:
                text = resp.text
                resp.close()
                raise HTTPError(resp.status_code, text, method, path)
            return resp

    # -- images ------------------------------------------------------------
    def get_image(self, context, image_id):
        return self.request(context, "GET", _image_path(image_id)).json()

    def list_images(self, context, params, limit=None):
        """All images matching ``params``, following ``next`` links until
        ``limit`` images (or all of them) are gathered."""
        params = dict(params)
        page_size = params.pop("page_size", None) or 20
        out = []
        while True:
            want = page_size if limit is None else min(page_size,
                                                       limit - len(out))
            params["limit"] = want
            body = self.request(context, "GET", "/v2/images",
                                params=params).json()
            images = body.get("images", [])
            out.extend(images)
            nxt = body.get("next")
            if not nxt or not images or (limit is not None and
                                         len(out) >= limit):
                return out
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(nxt).query)
            params["marker"] = query.get("marker", [images[-1]["id"]])[0]

    def create_image(self, context, doc):
        return self.request(context, "POST", "/v2/images", json=doc,
                            ok=(201,)).json()

    def patch_image(self, context, image_id, ops):
        return self.request(
            context, "PATCH", _image_path(image_id), json=ops,
            headers={"Content-Type": PATCH_MEDIA_TYPE}).json()

    def update_image(self, context, image_id, changes, remove=()):
        """JSON-patch ``changes`` (add or replace) and ``remove`` onto the
        image, as glanceclient builds the patch from the current image."""
        current = self.get_image(context, image_id)
        ops = []
        for key, value in changes.items():
            if key in current:
                if current[key] != value:
                    ops.append({"op": "replace", "path": "/" + key,
                                "value": value})
            else:
                ops.append({"op": "add", "path": "/" + key, "value": value})
        for key in remove:
            if key in current and key not in changes:
                ops.append({"op": "remove", "path": "/" + key})
        if not ops:
            return current
        return self.patch_image(context, image_id, ops)

    def add_location(self, context, image_id, url, metadata=None):
        return self.patch_image(context, image_id, [
            {"op": "add", "path": "/locations/-",
             "value": {"url": url, "metadata": metadata or {}}}])

    def delete_image(self, context, image_id):
        self.request(context, "DELETE", _image_path(image_id),
                     ok=(204,))

    def upload(self, context, image_id, data):
        """PUT the image data (bytes, a file object or an iterable of
        chunks: streamed, never read whole)."""
        if hasattr(data, "read"):
            body = iter(lambda: data.read(CHUNK), b"")
        else:
            body = data
        self.request(context, "PUT", _image_path(image_id, "/file"),
                     data=body, ok=(204,),
                     headers={"Content-Type": "application/octet-stream"})

    def download(self, context, image_id):
        """An iterator over the data, or None when the image has none."""
        resp = self.request(context, "GET", _image_path(image_id, "/file"),
                            stream=True, ok=(200, 204),
                            headers={"Accept": "application/octet-stream"})
        if resp.status_code == 204:
            resp.close()
            return None
        return _stream(resp)


def _image_path(image_id, suffix=""):
    # Quoted: an id from a request must not reach another Glance path.
    return "/v2/images/%s%s" % (urllib.parse.quote(str(image_id), safe=""),
                                suffix)


def _stream(resp):
    """The body in chunks, checked against Glance's Content-MD5 (as
    glanceclient does): a truncated or corrupted download raises IOError
    instead of leaving a bad disk behind."""
    expected = resp.headers.get("Content-MD5")
    md5 = hashlib.md5(usedforsecurity=False) if expected else None
    try:
        for chunk in resp.iter_content(CHUNK):
            if chunk:
                if md5 is not None:
                    md5.update(chunk)
                yield chunk
    finally:
        resp.close()
    if md5 is not None and md5.hexdigest() != expected:
        raise IOError("Corrupt image download. Checksum was %s expected %s"
                      % (md5.hexdigest(), expected))
