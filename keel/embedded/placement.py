"""Serve the real Placement service (``openstack-placement``) in-process.

The all-in-one and the functional tests need a Placement endpoint without
any outside service.  This module loads Placement's own WSGI application
(``placement.deploy.loadapp``) with a private ``oslo.config`` ConfigOpts -- so
Placement's options never mix with keel's ``CONF`` -- syncs its database on
first start and serves it over HTTP with cheroot from a daemon thread.

Authentication uses Placement's own development mode, ``[api]/auth_strategy =
noauth2``: a request's ``X-Auth-Token`` names the user (``admin`` gets the
admin role).  Clients configured with ``[placement]/auth_type = none`` send no
token of their own (keystoneauth's ``none`` plugin sends the placeholder
``notused``), so ``_DefaultAdminToken`` below turns a missing or placeholder
token into ``admin``; any other token keeps its noauth2 meaning.  That is
acceptable only because this server is a development tool bound to loopback
by default; production uses keystone.

Placement keeps its database engine in a process-wide enginefacade (configured
once per interpreter), so one process serves one Placement database at a time.
Starting again after ``stop()`` with a different URL re-points that engine.

Also runnable as ``python -m keel.embedded.placement --db-url URL --port P``;
it prints ``PLACEMENT_ENDPOINT=<url>`` once it answers and stops on SIGTERM.
``--server uwsgi|gunicorn`` serves it instead from worker processes of an
operator's WSGI server (``serve_external``; the distributed bench's option).
"""
import argparse
import logging
import os
import signal
import sys
import threading

from cheroot import wsgi as cheroot_wsgi
from oslo_config import cfg
from oslo_db.sqlalchemy import engines

LOG = logging.getLogger(__name__)

# Process-wide binding of Placement's enginefacade (see module docstring).
_DB_LOCK = threading.Lock()
_DB_STATE = {"url": None, "running": 0, "unpatch": None}


class _DefaultAdminToken(object):
    """Give token-less requests the noauth2 ``admin`` identity."""

    # keystoneauth1's ``none`` auth plugin sends this fixed token.
    PLACEHOLDERS = ("", "notused")

    def __init__(self, application, token="admin"):
        self.application = application
        self.token = token

    def __call__(self, environ, start_response):
        if environ.get("HTTP_X_AUTH_TOKEN", "") in self.PLACEHOLDERS:
            environ["HTTP_X_AUTH_TOKEN"] = self.token
        return self.application(environ, start_response)


class _SerializedWrites(object):
    """One write request at a time, for a SQLite database.

    SQLite locks the whole file: two transactions that both read and then
    write fail at once with "database is locked" (waiting could deadlock),
    which Placement reports as a 500.  A dev server with many simulated hosts
    starting together hits that, so writes queue here; reads stay parallel.
    """

    READS = ("GET", "HEAD", "OPTIONS")

    def __init__(self, application):
        self.application = application
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") in self.READS:
            return self.application(environ, start_response)
        with self._lock:
            # Placement's responses are small lists: materialise them inside
            # the lock so the transaction is over when the lock is released.
            return list(self.application(environ, start_response))


def _make_conf(db_url):
    """A Placement ConfigOpts of its own, never keel's global CONF."""
    from placement import conf as placement_conf
    from oslo_policy import opts as policy_opts

    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    # The connection is required; set it before parsing checks for it.
    conf.set_override("connection", db_url, group="placement_database")
    conf([], project="placement", default_config_files=[],
         default_config_dirs=[])
    conf.set_override("sync_on_startup", True, group="placement_database")
    conf.set_override("auth_strategy", "noauth2", group="api")
    # Placement's own defaults (new policy defaults, project scope) apply.
    policy_opts.set_defaults(conf)
    return conf


