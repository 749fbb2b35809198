"""Send a requests Session's calls for one base URL to a WSGI app in-process.

The all-in-one serves Placement's WSGI application in its own process; its
scheduler and computes reached it over a loopback socket (requests,
http.client, cheroot's parser and a hand-off to a cheroot worker thread per
call, all under one GIL).  ``register(base_url, app)`` makes every
:class:`keel.clients.http_session.EnvCachingSession` whose request URL lies
under ``base_url`` call ``app`` directly in the calling thread instead, with
the same HTTP semantics: the request becomes a PEP 3333 environ as cheroot
would build it (app mounted at the root, Host header, Content-Length, raw
query string), and the status, headers and body come back as a
``requests.Response``.  The app's middleware runs as before; the port keeps
serving other clients.

Hand-written rather than ``requests-wsgi-adapter`` (last release 2019,
unmaintained) or ``wsgi-intercept`` (patches http.client process-wide and
keeps the HTTP parsing this exists to skip).
"""
import io
import logging
import sys
import threading
from urllib.parse import unquote_to_bytes, urlsplit

import requests
from requests import adapters
from requests import structures
from requests import utils as requests_utils
from oslo_context import context as oslo_context

LOG = logging.getLogger(__name__)

# base URL (lower case, no trailing slash) -> WSGIAdapter
_REGISTRY = {}
_REGISTRY_LOCK = threading.Lock()

# Headers the WSGI environ carries without an HTTP_ prefix (PEP 3333).
_UNPREFIXED = {"CONTENT_TYPE", "CONTENT_LENGTH"}
# Responses that carry no body whatever the app returned (RFC 9110).
_NO_BODY_STATUS = {204, 304}


class WSGIAdapter(adapters.BaseAdapter):
    """A requests transport adapter that calls a WSGI application.

    ``max_concurrent`` bounds the calls inside ``app`` at once, as the
    HTTP server's worker threads did (its database pool is sized for them).
    """

    def __init__(self, app, max_concurrent=8):
        super().__init__()
        self.app = app
        self._slots = threading.BoundedSemaphore(max_concurrent)

    def send(self, request, stream=False, timeout=None, verify=True,
             cert=None, proxies=None):
        environ = self._environ(request)
        with self._slots:
            status, headers, body = self._call(environ)
        return self._response(request, status, headers, body)

    def close(self):
        pass

    # -- request -------------------------------------------------------------
    @staticmethod
    def _body_bytes(body):
        if body is None:
            return b""
        if isinstance(body, bytes):
            return body
        if isinstance(body, str):
            # What http.client puts on the wire for a str body.
            return body.encode("iso-8859-1")
        if hasattr(body, "read"):
            data = body.read()
            return data.encode("iso-8859-1") if isinstance(data, str) \
                else data
        return b"".join(part.encode("iso-8859-1") if isinstance(part, str)
                        else part for part in body)

    def _environ(self, request):
        parts = urlsplit(request.url)
        body = self._body_bytes(request.body)
        scheme = parts.scheme or "http"
        port = parts.port or (443 if scheme == "https" else 80)
        environ = {
            "REQUEST_METHOD": request.method.upper(),
            "SCRIPT_NAME": "",
            # The server mounts the app at its root and hands it the
            # percent-decoded path as latin-1 text (PEP 3333).
            "PATH_INFO": unquote_to_bytes(parts.path or "/").decode(
                "iso-8859-1"),
            "QUERY_STRING": parts.query,
            "SERVER_NAME": parts.hostname or "localhost",
            "SERVER_PORT": str(port),
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": parts.netloc,
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": scheme,
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for name, value in request.headers.items():
            key = name.upper().replace("-", "_")
            if key not in _UNPREFIXED:
                key = "HTTP_" + key
            if isinstance(value, bytes):
                value = value.decode("iso-8859-1")
            if key in environ and key != "HTTP_HOST":
                environ[key] += "," + value
            else:
                environ[key] = value
        if body or "CONTENT_LENGTH" in environ:
            environ["CONTENT_LENGTH"] = str(len(body))
        return environ

    # -- the call ------------------------------------------------------------
    def _call(self, environ):
        started = {}

        def start_response(status, headers, exc_info=None):
            # Nothing is sent before the body is collected, so a later call
            # (an error page, with exc_info) simply replaces the headers.
            started["status"] = status
            started["headers"] = headers
            return lambda data: chunks.append(data)

        chunks = []
        # The app runs in the caller's thread: keep the caller's oslo
        # context (its request id in logs), which the app's own context
        # would otherwise replace in the thread-local store.
        store = oslo_context._request_store
        caller_context = getattr(store, "context", None)
        try:
            result = self.app(environ, start_response)
            try:
                chunks.extend(result)
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()
        except Exception:
            # What the HTTP server answers for an app that raised.
            LOG.exception("WSGI application raised for %s %s",
                          environ["REQUEST_METHOD"], environ["PATH_INFO"])
            text = b"The server encountered an unexpected condition " \
                   b"which prevented it from fulfilling the request."
            return ("500 Internal Server Error",
                    [("Content-Type", "text/plain"),
                     ("Content-Length", str(len(text)))], text)
        finally:
            if caller_context is None:
                if hasattr(store, "context"):
                    del store.context
            else:
                store.context = caller_context
        if not started:
            raise RuntimeError("WSGI application did not call start_response")
        return started["status"], started["headers"], b"".join(chunks)

    # -- response ------------------------------------------------------------
    @staticmethod
    def _response(request, status, headers, body):
        code, _, reason = status.partition(" ")
        response = requests.Response()
        response.status_code = int(code)
        response.reason = reason
        merged = structures.CaseInsensitiveDict()
        for name, value in headers:
            # Repeated fields are joined, as urllib3 presents them.
            if name in merged:
                merged[name] = merged[name] + ", " + value
            else:
                merged[name] = value
        if (request.method.upper() == "HEAD"
                or response.status_code in _NO_BODY_STATUS
                or 100 <= response.status_code < 200):
            body = b""
        if "content-length" not in merged:
            merged["Content-Length"] = str(len(body))
        response.headers = merged
        response.encoding = requests_utils.get_encoding_from_headers(merged)
        response.raw = io.BytesIO(body)
        response._content = body
        response._content_consumed = True
        response.url = request.url
        response.request = request
        response.connection = None
        return response


def _key(base_url):
    return base_url.rstrip("/").lower()


def register(base_url, app, max_concurrent=8):
    """Route sessions' requests under ``base_url`` to ``app`` in-process."""
    with _REGISTRY_LOCK:
        _REGISTRY[_key(base_url)] = WSGIAdapter(app, max_concurrent)


def unregister(base_url):
    with _REGISTRY_LOCK:
        _REGISTRY.pop(_key(base_url), None)


def adapter_for(url):
    """The in-process adapter for ``url``, or None (use the network)."""
    if not _REGISTRY:
        return None
    lowered = url.lower()
    for base, adapter in list(_REGISTRY.items()):
        if lowered == base or lowered.startswith(base + "/") \
                or lowered.startswith(base + "?"):
            return adapter
    return None
