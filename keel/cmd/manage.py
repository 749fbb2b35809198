"""``keel manage <category> <action> [args]``: nova-manage for keel.

Same categories, arguments, output and exit codes as Nova's nova-manage for
what keel implements. Categories live in ``keel/cmd/manage_<name>.py``
modules, found automatically; a module declares one with::

    from keel.cmd import manage

    @manage.category("image")
    class ImageCommands:
        @manage.args("--name", required=True, help="...")
        def create(self, name):
            ...
            return 0

Every public method is an action; ``args`` takes argparse's arguments.
"""
import importlib
import pkgutil
import sys
import traceback

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging

from keel.cmd import common
from keel.conf import CONF

LOG = logging.getLogger(__name__)

PROG = "keel manage"

# Alembic's per-step INFO lines are noise for an operator; errors still show.
_EXTRA_DEFAULT_LOG_LEVELS = ["alembic=WARNING", "oslo_db=INFO"]
_KWARG_PREFIX = "action_kwarg_"

# name -> command class, filled by @category as modules are imported.
CATEGORIES = {}


def category(name):
    """Class decorator registering a command category under ``name``."""
    def register(cls):
        CATEGORIES[name] = cls
        return cls
    return register


def args(*arg_names, **kwargs):
    """Method decorator: one argparse argument of an action."""
    def add(fn):
        # Decorators run bottom-up; insert so the listing is top-down.
        fn.__dict__.setdefault("args", []).insert(0, (arg_names, kwargs))
        return fn
    return add


def action_description(text):
    def add(fn):
        fn.description = text
        return fn
    return add


def _discover():
    """Import every keel/cmd/manage_*.py so its categories register."""
    import keel.cmd
    for mod in pkgutil.iter_modules(keel.cmd.__path__):
        if mod.name.startswith("manage_"):
            importlib.import_module(f"keel.cmd.{mod.name}")


def _actions(obj):
    for name in sorted(dir(obj)):
        if name.startswith("_"):
            continue
        fn = getattr(obj, name)
        if callable(fn):
            yield name, fn


def _add_command_parsers(subparsers):
    parser = subparsers.add_parser("version", help="Print the keel version")
    for cat_name in sorted(CATEGORIES):
        obj = CATEGORIES[cat_name]()
        parser = subparsers.add_parser(cat_name, help=obj.__doc__)
        parser.set_defaults(command_object=obj)
        actions = parser.add_subparsers(dest="action")
        actions.required = True
        for action, fn in _actions(obj):
            desc = getattr(fn, "description", fn.__doc__)
            aparser = actions.add_parser(action, help=desc,
                                         description=desc)
            action_kwargs = []
            for names, kw in getattr(fn, "args", []):
                kw = dict(kw)
                # A prefix keeps action arguments apart from oslo.config's
                # own options (--config-file, --verbose, ...).
                dest = kw.get("dest") or names[0].lstrip("-").replace(
                    "-", "_")
                action_kwargs.append(dest)
                if names[0].startswith("-"):
                    kw["dest"] = _KWARG_PREFIX + dest
                else:
                    names = (_KWARG_PREFIX + dest,)
                    kw.setdefault("metavar", dest.upper())
                    kw.pop("dest", None)
                aparser.add_argument(*names, **kw)
            aparser.set_defaults(action_fn=fn, action_kwargs=action_kwargs)


_CATEGORY_OPT = cfg.SubCommandOpt("category", title="Command categories",
                                  help="Available categories",
                                  handler=_add_command_parsers)


def _register_cli_opt(conf):
    try:
        conf.register_cli_opt(_CATEGORY_OPT)
    except cfg.ArgsAlreadyParsedError:
        # An earlier parse in this process (tests, the all-in-one): forget
        # it so the sub-command options can be added.
        conf.clear()
        conf.register_cli_opt(_CATEGORY_OPT)


def _unregister_cli_opt(conf):
    # Leave the process's CONF as we found it: a later parse (other
    # commands in one test run, the all-in-one) must not expect a category.
    conf.clear()
    conf.unregister_opt(_CATEGORY_OPT)


def _action():
    fn = CONF.category.action_fn
    kwargs = {}
    for dest in CONF.category.action_kwargs:
        value = getattr(CONF.category, _KWARG_PREFIX + dest)
        if value is not None:  # unset: the action's own default applies
            kwargs[dest] = value
    return fn, kwargs


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    _discover()
    _register_cli_opt(CONF)
    try:
        return _run(argv)
    finally:
        _unregister_cli_opt(CONF)


def _run(argv):
    logging.set_defaults(default_log_levels=(
        logging.get_default_log_levels() + _EXTRA_DEFAULT_LOG_LEVELS))
    try:
        common.parse_args(argv, PROG)
    except SystemExit as exc:  # argparse usage errors, --help
        return exc.code if isinstance(exc.code, int) else 2

    if CONF.category.name == "version":
        print(common._version())
        return 0

    from keel.db import migration
    from keel.db import session
    try:
        fn, kwargs = _action()
        ret = fn(**kwargs)
        return 0 if ret is None else int(ret)
    except migration.MigrationRefused as exc:
        print(f"ERROR: {exc}")
        return 1
    except (db_exc.DBConnectionError, db_exc.CantStartEngineError) as exc:
        print("ERROR: could not connect to the database (tried "
              "max_retries times, retry_interval seconds apart, as set in "
              "[api_database] / [database]). Is the database server "
              f"running and the connection URL correct?\nError: {exc}")
        return 1
    except Exception:
        # Nova's catch-all: the traceback, introduced, and exit code 255.
        print("An error has occurred:\n%s" % traceback.format_exc())
        return 255
    finally:
        session.reset()


if __name__ == "__main__":
    sys.exit(main())
