"""An OpenAPI 3.1 document of the API, generated from the route table.

Served without a token at ``GET /openapi.json`` (beside the root version
list). Request bodies and query parameters come from the schemas the
handlers validate with (keel.api.validation records them), so the document
cannot drift from what the service enforces. Where a schema changes with the
microversion, the operation lists every range under
``x-openstack-microversions`` and shows the newest as its schema.
"""
import functools
import re

from keel.api import microversion
from keel.api import routes
from keel.api import wsgi

_VAR_RE = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)\}")

FAULT = {
    "type": "object",
    "description": "Nova's error body: one key, the fault name.",
    "minProperties": 1, "maxProperties": 1,
    "additionalProperties": {
        "type": "object",
        "properties": {"code": {"type": "integer"},
                       "message": {"type": "string"}},
        "required": ["code", "message"],
    },
}

VERSION_HEADER = {
    "name": microversion.HEADER, "in": "header", "required": False,
    "description": "compute <major>.<minor> or 'compute latest'; "
                   f"{microversion.MIN_VERSION} when absent.",
    "schema": {"type": "string",
               "pattern": r"^compute (latest|[1-9][0-9]*\.(0|[1-9][0-9]*))$"},
}


def _impls(handler, action=None):
    """[(action, lo, hi, func, status)] for a route handler."""
    if isinstance(handler, wsgi.ActionDispatcher):
        out = []
        for name, sub in handler.actions.items():
            out.extend(_impls(sub, name))
        return out
    if isinstance(handler, wsgi.VersionedHandler):
        return [(action, lo, hi, f, st) for lo, hi, f, st in handler.impls]
    return [(action, microversion.MIN_VERSION, None, handler, 200)]


def _ranges(impls, kind):
    out = []
    for _a, lo, hi, func, _st in impls:
        for rec in getattr(func, "__keel_schemas__", ()):
            if rec["kind"] == kind:
                out.append({
                    "min": str(rec["min_version"] or lo),
                    "max": str(rec["max_version"] or hi)
                    if (rec["max_version"] or hi) else None,
                    "schema": rec["schema"]})
    return sorted(out, key=lambda r: microversion.as_version(r["min"]))


def _status_codes(impls):
    codes = set()
    for _a, _lo, _hi, func, status in impls:
        codes.add(410 if func.__name__ == "gone" else
                  501 if getattr(func, "not_implemented", False) else status)
    return sorted(codes)


def _operation(template, method, handler):
    impls = _impls(handler)
    params = [{"name": name, "in": "path", "required": True,
               "schema": {"type": "string"}}
              for name in _VAR_RE.findall(template)]
    params.append({"$ref": "#/components/parameters/microversion"})
    query = _ranges(impls, "query")
    if query:
        newest = query[-1]["schema"]
        for name, prop in newest.get("properties", {}).items():
            params.append({"name": name, "in": "query", "required": False,
                           "schema": prop.get("items", prop),
                           "explode": True})
    op = {
        "operationId": f"{method.lower()}{_op_name(template)}",
        "parameters": params,
        "responses": {str(code): {"description": "Success" if code < 400
                                  else "As Nova answers"}
                      for code in _status_codes(impls)},
    }
    op["responses"]["default"] = {
        "description": "Error (Nova fault body)",
        "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Fault"}}}}
    lo = min(i[1] for i in impls)
    his = [i[2] for i in impls]
    op["x-openstack-min-version"] = str(lo)
    if all(his):
        op["x-openstack-max-version"] = str(max(his))
    actions = sorted({i[0] for i in impls if i[0]})
    if actions:
        op["x-openstack-actions"] = actions
    body = _ranges(impls, "body")
    if body:
        op["requestBody"] = {"required": True, "content": {
            "application/json": {"schema": body[-1]["schema"]}}}
        op["x-openstack-microversions"] = body
    elif actions:
        op["requestBody"] = {"required": True, "content": {
            "application/json": {"schema": {
                "type": "object", "minProperties": 1, "maxProperties": 1,
                "propertyNames": {"enum": actions}}}}}
    return op


def _op_name(template):
    words = re.split(r"[^a-zA-Z0-9]+", template)
    return "".join(w[:1].upper() + w[1:] for w in words if w) or "Root"


def build(table=None):
    paths = {}
    for template, methods in (routes.ROUTES if table is None
                              else table).items():
        item = paths.setdefault(template, {})
        for method, handler in sorted(methods.items()):
            item[method.lower()] = _operation(template, method, handler)
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "OpenKeel Compute API (Nova Compute API v2.1)",
            "version": str(microversion.MAX_VERSION),
            "description": "Every path is also served under a leading "
                           "/{project_id}. Microversions "
                           f"{microversion.MIN_VERSION} to "
                           f"{microversion.MAX_VERSION}.",
        },
        "servers": [{"url": "/v2.1"}],
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": {"Fault": FAULT},
            "parameters": {"microversion": VERSION_HEADER},
            "securitySchemes": {"keystone": {
                "type": "apiKey", "in": "header", "name": "X-Auth-Token"}},
        },
        "security": [{"keystone": []}],
    }


@functools.lru_cache(maxsize=1)
def document():
    """The document for the service's own route table (built once)."""
    return build()