def _reset_placement_sync_flags():
    # Placement remembers per process that it synced os-traits and standard
    # resource classes; a different database needs them synced again.
    from placement.objects import resource_class
    from placement.objects import trait
    trait._TRAITS_SYNCED = False
    resource_class._RESOURCE_CLASSES_SYNCED = False


def _psycopg3_lastrowid(db_url):
    """Placement reads ``result.lastrowid`` after inserting allocations;
    psycopg 3 cursors have no such attribute (every PUT /allocations was a
    500 on PostgreSQL). psycopg2 answers 0 for tables without OIDs; give
    Placement the same."""
    if not db_url.startswith("postgresql+psycopg:"):
        return
    from sqlalchemy.dialects.postgresql import psycopg as pg_psycopg
    pg_psycopg.PGExecutionContext_psycopg.get_lastrowid = lambda self: 0


def _bind_database(conf, db_url):
    from placement import db_api
    _psycopg3_lastrowid(db_url)
    with _DB_LOCK:
        if _DB_STATE["url"] is None:
            db_api.configure(conf)
            _DB_STATE["url"] = db_url
        elif _DB_STATE["url"] != db_url:
            if _DB_STATE["running"]:
                raise RuntimeError(
                    "an embedded Placement already serves %s in this process; "
                    "Placement's database engine is process-wide"
                    % _DB_STATE["url"])
            if _DB_STATE["unpatch"]:
                _DB_STATE["unpatch"]()
            engine = engines.create_engine(db_url)
            _DB_STATE["unpatch"] = (
                db_api.placement_context_manager.patch_engine(engine))
            _DB_STATE["url"] = db_url
            _reset_placement_sync_flags()
        _DB_STATE["running"] += 1


def _release_database():
    with _DB_LOCK:
        _DB_STATE["running"] = max(0, _DB_STATE["running"] - 1)


def _ensure_sqlite_dir(db_url):
    # A fresh state dir: create the directory the SQLite file lives in.
    prefix = "sqlite:///"
    if db_url.startswith(prefix) and db_url != prefix:
        path = db_url[len(prefix):].split("?", 1)[0]
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)


def build_app(db_url):
    """Placement's WSGI app over ``db_url`` (created and synced if new)."""
    from placement import deploy
    if db_url in ("sqlite://", "sqlite:///:memory:"):
        # Every pooled connection would see its own empty database.
        raise ValueError("the embedded Placement needs a file or server "
                         "database, not an in-memory SQLite one")
    _ensure_sqlite_dir(db_url)
    conf = _make_conf(db_url)
    _bind_database(conf, db_url)
    try:
        app = deploy.loadapp(conf)
    except Exception:
        _release_database()
        raise
    if db_url.startswith("sqlite"):
        app = _SerializedWrites(app)
    return _DefaultAdminToken(app)


