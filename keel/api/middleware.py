"""Thin, fast WSGI wrappers around oslo.middleware's filters.

oslo.middleware's generic ``__call__`` inspects ``process_response``'s
signature on every request and builds webob Responses at each layer; these
subclasses keep the libraries' behaviour (and configuration) and skip that
per-request overhead, which matters on the hot path of every API call.
"""
import re
import time

from oslo_context import context as oslo_context
from oslo_log import log as logging
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
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


class ComputeRequestId(request_id.RequestId):
    """oslo's request id, also answered as Nova's x-compute-request-id.

    Same environ keys and headers as oslo's middleware (a caller's valid
    ``X-OpenStack-Request-ID`` becomes the global request id), without
    building a webob Response around every answer.
    """

    compat_headers = ["x-compute-request-id"]
    _GLOBAL_RE = re.compile(request_id.ID_FORMAT)

    def __call__(self, environ, start_response):
        inbound = environ.get("HTTP_X_OPENSTACK_REQUEST_ID", "")
        if self._GLOBAL_RE.match(inbound):
            environ[request_id.GLOBAL_REQ_ID] = inbound
        req_id = oslo_context.generate_request_id()
        environ[request_id.ENV_REQUEST_ID] = req_id
        names = [request_id.HTTP_RESP_HEADER_REQUEST_ID] + \
            self.compat_headers

        def _start(status, headers, exc_info=None):
            present = {k.lower() for k, _v in headers}
            headers = list(headers) + [(n, req_id) for n in names
                                       if n not in present]
            return start_response(status, headers, exc_info)
        return self.application(environ, _start)
