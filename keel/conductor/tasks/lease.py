"""The take of a BuildRequest, kept alive while its delivery works on it.

A delivery takes a BuildRequest by stamping its ``updated_at``
(lookups.take_build_requests); the safety net re-sends a request whose
stamp is older than ``safety.redrive_after()`` and releases its claim
first (keel/conductor/tasks/safety.py). A delivery that is only slow --
its scheduler call waiting out a broker restart, then the reply timeout,
on a loaded machine -- could outlive that window: the net then released
the claim the scheduler had just made for it, and the slow original went
on to build the server on its host with no allocation in Placement.

So while a delivery holds BuildRequests it renews the stamp (a compare-
and-swap from the stamp it wrote to a newer one) every quarter of the
window. A live delivery is never taken for lost; a dead one stops renewing
and is re-driven as before. A BuildRequest gone meanwhile (committed, or
the server deleted) simply no longer matches.
"""
import os
import threading
import time

from oslo_log import log as logging
from oslo_utils import timeutils

from keel.conductor.tasks import lookups

LOG = logging.getLogger(__name__)


def _now():
    # Whole seconds: what MySQL's DATETIME keeps (see lookups).
    return timeutils.utcnow().replace(tzinfo=None, microsecond=0)


class BuildLease:
    """Renew the take of ``uuids`` (stamped ``stamp``) at least every
    ``interval`` seconds while inside the ``with`` block."""

    def __init__(self, context, uuids, stamp, interval):
        self.context = context
        self.uuids = list(uuids)
        self.stamp = stamp
        self.interval = max(0.5, interval)
        self.due = 0.0

    def __enter__(self):
        if self.uuids:
            _RENEWER.add(self)
        return self

    def __exit__(self, *exc):
        _RENEWER.discard(self)

    def renew(self, now=None):
        """One renewal; the uuids still held by this delivery."""
        new = now or _now()
        if new <= self.stamp:
            return self.uuids
        try:
            held = lookups.renew_build_requests(self.context, self.uuids,
                                                self.stamp, new)
        except Exception as exc:  # noqa: BLE001 - tried again next period
            LOG.warning("Could not renew the take of build requests %s: "
                        "%s", ", ".join(self.uuids), exc)
            return self.uuids
        self.stamp = new
        # Committed or deleted meanwhile: nothing to keep for those.
        self.uuids = [u for u in self.uuids if u in held]
        return self.uuids


class _Renewer:
    """One thread per process renews every lease that falls due; most
    builds end long before their first renewal, and pay no thread."""

    def __init__(self):
        self._cond = threading.Condition()
        self._leases = set()
        self._pid = None
        # When the thread wakes on its own (0 while it is awake): a lease
        # due later needs no wake-up. Every build adds one, nearly always
        # due after those already held; waking the thread for each cost
        # two thread switches per build for nothing.
        self._wake = 0.0

    def add(self, lease):
        with self._cond:
            lease.due = time.monotonic() + lease.interval
            self._leases.add(lease)
            if self._pid != os.getpid():
                # Threads do not survive a fork: a worker starts its own.
                self._pid = os.getpid()
                self._wake = 0.0
                threading.Thread(target=self._run, daemon=True,
                                 name="build-lease").start()
            if lease.due < self._wake:
                self._cond.notify()

    def discard(self, lease):
        with self._cond:
            self._leases.discard(lease)

    def _run(self):
        while True:
            with self._cond:
                now = time.monotonic()
                due = [lease for lease in self._leases if lease.due <= now]
                if not due:
                    wait = max(0.05, min((lease.due for lease in
                                          self._leases),
                                         default=now + 60) - now)
                    self._wake = now + wait
                    self._cond.wait(wait)
                    self._wake = 0.0
                    continue
                for lease in due:
                    lease.due = now + lease.interval
            for lease in due:
                lease.renew()


_RENEWER = _Renewer()
