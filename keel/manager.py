"""Base class of the service managers (the RPC endpoints of each service).

A manager owns the service's periodic tasks (oslo.service's decorator and
runner, driven by ``keel.service``'s thread) and counts the operations in
flight so that a graceful stop can wait for them.
"""
import contextlib
import threading
import time

from oslo_log import log as logging
# (oslo.service's threading backend is chosen in keel/__init__.py.)
from oslo_service import periodic_task

from keel.conf import CONF

LOG = logging.getLogger(__name__)

periodic = periodic_task.periodic_task


class Manager(periodic_task.PeriodicTasks):
    """Hooks called by keel.service.Service around the RPC servers."""

    service_name = None

    def __init__(self, host=None, service_name=None):
        super().__init__(CONF)
        self.host = host or CONF.host
        if service_name:
            self.service_name = service_name
        # Further RPC endpoints served on the same topic (conductor's
        # compute_task namespace, for instance).
        self.additional_endpoints = []
        self.shutdown_in_progress = False
        self._tasks_cond = threading.Condition()
        self._tasks = {}
        self._task_seq = 0

    # -- lifecycle hooks ---------------------------------------------------
    def init_host(self, service_ref=None):
        """Before the RPC servers start."""

    def post_start_hook(self):
        """After the RPC servers started."""

    def cleanup_host(self):
        """After the service stopped."""

    def reset(self):
        """On SIGHUP: drop caches."""

    def periodic_tasks(self, context, raise_on_error=False):
        return self.run_periodic_tasks(context, raise_on_error=raise_on_error)

    # -- operations in flight ---------------------------------------------
    def set_shutdown_in_progress(self):
        self.shutdown_in_progress = True

    def record_task_start(self, name, instance_uuid=None):
        with self._tasks_cond:
            self._task_seq += 1
            key = self._task_seq
            self._tasks[key] = (name, instance_uuid, time.monotonic())
            return key

    def record_task_end(self, key):
        with self._tasks_cond:
            self._tasks.pop(key, None)
            self._tasks_cond.notify_all()

    @contextlib.contextmanager
    def operation(self, name, instance_uuid=None):
        """Count a long operation (for work that outlives its RPC call)."""
        key = self.record_task_start(name, instance_uuid)
        try:
            yield
        finally:
            self.record_task_end(key)

    def has_task_for(self, instance_uuid):
        """Whether an operation on ``instance_uuid`` runs here now."""
        with self._tasks_cond:
            return any(u == instance_uuid for _, u, _ in
                       self._tasks.values())

    def tasks_in_progress(self):
        with self._tasks_cond:
            return [(n, u) for n, u, _ in self._tasks.values()]

    def wait_for_tasks(self, timeout=None):
        """Block until no operation is in flight; False on timeout."""
        deadline = None if not timeout else time.monotonic() + timeout
        with self._tasks_cond:
            while self._tasks:
                LOG.info("%s: waiting for %d operation(s) in progress: %s",
                         self.service_name, len(self._tasks),
                         ", ".join(sorted({n for n, _, _ in
                                           self._tasks.values()})))
                remaining = None if deadline is None else \
                    deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._tasks_cond.wait(
                    5 if remaining is None else min(5, remaining))
        return True
