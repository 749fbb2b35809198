"""Thin, fast WSGI wrappers around oslo.middleware's filters.

oslo.middleware's generic ``__call__`` inspects ``process_response``'s
signature on every request and builds webob Responses at each layer; these
subclasses keep the libraries' behaviour (and configuration) and skip that
per-request overhead, which matters on the hot path of every API call.
"""
import time

from oslo_log import log as logging
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
import webob

LOG = logging.getLogger("keel.api.requestlog")


class HTTPProxyToWSGI(http_proxy_to_wsgi.HTTPProxyToWSGI):
    """Fix scheme/host/script name from proxy headers, then pass through."""

    def __call__(self, environ, start_response):
        self.process_request(webob.Request(environ))
        return self.application(environ, start_response)


class CORS(cors.CORS):
    """oslo's CORS, answering pre-flights and decorating responses."""

    def __call__(self, environ, start_response):
        if "HTTP_ORIGIN" not in environ:  # not a cross-origin request
            return self.application(environ, start_response)
        req = webob.Request(environ)
        resp = self.process_request(req)
        if resp is None:
            resp = req.get_response(self.application)
            resp = self.process_response(resp, request=req)
        return resp(environ, start_response)


class RequestLog:
    """One INFO line per request, with status, size and microversion."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        start = time.monotonic()
        seen = {}

        def _start(status, headers, exc_info=None):
            seen["status"] = status.split(" ", 1)[0]
            for key, value in headers:
                lower = key.lower()
                if lower == "content-length":
                    seen["len"] = value
                elif lower == "x-openstack-nova-api-version":
                    seen["mv"] = value
            return start_response(status, headers, exc_info)

        result = self.application(environ, _start)
        if LOG.isEnabledFor(20):
            query = environ.get("QUERY_STRING")
            uri = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
            LOG.info('%(addr)s "%(method)s %(uri)s" status: %(status)s '
                     'len: %(len)s microversion: %(mv)s time: %(t).6f',
                     {"addr": environ.get("REMOTE_ADDR", "-"),
                      "method": environ.get("REQUEST_METHOD"),
                      "uri": uri + ("?" + query if query else ""),
                      "status": seen.get("status", "-"),
                      "len": seen.get("len", 0), "mv": seen.get("mv", "-"),
                      "t": time.monotonic() - start})
        return result
