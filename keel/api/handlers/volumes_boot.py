"""/os-volumes_boot: the servers API under its old name (2.1 - 2.102).

Nova routes it to a subclass of the servers controller, so it answers
exactly as ``/servers`` does (list, detail, show, create, update, delete
and the controller's own body actions), and from 2.103 every method
answers 404. Here the ``/servers`` handlers are served again through the
route table, each capped at 2.102; nothing is copied.

Only the actions Nova's servers controller itself defines are served on
``/os-volumes_boot/{id}/action`` (the ones of the other server controllers
- lock, pause, shelve, migrate ... - are not routed there): an action of
that list that is registered in ``server_actions`` is served with the
same handler, any other key is "There is no such action".
"""
import functools

from keel.api import microversion
from keel.api import wsgi
from keel.api.handlers import server_actions

LAST_VERSION = "2.102"

# Nova's ServersController body actions (routes.json's os-volumes_boot
# action list).
ACTIONS = ("confirmResize", "createImage", "reboot", "rebuild", "resize",
           "revertResize", "os-start", "os-stop", "trigger_crash_dump")

_PATHS = {"/servers": "/os-volumes_boot",
          "/servers/detail": "/os-volumes_boot/detail",
          "/servers/{id}": "/os-volumes_boot/{id}"}


def _capped_records(records, last):
    """The schema records of an implementation, cut at ``last`` (records
    starting after it describe versions this route never serves)."""
    kept = []
    for rec in records:
        lo = rec["min_version"]
        if lo and microversion.as_version(lo) > last:
            continue
        hi = rec["max_version"]
        if hi is None or microversion.as_version(hi) > last:
            rec = dict(rec, max_version=str(last))
        kept.append(rec)
    return kept


def _delegate(func, last):
    @functools.wraps(func)
    def serve(req, **kwargs):
        return func(req, **kwargs)
    serve.__keel_schemas__ = _capped_records(
        getattr(func, "__keel_schemas__", ()), last)
    return serve


def capped(handler, last=LAST_VERSION):
    """A VersionedHandler with ``handler``'s implementations up to
    ``last`` (404 after it, as for any version nothing covers)."""
    last = microversion.as_version(last)
    out = wsgi.VersionedHandler(f"{handler.name}@os-volumes_boot")
    for lo, hi, func, status in handler.impls:
        if lo > last:
            continue
        out.impls.append((lo, last if hi is None or hi > last else hi,
                          _delegate(func, last), status))
    return out


class VolumesBootActions(wsgi.ActionDispatcher):
    """The servers controller's actions, looked up in the live registry
    at each request (so actions registered later are served too)."""

    def __init__(self):
        super().__init__({})
        self._cache = {}

    @property
    def actions(self):
        live = server_actions.registered()
        out = {}
        for name in ACTIONS:
            handler = live.get(name)
            if handler is None:
                continue
            cached = self._cache.get(name)
            if cached is None or cached[0] is not handler:
                cached = self._cache[name] = (handler, capped(handler))
            out[name] = cached[1]
        return out

    @actions.setter
    def actions(self, value):
        pass  # the live registry is the only source


def route_entries(routes):
    """``{path: {method: handler}}`` from the ``/servers`` entries of the
    (already assembled) ``routes`` table."""
    table = {}
    for servers_path, path in _PATHS.items():
        table[path] = {method: capped(handler) for method, handler
                       in routes.get(servers_path, {}).items()}
    table["/os-volumes_boot/{id}/action"] = {"POST": VolumesBootActions()}
    return table
