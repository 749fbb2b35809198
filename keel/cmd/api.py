"""``keel api``: the compute API (port 8774) on the embedded server.

Workers: [DEFAULT]/osapi_compute_workers (default: CPU count); threads per
worker: [wsgi]/threads. For uWSGI, mod_wsgi or gunicorn use
``keel.api.wsgi_app`` instead.
"""
import os

from keel.cmd import common


def main(argv=None):
    conf = common.parse_args(list(argv or []), prog="keel-api")
    from keel.api import deploy
    from keel.api import server

    from keel import gctune

    app = deploy.deploy(conf)
    # Before the fork: the workers share the frozen start-up heap.
    gctune.settle()
    workers = conf.osapi_compute_workers or os.cpu_count() or 1
    return server.serve(app, conf.osapi_compute_listen,
                        conf.osapi_compute_listen_port, workers=workers,
                        name="keel-api", backlog=conf.wsgi.backlog,
                        **server.server_kwargs(conf))
