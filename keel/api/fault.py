"""Errors as Nova's clients expect them.

The body is ``{"<faultName>": {"code": N, "message": "..."}}``.

``fault_response`` builds that body for a status and message;
``from_exception`` maps what a handler may raise (keel exceptions by their
``code``, webob HTTP errors, validation errors) onto it; ``FaultWrapper`` is the outermost guard
that turns anything left over into a 500 ``computeFault`` and logs the
traceback, so no stack trace ever reaches a client.
"""
import json

from oslo_log import log as logging
import webob
import webob.exc

from keel import exception

LOG = logging.getLogger(__name__)

FAULT_NAMES = {
    400: "badRequest",
    401: "unauthorized",
    403: "forbidden",
    404: "itemNotFound",
    405: "badMethod",
    409: "conflictingRequest",
    413: "overLimit",
    415: "badMediaType",
    429: "overLimit",
    501: "notImplemented",
    503: "serviceUnavailable",
}
DEFAULT_FAULT_NAME = "computeFault"

# webob's stock explanation per status, e.g. 500's "The server has either
# erred or is incapable of performing the requested operation."
_WEBOB_BY_CODE = {cls.code: cls for cls in webob.exc.status_map.values()
                  if issubclass(cls, webob.exc.HTTPError)}


def default_message(status):
    cls = _WEBOB_BY_CODE.get(status, webob.exc.HTTPInternalServerError)
    return cls.explanation


def fault_response(status, message=None, headers=None):
    """A webob Response with Nova's fault body for ``status``."""
    name = FAULT_NAMES.get(status, DEFAULT_FAULT_NAME)
    body = {"code": status,
            "message": message if message else default_message(status)}
    extra = dict(headers or {})
    if status in (413, 429) and extra.get("Retry-After"):
        body["retryAfter"] = extra["Retry-After"]
    resp = webob.Response(status=status,
                          body=json.dumps({name: body}).encode("utf-8"),
                          content_type="application/json", charset="UTF-8")
    for key, value in extra.items():
        resp.headers[key] = str(value)
    return resp


def from_exception(exc, req=None):
    """The fault response for ``exc``; unknown exceptions become a 500."""
    if isinstance(exc, webob.exc.HTTPException):
        if exc.code < 400:  # redirects and the like are answers, not faults
            return exc
        headers = {k: v for k, v in exc.headers.items()
                   if k.lower() in ("retry-after", "location",
                                    "www-authenticate")}
        return fault_response(exc.code, exc.explanation, headers)
    if isinstance(exc, exception.NovaException):
        code = exc.code or 500
        if code >= 500 and not exc.safe:
            _log_unexpected(exc, req)
            return fault_response(code)
        return fault_response(code, exc.format_message(),
                              getattr(exc, "headers", None))
    _log_unexpected(exc, req)
    return fault_response(500)


def _log_unexpected(exc, req):
    url = req.url if req is not None else "?"
    LOG.error("Unexpected error serving %s", url, exc_info=exc)


class FaultWrapper:
    """WSGI middleware: the last line of defence against uncaught errors."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        try:
            return self.application(environ, start_response)
        except Exception as exc:  # noqa: BLE001 - the point of this class
            req = webob.Request(environ)
            return from_exception(exc, req)(environ, start_response)
