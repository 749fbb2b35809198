"""Request and response helpers, and the handler decorator with microversions.

A handler is ``func(req, **path_args)`` returning a dict/list (sent as JSON
with the decorator's status), ``None`` (empty body), a ``Result`` (when the
handler picks its status or headers) or a ready ``webob.Response``.

``@expose(min_version, max_version, status)`` registers one implementation of
a named handler for a microversion range. Several functions with the same
name in one module become one dispatcher that picks by ``req.api_version``;
a version no implementation covers answers 404, as Nova does.
"""
import json

import webob
import webob.exc

from keel.api import microversion

JSON_TYPES = ("application/json", "application/vnd.openstack.compute+json")

# WSGI environ keys set by the middleware and the router.
ENV_CONTEXT = "keel.context"
ENV_VERSION = "keel.api_version"
ENV_LEGACY_V2 = "keel.legacy_v2"
ENV_BODY = "keel.json_body"


class Request(webob.Request):
    """webob Request with the API's per-request state as properties."""

    @property
    def context(self):
        return self.environ.get(ENV_CONTEXT)

    @property
    def api_version(self):
        return self.environ.get(ENV_VERSION, microversion.DEFAULT_VERSION)

    @property
    def is_legacy_v2(self):
        return bool(self.environ.get(ENV_LEGACY_V2))

    def version_matches(self, min_version=None, max_version=None):
        return self.api_version.matches(min_version, max_version)

    @property
    def json_body(self):
        """The parsed JSON body (the router parses it once), or None."""
        return self.environ.get(ENV_BODY)


class Result:
    """A handler's answer when the status or headers depend on the request."""

    __slots__ = ("body", "status", "headers")

    def __init__(self, body=None, status=200, headers=None):
        self.body = body
        self.status = status
        self.headers = headers or {}


def json_response(body, status=200, headers=None):
    """Nova's serialisation: ``Content-Type: application/json`` even when
    the body is empty (202/204 answers)."""
    data = b"" if body is None else json.dumps(body).encode("utf-8")
    resp = webob.Response(body=data, status=status)
    resp.headers["Content-Type"] = "application/json"
    for key, value in (headers or {}).items():
        resp.headers[key] = str(value)
    return resp


def to_response(result, default_status):
    if isinstance(result, webob.Response):
        return result
    if isinstance(result, Result):
        return json_response(result.body, result.status, result.headers)
    return json_response(result, default_status)


class VersionedHandler:
    """One API operation with implementations per microversion range."""

    def __init__(self, name):
        self.name = name
        self.impls = []  # (min Version, max Version|None, func, status)

    def add(self, func, min_version, max_version, status):
        lo = microversion.as_version(min_version)
        hi = microversion.as_version(max_version) if max_version else None
        for olo, ohi, ofunc, _s in self.impls:
            if (hi is None or olo <= hi) and (ohi is None or lo <= ohi):
                raise ValueError(f"{self.name}: {func.__name__} overlaps "
                                 f"{ofunc.__name__}")
        self.impls.append((lo, hi, func, status))
        self.impls.sort(key=lambda i: i[0])

    def select(self, version):
        for lo, hi, func, status in self.impls:
            if version >= lo and (hi is None or version <= hi):
                return func, status
        return None, None

    def __call__(self, req, **kwargs):
        func, status = self.select(req.api_version)
        if func is None:
            raise webob.exc.HTTPNotFound()
        return to_response(func(req, **kwargs), status)

    @property
    def min_version(self):
        return self.impls[0][0]

    @property
    def max_version(self):
        return self.impls[-1][1]

    def __repr__(self):
        return f"<VersionedHandler {self.name}>"


_REGISTRY = {}


def expose(min_version="2.1", max_version=None, status=200, name=None):
    """Register the decorated function for ``[min_version, max_version]``."""
    def decorator(func):
        key = name or f"{func.__module__}.{func.__qualname__}"
        handler = _REGISTRY.get(key)
        if handler is None:
            handler = _REGISTRY[key] = VersionedHandler(key)
        handler.add(func, min_version, max_version, status)
        return handler
    return decorator


class ActionDispatcher:
    """``POST …/action``: the single top-level body key picks the handler."""

    def __init__(self, actions):
        self.actions = dict(actions)

    def __call__(self, req, **kwargs):
        body = req.json_body
        if not isinstance(body, dict) or len(body) != 1:
            raise webob.exc.HTTPBadRequest(
                explanation="Malformed request body")
        action = next(iter(body))
        handler = self.actions.get(action)
        if handler is None:
            raise webob.exc.HTTPBadRequest(
                explanation=f"There is no such action: {action}")
        return handler(req, **kwargs)