class PlacementHandle(object):
    """A running embedded Placement: ``endpoint``, ``port``, ``stop()``."""

    def __init__(self, server, thread, host):
        self._server = server
        self._thread = thread
        self.host = host
        self.port = server.bind_addr[1]
        shown = "[%s]" % host if ":" in host else host
        self.endpoint = "http://%s:%d" % (shown, self.port)
        # The WSGI app the socket serves, middleware included.
        self.app = server.wsgi_app
        self._in_process = False
        self._stopped = False

    def serve_in_process(self):
        """Let this process's keel clients call the app without the socket.

        Sessions built by keel (``EnvCachingSession``) then send requests for
        ``endpoint`` straight to the same app object in the calling thread,
        at most as many at once as the server has threads; the port still
        serves everyone else.
        """
        from keel.clients import wsgi_transport
        wsgi_transport.register(self.endpoint, self.app,
                                max_concurrent=self._server.requests.min)
        self._in_process = True

    def stop(self, timeout=10):
        if self._stopped:
            return
        self._stopped = True
        if self._in_process:
            from keel.clients import wsgi_transport
            wsgi_transport.unregister(self.endpoint)
        self._server.stop()
        self._thread.join(timeout)
        _release_database()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def start_placement(db_url, host="127.0.0.1", port=0, numthreads=8):
    """Start Placement on ``host:port`` (0 = any free port); return a handle.

    Returns once the socket is bound, so requests may be sent at once.
    """
    app = build_app(db_url)
    # Listen backlog: cheroot's default of 5 overflows when many clients
    # (a compute simulating dozens of hosts, forked workers) connect at
    # once; the kernel then drops their SYNs and each waits 1 s or more.
    server = cheroot_wsgi.Server((host, port), app, numthreads=numthreads,
                                 server_name="keel-placement",
                                 request_queue_size=128)
    ready = threading.Event()
    failure = []

    def run():
        # prepare() binds the socket and starts cheroot's worker threads.
        # Doing it in this daemon thread makes those workers daemons too, so
        # a process that forgets stop() can still exit.
        try:
            server.prepare()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            failure.append(exc)
            return
        finally:
            ready.set()
        server.serve()

    thread = threading.Thread(target=run, name="placement-wsgi", daemon=True)
    thread.start()
    ready.wait()
    if failure:
        _release_database()
        raise failure[0]
    handle = PlacementHandle(server, thread, host)
    LOG.info("Embedded Placement serving %s on %s", db_url, handle.endpoint)
    return handle


# -- an operator's server: uwsgi or gunicorn worker processes --------------
#
# Operators run Placement as a WSGI application under uwsgi (devstack,
# OpenStack-Ansible) or Apache mod_wsgi (kolla), with several processes of
# one thread each, Placement's own ``placement.wsgi.api`` loading its
# config from OS_PLACEMENT_CONFIG_DIR.  ``serve_external`` does the same:
# only the token default above is put in front of Placement's application.

SERVERS = ("cheroot", "uwsgi", "gunicorn")


def wsgi_application():
    """Placement's own WSGI entry point (``placement.wsgi.api``, config from
    ``$OS_PLACEMENT_CONFIG_DIR/placement.conf``) behind the token default.

    Loaded in each uwsgi/gunicorn worker; counts the worker's SQL
    statements when the bench asks for it (KEEL_BENCH_COUNTERS).
    """
    from keel import benchcounters
    if benchcounters.ENABLED:
        # The counters label a process by its command line.
        sys.argv = ["placement-worker"]
        benchcounters.install_sql()
    from placement.wsgi import api
    return _DefaultAdminToken(api.application)


def write_config(directory, db_url):
    """The ``placement.conf`` an operator would write: the database and
    the development authentication (noauth2); nothing else is set."""
    path = os.path.join(directory, "placement.conf")
    with open(path, "w") as fh:
        fh.write("[placement_database]\nconnection = %s\n"
                 "[api]\nauth_strategy = noauth2\n" % db_url)
    return path


def sync_database(config_file):
    """``placement-manage db sync``, as an operator runs it before starting
    the workers (they do not sync on start-up by default)."""
    import subprocess
    subprocess.run([sys.executable, "-c",
                    "import sys; from placement.cmd import manage; "
                    "sys.exit(manage.main())",
                    "--config-file", config_file, "db", "sync"],
                   check=True, timeout=300)


