"""The scheduler's copy of the host aggregates.

As in Nova, the scheduler reads the aggregates once and then follows the
API's ``update_aggregates`` / ``delete_aggregate`` fanout casts instead of
querying the API database on every decision (that query and its objects
were a tenth of the scheduler's CPU).  A cast can be missed (a messaging
hiccup, a scheduler started after it was sent), so the copy is read again
from the database every ``REFRESH_SECONDS`` and on SIGHUP (``reset``).
"""
import collections
import threading
import time

REFRESH_SECONDS = 60.0


class Snapshot:
    """What one decision reads: the aggregates in id order (the database's
    order) and, per host, its aggregates in the same order."""

    __slots__ = ("aggregates", "by_host", "zones")

    def __init__(self, by_id):
        self.aggregates = [by_id[i] for i in sorted(by_id)]
        by_host = {}
        for agg in self.aggregates:
            for host in agg.hosts or ():
                by_host.setdefault(host, []).append(agg)
        self.by_host = by_host
        # A host's availability zone: its aggregates' zones, sorted, joined.
        self.zones = {}
        for host, aggs in by_host.items():
            zones = sorted({a.availability_zone for a in aggs
                            if a.availability_zone})
            if zones:
                self.zones[host] = ",".join(zones)


def _load_all(ctxt):
    from keel import objects

    return list(objects.AggregateList.get_all(ctxt))


class AggregateView:
    """Aggregates by id and the aggregate ids of each host."""

    def __init__(self, loader=_load_all, refresh=REFRESH_SECONDS):
        self._loader = loader
        self._refresh = refresh
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        self.by_id = {}
        self.host_aggregates = collections.defaultdict(set)
        self._loaded_at = None
        self._snapshot = None
        self._touched = None     # ids cast while a load runs

    # -- the fanout casts ---------------------------------------------------
    def update(self, aggregates):
        if not isinstance(aggregates, (list, tuple)) and \
                not hasattr(aggregates, "objects"):
            aggregates = [aggregates]
        with self._lock:
            for agg in aggregates:
                self.by_id[agg.id] = agg
                hosts = set(agg.hosts or [])
                for host in hosts:
                    self.host_aggregates[host].add(agg.id)
                for host, ids in self.host_aggregates.items():
                    if agg.id in ids and host not in hosts:
                        ids.discard(agg.id)
                self._note(agg.id)

    def delete(self, aggregate):
        with self._lock:
            self.by_id.pop(aggregate.id, None)
            for ids in self.host_aggregates.values():
                ids.discard(aggregate.id)
            self._note(aggregate.id)

    def _note(self, agg_id):
        self._snapshot = None
        if self._touched is not None:
            self._touched.add(agg_id)

    def reset(self):
        """Read everything again before the next decision."""
        with self._lock:
            self._loaded_at = None
            self._snapshot = None

    # -- decisions ----------------------------------------------------------
    def snapshot(self, ctxt):
        """The current aggregates (read from the database first when never
        read or last read more than ``refresh`` seconds ago)."""
        loaded_at = self._loaded_at
        if loaded_at is None or (
                self._refresh is not None
                and time.monotonic() - loaded_at >= self._refresh):
            self._load(ctxt)
        snap = self._snapshot
        if snap is None:
            with self._lock:
                snap = self._snapshot
                if snap is None:
                    snap = self._snapshot = Snapshot(self.by_id)
        return snap

    def _load(self, ctxt):
        with self._load_lock:
            loaded_at = self._loaded_at
            if loaded_at is not None and (
                    self._refresh is None
                    or time.monotonic() - loaded_at < self._refresh):
                return          # another decision just read them
            with self._lock:
                self._touched = set()
            started = time.monotonic()
            try:
                found = self._loader(ctxt)
            finally:
                with self._lock:
                    touched, self._touched = self._touched, None
            with self._lock:
                # A cast that arrived while we read is newer than our read.
                by_id = {a.id: a for a in found if a.id not in touched}
                by_id.update((i, a) for i, a in self.by_id.items()
                             if i in touched)
                self.by_id = by_id
                hosts = collections.defaultdict(set)
                for agg in by_id.values():
                    for host in agg.hosts or ():
                        hosts[host].add(agg.id)
                self.host_aggregates = hosts
                self._snapshot = None
                self._loaded_at = started
