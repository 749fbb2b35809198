"""Entry point for external WSGI servers (uWSGI, mod_wsgi, gunicorn).

``gunicorn 'keel.api.wsgi_app:init_application()'`` or, for servers that
want a module attribute, ``keel.api.wsgi_app:application`` (built on first
access). Configuration files are found as Nova's WSGI apps find them:
``OS_NOVA_CONFIG_DIR`` (default /etc/nova) with ``OS_NOVA_CONFIG_FILES``
(default ``nova.conf``, ``;``-separated), skipping files that do not exist.
"""
import os
import threading

_LOCK = threading.Lock()
_APP = None


def _config_files(env=None):
    env = os.environ if env is None else env
    dirname = env.get("OS_NOVA_CONFIG_DIR", "/etc/nova").strip()
    names = env.get("OS_NOVA_CONFIG_FILES", "nova.conf").split(";")
    files = [os.path.join(dirname, n.strip()) for n in names if n.strip()]
    return [f for f in files if os.path.exists(f)]


def _parsed(conf):
    from oslo_config import cfg
    try:
        conf.config_file
    except cfg.NoSuchOptError:
        return False
    return True


def init_application(name="osapi_compute"):
    """Parse configuration (once) and return the compute API WSGI app."""
    from keel.api import deploy
    from keel.cmd import common
    from keel.conf import CONF

    global _APP
    with _LOCK:
        if _APP is None:
            if not _parsed(CONF):
                common.parse_args([], prog=name,
                                  default_config_files=_config_files())
            _APP = deploy.deploy(CONF)
    return _APP


def __getattr__(name):
    if name == "application":
        return init_application()
    raise AttributeError(name)
