"""os-instance-actions bodies: ``updated_at`` from 2.58; events with
``hostId`` from 2.62 (plus ``host`` and ``traceback`` for those allowed to
see events in full) and ``details`` from 2.84 (where policy allows)."""
from keel.api.views.services import isotime
from keel.compute_api import instance_actions as actions_api

_KEYS = ("action", "instance_uuid", "request_id", "user_id", "project_id",
         "start_time", "message")
_TIMES = ("start_time", "finish_time", "updated_at")


def _value(obj, key):
    value = getattr(obj, key) if obj.obj_attr_is_set(key) else None
    return isotime(value) if key in _TIMES else value


def action(req, act):
    keys = _KEYS + (("updated_at",) if req.version_matches("2.58") else ())
    return {key: _value(act, key) for key in keys}


def event(evt, project_id, traceback=False, host=False, host_id=False,
          details=False):
    body = {key: _value(evt, key)
            for key in ("event", "start_time", "finish_time", "result")}
    if traceback:
        body["traceback"] = evt.traceback
    if host:
        body["host"] = evt.host
    if host_id:
        body["hostId"] = actions_api.host_id(evt.host, project_id)
    if details:
        body["details"] = evt.details
    return body
