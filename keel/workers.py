"""Worker processes: one launcher forks and supervises them, for the
conductor and the scheduler (Nova's ``[conductor]/workers`` and
``[scheduler]/workers``, as oslo.service's process launcher runs them) and
for the embedded API server's pre-forked workers (keel/api/server.py).

``Supervisor`` is the launcher. It stays single-threaded (forking a threaded
process can copy a held lock) and only supervises: a worker that dies is
forked again under the same index (no sooner than MIN_LIFETIME after its
fork, so a worker failing at once does not fork in a tight loop). SIGTERM/
SIGINT to the launcher stops every worker gracefully (each finishes its
in-flight work) within ``stop_timeout``, after which a worker is killed. If
the launcher dies, its workers stop too (PR_SET_PDEATHSIG): none is left
behind as an orphan still serving.

``ProcessLauncher`` serves one RPC service with it. The parent registers
the service record (refusing a live foreign process with the same host and
binary, exactly as a single process would), then forks ``workers``
children. Each child builds its own manager, database engines and broker
connections (none is shared across the fork) and serves the same topic and
server queue: the broker spreads the calls among them. All of them are one
service, one record. Worker 0, the primary, heartbeats and runs the
periodic tasks; the others only serve RPC; a dead primary comes back as
primary. After the workers stop, the parent marks the record stopped so an
immediate restart is not taken for a duplicate. A worker also watches its
parent's pid, so that a new launcher takes the record over after two
heartbeat periods even where PR_SET_PDEATHSIG is not available.

With one worker nothing is forked (keel.service.serve), as in Nova.
"""
import os
import signal
import sys
import time

from oslo_log import log as logging

from keel import benchcounters
from keel.conf import CONF
from keel import context as keel_context
from keel.db import session as db_session
from keel import service as keel_service

LOG = logging.getLogger(__name__)

# Exit code of a worker that could not start (its reason is on stderr).
EXIT_STARTUP = 3
# A worker dying sooner than this after its fork is restarted only after
# this long, so a worker failing at once does not fork in a tight loop.
MIN_LIFETIME = 2.0
_PR_SET_PDEATHSIG = 1


def worker_count(configured):
    """The option's value, or the CPU count when it is unset or 0."""
    return configured or os.cpu_count() or 1


def serve(host, binary, topic, manager_factory, workers):
    """Run the service with ``workers`` processes; the command's exit code.

    ``manager_factory()`` makes the manager; it is called in each worker,
    after the fork.
    """
    if workers <= 1:
        return keel_service.serve([keel_service.Service(
            host=host, binary=binary, topic=topic,
            manager=manager_factory())])
    return ProcessLauncher(host, binary, topic, manager_factory,
                           workers).run()


