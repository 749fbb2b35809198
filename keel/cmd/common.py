"""Shared start-up for every ``keel`` sub-command: config, logging, errors.

Config files are looked up as Nova's are (project ``nova``: /etc/nova/nova.conf
and friends), so an upstream deployment's files apply without change. A bad
file or value stops the command with a message naming the file and option and
a non-zero exit instead of a traceback.
"""
import sys

from oslo_config import cfg
from oslo_log import log as logging

from keel.conf import CONF
from keel.conf import defaults

EXIT_CONFIG_ERROR = 2

LOG = logging.getLogger(__name__)


def parse_args(argv, prog, conf=CONF, default_config_files=None,
               setup_logging=True):
    """Parse ``argv`` into ``conf``; exit(2) with a clear message on errors."""
    defaults.set_library_defaults(conf)
    try:
        conf(argv, project="nova", prog=prog, version=_version(),
             default_config_files=default_config_files)
        _validate(conf)
    except (cfg.ConfigFilesNotFoundError, cfg.ConfigFileParseError,
            cfg.ConfigFileValueError, cfg.ConfigDirNotFoundError,
            cfg.RequiredOptError, cfg.Error) as exc:
        sys.stderr.write(f"{prog}: configuration error: {exc}\n")
        raise SystemExit(EXIT_CONFIG_ERROR)
    if setup_logging:
        logging.setup(conf, "nova")
    return conf


def _validate(conf):
    """Read every registered option once so bad values fail at start.

    oslo.config converts values lazily; without this pass a malformed value
    would only surface when first used, possibly deep in a running service.
    """
    for group_name in [None] + list(conf.list_all_sections()):
        group = conf if group_name in (None, "DEFAULT") else \
            getattr(conf, group_name, None)
        if group is None:
            continue
        keys = list(group.keys()) if hasattr(group, "keys") else []
        for key in keys:
            try:
                getattr(group, key)
            except cfg.NoSuchOptError:
                continue
            except (cfg.ConfigFileValueError, ValueError) as exc:
                where = group_name or "DEFAULT"
                raise cfg.ConfigFileValueError(
                    f"[{where}]/{key}: {exc} (files: "
                    f"{', '.join(conf.config_file or []) or 'none'})")


def _version():
    try:
        from importlib.metadata import version
        return version("openkeel-compute")
    except Exception:
        return "0"
