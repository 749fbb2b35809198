"""Informer: one list + watch per resource kind, kept in a local cache.

The driver answers ``get_info`` and waits for guests to change state from
this cache instead of polling objects one by one.  The watch resumes from
the last resourceVersion it saw (bookmarks included); when the server says
410 Gone the kind is re-listed and the differences are delivered as
synthetic events, so a handler never misses a change, only intermediate
states.
"""
import logging
import threading
import time

from keel.virt.kubevirt import kube

LOG = logging.getLogger(__name__)


class Informer(object):
    """Cache of ``kind`` objects matching ``label_selector`` by name.

    ``handler(event_type, old, new)`` is called from the watch thread for
    every change (``old`` None on ADDED, ``new`` None on DELETED).
    """

    def __init__(self, kube_client, kind, label_selector=None, handler=None,
                 retry_interval=1.0, cond=None, namespace=None):
        self.kube = kube_client
        self.kind = kind
        self.label_selector = label_selector
        self.handler = handler
        self.namespace = namespace
        self.retry_interval = retry_interval
        self.resource_version = None
        self.relists = 0
        self._cache = {}
        # Informers may share one condition so a waiter can watch a
        # predicate over several kinds (a VM and its VMI).
        self._cond = cond or threading.Condition()
        self._stop = threading.Event()
        self._thread = None
        self._resp = None
        self._synced = threading.Event()

    # -- reading --------------------------------------------------------------
    def get(self, name):
        with self._cond:
            return self._cache.get(name)

    def items(self):
        with self._cond:
            return list(self._cache.values())

    def names(self):
        with self._cond:
            return list(self._cache)

    def wait_for(self, predicate, timeout):
        """Block until ``predicate()`` is truthy (re-checked on each change);
        returns its value, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0 or self._stop.is_set():
                    return None
                self._cond.wait(min(left, 1.0))

    # -- running --------------------------------------------------------------
    def start(self):
        """List synchronously (so the cache is complete on return), then
        watch in a background thread."""
        self._relist()
        self._synced.set()
        self._thread = threading.Thread(
            target=self._run, daemon=True,
            name="kubevirt-informer-%s" % self.kind.plural)
        self._thread.start()

    def stop(self):
        self._stop.set()
        resp = self._resp
        if resp is not None:
            _shutdown(resp)     # unblock the thread's read of the stream
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self):
        while not self._stop.is_set():
            try:
                self._watch_once()
            except kube.Gone:
                LOG.info("%s watch expired at %s; re-listing",
                         self.kind.plural, self.resource_version)
                self._safe_relist()
            except Exception as exc:  # noqa: BLE001 - keep watching
                if self._stop.is_set():
                    return
                LOG.warning("%s watch broke (%s); resuming from %s",
                            self.kind.plural, str(exc).splitlines()[0],
                            self.resource_version)
                self._stop.wait(self.retry_interval)

    def _safe_relist(self):
        while not self._stop.is_set():
            try:
                self._relist()
                return
            except Exception as exc:  # noqa: BLE001 - cluster unreachable
                LOG.warning("%s re-list failed: %s", self.kind.plural, exc)
                self._stop.wait(self.retry_interval)

    def _watch_once(self):
        def remember(resp):
            self._resp = resp
            # stop() may have looked for a response before this one came.
            if self._stop.is_set():
                _shutdown(resp)
        try:
            for etype, obj in self.kube.watch(
                    self.kind, self.resource_version,
                    label_selector=self.label_selector,
                    namespace=self.namespace, on_response=remember):
                if self._stop.is_set():
                    return
                rv = (obj.get("metadata") or {}).get("resourceVersion")
                if etype != "BOOKMARK":
                    self._apply(etype, obj)
                if rv:
                    self.resource_version = rv
        finally:
            self._resp = None

    def _relist(self):
        items, rv = self.kube.list(self.kind, namespace=self.namespace,
                                   label_selector=self.label_selector)
        fresh = {o["metadata"]["name"]: o for o in items}
        with self._cond:
            old = dict(self._cache)
        for name, obj in fresh.items():
            before = old.get(name)
            if before is None:
                self._apply("ADDED", obj)
            elif (before["metadata"].get("resourceVersion") !=
                  obj["metadata"].get("resourceVersion")):
                self._apply("MODIFIED", obj)
        for name, obj in old.items():
            if name not in fresh:
                self._apply("DELETED", obj)
        self.resource_version = rv
        self.relists += 1

    def _apply(self, etype, obj):
        name = obj["metadata"]["name"]
        with self._cond:
            old = self._cache.get(name)
            if etype == "DELETED":
                self._cache.pop(name, None)
                new = None
            else:
                self._cache[name] = obj
                new = obj
            self._cond.notify_all()
        if self.handler is not None:
            try:
                self.handler(etype, old, new)
            except Exception:  # noqa: BLE001 - a handler bug must not stop us
                LOG.exception("%s event handler failed", self.kind.plural)


def _shutdown(resp):
    try:
        resp.shutdown()
    except Exception:  # noqa: BLE001 - best effort on a dying socket
        pass
