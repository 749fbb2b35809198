"""A small bounded pool of build threads per conductor worker process.

Why: the RPC server runs every message on oslo.messaging's threading
executor (``[DEFAULT]/executor_thread_pool_size`` threads, one FIFO). In a
boot storm that FIFO fills with ``schedule_and_build_instances`` casts
while the computes' ``object_action`` calls -- which finish builds already
under way -- wait behind them, until some time out (MessagingTimeout) and
the builds they belonged to fail. Handing each cast to this pool takes
the executor thread for microseconds: calls never queue behind builds, and
at most ``[conductor]/build_threads`` builds run at once in the process,
so work in progress finishes before more is started.

What a queued build risks: nothing that is not already recoverable.
oslo.messaging acknowledges an RPC message before it dispatches it, and
with RabbitMQ's default unlimited prefetch the executor's own queue already
held every received cast in memory; a cast waiting here is in the same
position. Its BuildRequest stays untouched (no ``updated_at`` stamp, no
claim) until a build thread takes it, so if the process dies or stops,
``redrive_lost_builds`` in keel/conductor/tasks/safety.py re-sends it once
it has waited ``redrive_after()`` seconds (and buries it in cell0 if even
the re-drive gets lost). A queued cast that is merely late when the
re-drive fires loses the take compare-and-swap and drops out.

Stopping drops what is still queued (see above) and does not wait for it;
builds already running are counted as operations in flight, so the
service's graceful stop waits for them as for any RPC.
"""
import collections
import os
import threading

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class BuildPool:
    """FIFO of callables run by at most ``size`` threads."""

    def __init__(self, size, name="build", tracker=None):
        self.size = size
        self.name = name
        # tracker(name) -> context manager counting the run as an operation
        # in flight (keel.manager.Manager.operation).
        self._tracker = tracker
        self._cond = threading.Condition()
        self._queue = collections.deque()
        self._threads = []
        self._pid = None
        self._running = 0
        self._stopping = False

    # -- state, for the tests and the logs ----------------------------------
    @property
    def queued(self):
        with self._cond:
            return len(self._queue)

    @property
    def running(self):
        with self._cond:
            return self._running

    # -- use -----------------------------------------------------------------
    def submit(self, label, fn, *args, **kwargs):
        """Queue ``fn(*args, **kwargs)``; False (nothing queued) once the
        pool is stopping."""
        with self._cond:
            if self._stopping:
                return False
            self._queue.append((label, fn, args, kwargs))
            self._ensure_threads()
            self._cond.notify()
        return True

    def stop(self, timeout=0):
        """Refuse new work, drop the queue; wait up to ``timeout`` seconds
        (None: for ever) for the running builds. Returns the labels of the
        dropped work."""
        with self._cond:
            self._stopping = True
            dropped = [item[0] for item in self._queue]
            self._queue.clear()
            self._cond.notify_all()
            if timeout != 0:
                self._cond.wait_for(lambda: self._running == 0, timeout)
        if dropped:
            LOG.warning("Stopping with %d build(s) queued, not started: "
                        "their build requests are re-driven by the safety "
                        "net: %s", len(dropped), ", ".join(map(str, dropped)))
        return dropped

    # -- threads -------------------------------------------------------
    def _ensure_threads(self):
        # Threads do not survive fork: a forked worker that inherited a
        # started pool starts its own (called with the lock held).
        pid = os.getpid()
        if self._pid != pid:
            self._pid = pid
            self._threads = []
            self._running = 0
        if len(self._threads) >= self.size:
            return
        if len(self._queue) <= len(self._threads) - self._running:
            return      # idle threads take it
        thread = threading.Thread(target=self._work, daemon=True,
                                  name="%s-%d" % (self.name,
                                                  len(self._threads)))
        self._threads.append(thread)
        thread.start()

    def _work(self):
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if not self._queue:
                    return
                label, fn, args, kwargs = self._queue.popleft()
                self._running += 1
            try:
                if self._tracker is not None:
                    with self._tracker(label):
                        fn(*args, **kwargs)
                else:
                    fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a cast: nobody to tell
                LOG.exception("Build %s failed", label)
            finally:
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()
