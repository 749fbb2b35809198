"""The embedded production server: cheroot threads in pre-forked workers.

The parent binds one listening socket, then forks ``workers`` processes
that all accept on it (the kernel spreads connections); each worker serves
with a pool of ``threads`` cheroot threads. SIGTERM or SIGINT stops the
parent and its workers cleanly: in-flight requests get up to
``shutdown_timeout`` seconds. A worker that dies unexpectedly is replaced.
With one worker the parent serves by itself (no fork), which is also what
tests and the all-in-one use.
"""
import os
import signal
import socket
import time

from cheroot import wsgi as cheroot_wsgi
from oslo_log import log as logging

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
    return _Supervisor(sock, app, workers, server_kwargs).run()


class _Supervisor:
    def __init__(self, sock, app, workers, server_kwargs):
        self.sock = sock
        self.app = app
        self.workers = workers
        self.server_kwargs = server_kwargs
        self.children = set()
        self.stopping = False

    def _spawn(self):
        pid = os.fork()
        if pid == 0:  # child
            code = 0
            try:
                _serve_one(self.sock, self.app, self.server_kwargs)
            except BaseException:  # noqa: BLE001 - a child must never return
                LOG.exception("API worker failed")
                code = 1
            finally:
                os._exit(code)
        self.children.add(pid)

    def _on_signal(self, signum, frame):
        self.stopping = True

    def run(self):
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        for _ in range(self.workers):
            self._spawn()
        while not self.stopping:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = 0
            if pid and pid in self.children:
                self.children.discard(pid)
                if not self.stopping:
                    LOG.warning("API worker %d exited (%s); starting another",
                                pid, status)
                    self._spawn()
            time.sleep(0.2)
        self._stop_children()
        self.sock.close()
        return 0

    def _stop_children(self):
        for pid in list(self.children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                self.children.discard(pid)
        deadline = time.monotonic() + \
            self.server_kwargs.get("shutdown_timeout", 60) + 5
        while self.children and time.monotonic() < deadline:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self.children.discard(pid)
            else:
                time.sleep(0.1)
        for pid in self.children:  # did not stop in time
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        self.children.clear()


def server_kwargs(conf):
    """Per-worker settings from [wsgi] and [DEFAULT]."""
    return {
        "threads": conf.wsgi.threads,
        "timeout": conf.wsgi.client_socket_timeout,
        "shutdown_timeout": conf.graceful_shutdown_timeout or 3600,
        "max_header_line": conf.wsgi.max_header_line,
        "keep_alive": conf.wsgi.keep_alive,
    }