class Supervisor:
    """Run ``child_main(index)`` in ``workers`` forked processes until
    SIGTERM/SIGINT; ``run()`` returns the exit code.

    ``child_main`` returns the worker's exit code (None is 0). A worker
    whose first start fails with EXIT_STARTUP (bad configuration, a
    service unreachable) stops the launcher with 1: retrying would fail
    the same way; any later exit is a fault to recover from by forking
    the worker again.
    """

    def __init__(self, name, workers, child_main, stop_timeout):
        self.name = name
        self.workers = workers
        self.child_main = child_main
        self.stop_timeout = stop_timeout
        self.children = {}          # pid -> (index, started at)
        self.stopping = False
        self.started_once = set()   # indexes whose first start succeeded
        self.parent_pid = None

    # -- parent --------------------------------------------------------------
    def run(self):
        self.parent_pid = os.getpid()
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        LOG.info("%s: starting %d workers", self.name, self.workers)
        try:
            for index in range(self.workers):
                self._spawn(index)
            return self._supervise()
        finally:
            self._stop_children()

    def _on_signal(self, signum, frame):
        self.stopping = True

    def _spawn(self, index):
        pid = os.fork()
        if pid == 0:
            self._child(index)      # never returns
        self.children[pid] = (index, time.monotonic())
        LOG.info("%s worker %d started (pid %d)", self.name, index, pid)

    def _supervise(self):
        """Wait for a signal, restarting dead workers; the exit code."""
        restart_at = {}             # index -> monotonic time
        while not self.stopping:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid, status = 0, 0
            if pid in self.children:
                index, born = self.children.pop(pid)
                code = os.waitstatus_to_exitcode(status)
                if code == EXIT_STARTUP and index not in self.started_once:
                    LOG.error("%s worker %d could not start; stopping.",
                              self.name, index)
                    return 1
                self.started_once.add(index)
                if not self.stopping:
                    LOG.warning("%s worker %d (pid %d) exited (%s); "
                                "starting another", self.name, index, pid,
                                code)
                    wait = MIN_LIFETIME - (time.monotonic() - born)
                    restart_at[index] = time.monotonic() + max(wait, 0)
            for index, when in list(restart_at.items()):
                if when <= time.monotonic() and not self.stopping:
                    del restart_at[index]
                    self._spawn(index)
            time.sleep(0.2)
        return 0

    def _stop_children(self):
        for pid in list(self.children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                self.children.pop(pid, None)
        deadline = time.monotonic() + self.stop_timeout
        while self.children and time.monotonic() < deadline:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self.children.pop(pid, None)
            else:
                time.sleep(0.1)
        for pid in self.children:
            LOG.warning("%s worker pid %d did not stop in time; killing it",
                        self.name, pid)
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        self.children.clear()

    # -- child ---------------------------------------------------------------
    def _child(self, index):
        code = 1
        try:
            # Not the launcher's handlers: until the worker installs its
            # own, a signal ends it at once, as it does a process starting.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            self.children = {}
            _die_with_parent()
            if os.getppid() != self.parent_pid:
                code = 0            # the launcher died before the prctl
            else:
                code = self.child_main(index) or 0
        except BaseException:  # noqa: BLE001 - a child must never return
            LOG.exception("%s worker %d failed", self.name, index)
            code = 1
        finally:
            if benchcounters.ENABLED:
                benchcounters.dump()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)


class ProcessLauncher:
    """One RPC service in ``workers`` processes (see the module's
    docstring)."""

    def __init__(self, host, binary, topic, manager_factory, workers):
        self.host = host
        self.binary = binary
        self.topic = topic
        self.manager_factory = manager_factory
        self.workers = workers
        self.record = None          # keel.service.Service holding the ref
        self.supervisor = None

    def run(self):
        self.record = keel_service.Service(
            host=self.host, binary=self.binary, topic=self.topic,
            manager=None)
        code = keel_service.guarded_start(self._register)
        if code:
            return code
        # Each worker waits up to graceful_shutdown_timeout for its calls.
        self.supervisor = Supervisor(
            self.binary, self.workers, self._child_main,
            stop_timeout=(CONF.graceful_shutdown_timeout or 3600) + 10)
        try:
            return self.supervisor.run()
        finally:
            self._mark_stopped()

    def _register(self):
        ctxt = keel_context.get_admin_context()
        self.record.service_ref = self.record._register(ctxt)
        # No engine crosses the fork: each worker opens its own.
        db_session.reset()

    def _mark_stopped(self):
        self.record._mark_stopped()
        db_session.reset()
        LOG.info("%s on %s: all workers stopped", self.binary, self.host)

    def _child_main(self, index):
        # The parent's engines were disposed before the fork; forget them.
        db_session.reset()
        svc = keel_service.Service(host=self.host, binary=self.binary,
                                   topic=self.topic,
                                   manager=self.manager_factory())
        svc.adopt(self.record.service_ref, primary=index == 0)
        code = keel_service.serve([svc],
                                  parent_pid=self.supervisor.parent_pid)
        return EXIT_STARTUP if code else 0


def _die_with_parent():
    """SIGTERM this process when its parent dies (Linux; elsewhere the
    worker's wait loop notices the parent pid changing)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass
