"""The embedded production server: cheroot threads in pre-forked workers.

The parent binds one listening socket, then forks ``workers`` processes
that all accept on it (the kernel spreads connections); each worker serves
with a pool of ``threads`` cheroot threads. SIGTERM or SIGINT stops the
parent and its workers cleanly: in-flight requests get up to
``shutdown_timeout`` seconds. A worker that dies unexpectedly is replaced;
the workers stop with a killed parent. The forking and supervising is
keel.workers.Supervisor's, as for the conductor's and scheduler's workers.
With one worker the parent serves by itself (no fork), which is also what
tests and the all-in-one use.
"""
import signal
import socket

from cheroot import wsgi as cheroot_wsgi
from oslo_log import log as logging

from keel import workers as workers_mod

LOG = logging.getLogger(__name__)


def listen(host, port, backlog=1024):
    """A bound, listening TCP socket (IPv4 or IPv6 from ``host``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit TCP_NODELAY; without it a response written
    # as headers + body waits out the client's delayed ACK (~40 ms each).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


class _SharedSocketServer(cheroot_wsgi.Server):
    """cheroot's server accepting on a socket bound before the fork."""

    def __init__(self, sock, app, **kwargs):
        self._shared = sock
        super().__init__(sock.getsockname()[:2], app, **kwargs)

    def bind(self, family, type, proto=0):  # noqa: A002 - cheroot's name
        self.socket = self._shared
        return self.socket


def make_server(sock, app, threads=16, timeout=900, shutdown_timeout=60,
                max_header_line=16384, keep_alive=True):
    server = _SharedSocketServer(
        sock, app, numthreads=threads, timeout=timeout or 3600,
        shutdown_timeout=shutdown_timeout, request_queue_size=128)
    server.max_request_header_size = max_header_line * 100
    if not keep_alive:
        server.protocol = "HTTP/1.0"
    return server


def _serve_one(sock, app, server_kwargs):
    """Serve in this process until SIGTERM/SIGINT."""
    server = make_server(sock, app, **server_kwargs)

    def _stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        server.start()
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        server.stop()


def serve(app, host, port, workers=1, name="api", backlog=1024,
          **server_kwargs):
    """Serve ``app`` on ``host:port`` with ``workers`` processes.

    Returns the exit code: 0 after a clean stop, 1 when the address cannot
    be bound.
    """
    try:
        sock = listen(host, port, backlog)
    except OSError as exc:
        LOG.error("%s cannot listen on %s:%s: %s", name, host, port, exc)
        return 1
    LOG.info("%s listening on %s:%s with %d worker(s) x %s thread(s)",
             name, host, sock.getsockname()[1], workers,
             server_kwargs.get("threads", 16))
    if workers <= 1:
        _serve_one(sock, app, server_kwargs)
        sock.close()
        return 0
    # The service launcher's (keel/workers.py): respawn, graceful stop
    # bounded by the workers' shutdown_timeout, no orphaned worker still
    # accepting after the parent is killed.
    launcher = workers_mod.Supervisor(
        name, workers, lambda index: _serve_one(sock, app, server_kwargs),
        stop_timeout=server_kwargs.get("shutdown_timeout", 60) + 5)
    try:
        return launcher.run()
    finally:
        sock.close()


def server_kwargs(conf):
    """Per-worker settings from [wsgi] and [DEFAULT]."""
    return {
        "threads": conf.wsgi.threads,
        "timeout": conf.wsgi.client_socket_timeout,
        "shutdown_timeout": conf.graceful_shutdown_timeout or 3600,
        "max_header_line": conf.wsgi.max_header_line,
        "keep_alive": conf.wsgi.keep_alive,
    }