def _free_port(host):
    import socket
    with socket.socket(socket.AF_INET6 if ":" in host
                       else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def server_argv(server, host, port, workers):
    """The command line of ``server`` serving Placement on host:port."""
    bindir = os.path.dirname(sys.executable)
    if server == "uwsgi":
        # devstack's uwsgi settings (master, lazy apps, one thread per
        # process, thunder lock, "Connection: close"), answering HTTP
        # itself rather than behind Apache.  No keep-alive: a worker that
        # keeps a client's connection serves no one else until it idles
        # out (other clients then waited seconds).
        return [os.path.join(bindir, "uwsgi"),
                "--http-socket", "%s:%d" % (host, port),
                "--add-header", "Connection: close",
                "--master", "--processes", str(workers),
                "--enable-threads", "--lazy-apps", "--thunder-lock",
                "--die-on-term", "--need-app", "--listen", "128",
                "--buffer-size", "65535",
                "--eval", "from keel.embedded import placement\n"
                          "application = placement.wsgi_application()\n"]
    if server == "gunicorn":
        # Threaded workers: the sync ones close every connection.
        return [os.path.join(bindir, "gunicorn"),
                "--bind", "%s:%d" % (host, port), "--workers", str(workers),
                "--worker-class", "gthread", "--threads", "1",
                "--backlog", "128", "--no-control-socket",
                "keel.embedded.placement:wsgi_application()"]
    raise ValueError("unknown server %r" % server)


def _wait_answering(endpoint, proc, timeout=120):
    import time
    import urllib.request
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(endpoint + "/", timeout=5):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def serve_external(server, db_url, host, port, workers, done):
    """Run Placement under ``server`` until ``done`` is set."""
    import shutil
    import subprocess
    import tempfile
    if db_url.startswith("sqlite"):
        raise ValueError("%s workers are separate processes: they need a "
                         "server database, not SQLite" % server)
    confdir = tempfile.mkdtemp(prefix="keel-placement-conf-")
    try:
        sync_database(write_config(confdir, db_url))
        port = port or _free_port(host)
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=confdir)
        # Our stdout carries only PLACEMENT_ENDPOINT=; the server's output
        # (its own and Placement's log) goes to our stderr.
        proc = subprocess.Popen(server_argv(server, host, port, workers),
                                env=env, stdout=sys.stderr)
        shown = "[%s]" % host if ":" in host else host
        endpoint = "http://%s:%d" % (shown, port)
        try:
            if not _wait_answering(endpoint, proc):
                print("placement failed to start under %s" % server,
                      file=sys.stderr)
                return 1
            print("PLACEMENT_ENDPOINT=%s" % endpoint, flush=True)
            done.wait()
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        return 0
    finally:
        shutil.rmtree(confdir, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m keel.embedded.placement",
        description="Serve the real Placement service for development/tests.")
    parser.add_argument("--db-url", required=True,
                        help="SQLAlchemy URL of the Placement database.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--tuned", action="store_true",
        help="apply the all-in-one's tuning of Placement's internals "
             "(keel/allinone/placement_tuning.py, keel/gctune.py). Off by "
             "default: this "
             "process stands for the operator's own, unmodified Placement.")
    parser.add_argument(
        "--server", choices=SERVERS, default="cheroot",
        help="cheroot: threads in this process (default); uwsgi or "
             "gunicorn: worker processes as operators run Placement (needs "
             "a server database; not with --tuned)")
    parser.add_argument("--workers", type=int, default=2,
                        help="uwsgi/gunicorn worker processes (devstack "
                             "runs 2 on a machine this size)")
    args = parser.parse_args(argv)
    if args.server != "cheroot" and args.tuned:
        parser.error("--tuned applies to the in-process (cheroot) server")
    logging.basicConfig(level=logging.WARNING)

    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    if args.server != "cheroot":
        try:
            return serve_external(args.server, args.db_url, args.host,
                                  args.port, args.workers, done)
        except Exception as exc:
            print("placement failed to start: %s" % exc, file=sys.stderr)
            return 1
    try:
        handle = start_placement(args.db_url, args.host, args.port)
    except Exception as exc:
        print("placement failed to start: %s" % exc, file=sys.stderr)
        return 1
    if args.tuned:
        # Schemas checked once, reused query aliases, the collector tuned as
        # in keel's services: how Placement runs, not what it answers.
        from keel.allinone import placement_tuning
        from keel import gctune
        placement_tuning.apply()
        gctune.settle()
    print("PLACEMENT_ENDPOINT=%s" % handle.endpoint, flush=True)
    done.wait()
    handle.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
