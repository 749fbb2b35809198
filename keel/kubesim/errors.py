"""Kubernetes `Status` failures, raised inside the simulator and rendered by the HTTP layer.

Clients (the official one included) branch on `code` and `reason`, so those follow
apimachinery's `errors` package: NotFound/404, AlreadyExists/409, Conflict/409, Invalid/422,
Expired/410 and so on.
"""


class ApiError(Exception):
    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self):
        body = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": self.message,
                "reason": self.reason, "code": self.code}
        if self.details:
            body["details"] = self.details
        return body


def _qualified(rt):
    # apimachinery names a resource "plural.group" ("virtualmachines.kubevirt.io"), bare for core.
    return f"{rt.plural}.{rt.group}" if rt.group else rt.plural


def _details(rt, name):
    d = {"name": name, "kind": rt.plural}
    if rt.group:
        d["group"] = rt.group
    return d


def not_found(rt, name):
    return ApiError(404, "NotFound", f'{_qualified(rt)} "{name}" not found', _details(rt, name))


def namespace_not_found(ns):
    return ApiError(404, "NotFound", f'namespaces "{ns}" not found',
                    {"name": ns, "kind": "namespaces"})


def already_exists(rt, name):
    return ApiError(409, "AlreadyExists", f'{_qualified(rt)} "{name}" already exists',
                    _details(rt, name))


def conflict(rt, name, why="the object has been modified; please apply your changes "
                            "to the latest version and try again"):
    return ApiError(409, "Conflict",
                    f'Operation cannot be fulfilled on {_qualified(rt)} "{name}": {why}',
                    _details(rt, name))


def kv_conflict(resource, name, why):
    # virt-api builds its conflicts from a singular resource ("virtualmachine.kubevirt.io").
    return ApiError(409, "Conflict",
                    f'Operation cannot be fulfilled on {resource}.kubevirt.io "{name}": {why}',
                    {"name": name, "group": "kubevirt.io", "kind": resource})


def invalid(rt, name, causes):
    """causes: [(field, message)]; 422 as the API's validation failures are."""
    kind = rt.kind
    text = "; ".join(f"{f}: {m}" for f, m in causes)
    details = _details(rt, name)
    details["kind"] = kind
    details["causes"] = [{"reason": "FieldValueInvalid", "message": m, "field": f}
                         for f, m in causes]
    group = f".{rt.group}" if rt.group else ""
    return ApiError(422, "Invalid", f'{kind}{group} "{name}" is invalid: {text}', details)


def bad_request(message):
    return ApiError(400, "BadRequest", message)


def forbidden(message):
    return ApiError(403, "Forbidden", message)


def method_not_allowed(message="the server does not allow this method on the requested resource"):
    return ApiError(405, "MethodNotAllowed", message)


def unsupported_media_type(content_type):
    return ApiError(415, "UnsupportedMediaType",
                    f'the body of the request was in an unknown format - accepted media types '
                    f'include: application/json-patch+json, application/merge-patch+json '
                    f'(got "{content_type}")')


def gone(message):
    return ApiError(410, "Expired", message)


def internal(message):
    return ApiError(500, "InternalError", f"Internal error occurred: {message}")


def timeout(message):
    return ApiError(504, "Timeout", message)
