"""os-services bodies: one service record per microversion."""
from keel.compute_api import host_api

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"


def isotime(value):
    """Nova's JSON form of a naive UTC datetime: microseconds, no zone."""
    if value is None:
        return None
    return value.replace(tzinfo=None).strftime(TIME_FORMAT)


def _get(svc, name, default=None):
    return getattr(svc, name) if svc.obj_attr_is_set(name) else default


def service(req, svc, cell_down_support=False):
    """The service dict; a record from a down cell (no uuid) gets Nova's
    minimal ``{binary, host, status: UNKNOWN}`` from 2.69."""
    if cell_down_support and not svc.obj_attr_is_set("uuid"):
        return {"binary": svc.binary, "host": svc.host, "status": "UNKNOWN"}
    uuid_ids = req.version_matches("2.53")
    body = {
        "binary": svc.binary,
        "host": svc.host,
        "id": svc.uuid if uuid_ids else svc.id,
        "zone": _get(svc, "availability_zone"),
        "status": "disabled" if svc.disabled else "enabled",
        "state": "up" if host_api.is_up(svc) else "down",
        "updated_at": isotime(_get(svc, "updated_at")),
        "disabled_reason": svc.disabled_reason,
    }
    if req.version_matches("2.11"):
        body["forced_down"] = bool(svc.forced_down)
    return body
