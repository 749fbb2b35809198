"""Configuration: Nova's option groups and names, through oslo.config.

Every module in this package that defines ``register_opts(conf)`` and
``list_opts()`` is discovered automatically, so adding a group is adding a
module; there is no central list to keep in step.
"""
import importlib
import pkgutil

from oslo_config import cfg

CONF = cfg.CONF

_SKIP = {"opts", "utils"}


def group_modules():
    """The option modules of this package, in name order."""
    mods = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in _SKIP:
            continue
        mods.append(importlib.import_module(f"{__name__}.{info.name}"))
    return mods


def register_all(conf):
    for mod in group_modules():
        mod.register_opts(conf)


register_all(CONF)


def _apply_library_defaults():
    # Nova's defaults for the libraries (exchange "nova", CORS headers) hold
    # for every user of keel.conf, not only for commands that went through
    # keel.cmd.common: a tool or test that parses CONF itself must still
    # talk on the "nova" exchange.
    from keel.conf import defaults
    defaults.set_library_defaults(CONF)


_apply_library_defaults()
