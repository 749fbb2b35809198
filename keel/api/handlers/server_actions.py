"""POST /servers/{id}/action: one route, many actions, picked by the single
top-level key of the body (``{"forceDelete": null}``), as Nova's router.

Modules add actions to the registry::

    from keel.api.handlers import server_actions

    @server_actions.action("forceDelete")
    @wsgi.expose(status=202, name="servers.force_delete")
    @validation.schema(schema.force_delete)
    def force_delete(req, id): ...

or ``server_actions.register("os-start", handler)``. Every module that
registers actions is listed in ``ACTION_MODULES`` and imported by
``route_entries()``, so the route table is complete whatever was imported
before. A body with zero or several keys is "Malformed request body", an
unknown key "There is no such action: X" (both 400, Nova's words); an
action registered only for a later microversion answers 404.
"""
import importlib

from keel.api import wsgi

# The modules that register server actions (imported by route_entries).
ACTION_MODULES = (
    "keel.api.handlers.floating_ips",
    "keel.api.handlers.security_groups",
    "keel.api.handlers.server_delete",
    "keel.api.handlers.server_power",
    "keel.api.handlers.server_consoles",
    "keel.api.handlers.server_migrations",
    "keel.api.handlers.server_snapshot",
    "keel.api.handlers.server_resize",
    "keel.api.handlers.server_shelve",
    "keel.api.handlers.server_admin_actions",
    "keel.api.handlers.server_admin_password",
    "keel.api.handlers.server_multinic",
    "keel.api.handlers.server_rebuild",
    "keel.api.handlers.server_evacuate",
)

_ACTIONS = {}


def register(name, handler):
    """Serve body key ``name`` with ``handler(req, id)``; a second module
    claiming the same key is a programming error."""
    known = _ACTIONS.get(name)
    if known is not None and known is not handler:
        raise ValueError(f"server action {name!r} registered twice "
                         f"({known!r} and {handler!r})")
    _ACTIONS[name] = handler
    return handler


def action(name):
    """Decorator form of ``register`` (put it above ``@wsgi.expose``)."""
    def decorator(handler):
        return register(name, handler)
    return decorator


def registered():
    return dict(_ACTIONS)


def load_action_modules():
    for module in ACTION_MODULES:
        importlib.import_module(module)


def route_entries():
    load_action_modules()
    # The dispatcher shares the live registry: an action registered later
    # (a test, an optional module) is served without rebuilding routes.
    dispatcher = wsgi.ActionDispatcher({})
    dispatcher.actions = _ACTIONS
    return {"/servers/{id}/action": {"POST": dispatcher}}
