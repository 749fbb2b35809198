"""Watch streams: history replay from a resourceVersion, live events, bookmarks, 410 Gone.

A watch sees an object through its selectors the way the apiserver's watch cache does: an
update that makes an object match is an ADDED, one that makes it stop matching a DELETED.
"""
import threading
import time

from . import errors


class WatchHub:
    """Counts live streams and lets tests cut them (the 'watch disconnect' fault)."""

    def __init__(self, store):
        self.store = store
        self.epoch = 0
        self.mode = "clean"
        self.active = 0
        self.bookmark_interval = 60.0
        self._force_bookmark = 0
        self._lock = threading.Lock()

    def disconnect_all(self, abrupt=False):
        with self.store.cond:
            self.epoch += 1
            self.mode = "abrupt" if abrupt else "clean"
            self.store.cond.notify_all()

    def bookmark_now(self):
        with self.store.cond:
            self._force_bookmark += 1
            self.store.cond.notify_all()

    def stream(self, rt, ns, label_match, field_match, rv_param, timeout, bookmarks,
               send_initial=False, alive=lambda: True):
        """Yield ('event', dict) items, ending with ('end', 'clean'|'abrupt').

        send_initial (sendInitialEvents=true) replays the current objects as ADDED and then
        marks the end of that replay with a BOOKMARK annotated k8s.io/initial-events-end."""
        store = self.store

        def matches(obj):
            if obj is None:
                return False
            if ns and obj["metadata"].get("namespace") != ns:
                return False
            return label_match(obj["metadata"].get("labels")) and field_match(obj)

        epoch = self.epoch
        forced = self._force_bookmark
        deadline = time.monotonic() + timeout if timeout else None
        with store.lock:
            if rv_param in (None, "", "0") or send_initial:
                items, pos = store.items(rt, ns)
                initial = [{"type": "ADDED", "object": o} for o in items if matches(o)]
                if send_initial and bookmarks:
                    initial.append(_bookmark(rt, pos, initial_end=True))
            else:
                pos = int(rv_param)
                initial = []
        with self._lock:
            self.active += 1
        try:
            for ev in initial:
                yield "event", ev
            next_bookmark = time.monotonic() + self.bookmark_interval
            while True:
                # Decide under the lock, yield outside it: a slow client must never hold up
                # writers.
                ending, error, events = None, None, []
                with store.cond:
                    while True:
                        nowt = time.monotonic()
                        if (store.closed or self.epoch != epoch or store.resource_version > pos
                                or (deadline and nowt >= deadline)
                                or (bookmarks and (nowt >= next_bookmark
                                                   or self._force_bookmark != forced))):
                            break
                        limit = next_bookmark if bookmarks else nowt + 3600
                        if deadline:
                            limit = min(limit, deadline)
                        # Wake at least every second to notice a client that went away.
                        store.cond.wait(min(1.0, max(0.0, limit - nowt)))
                        if not alive():
                            ending = "abrupt"
                            break
                    if ending is None and store.closed:
                        ending = "abrupt"
                    elif ending is None and self.epoch != epoch:
                        ending = self.mode
                    elif ending is None:
                        try:
                            events = store.events_after(pos)
                        except errors.ApiError as exc:
                            error = exc
                        if events:
                            pos = events[-1].rv
                if error is not None:
                    yield "event", {"type": "ERROR", "object": error.status()}
                    ending = "clean"
                if ending is not None:
                    yield "end", ending
                    return
                for ev in events:
                    if ev.rt.storage != rt.storage:
                        continue
                    out = _translate(ev, matches)
                    if out:
                        yield "event", out
                nowt = time.monotonic()
                timed_out = deadline and nowt >= deadline
                if bookmarks and (nowt >= next_bookmark or self._force_bookmark != forced
                                  or timed_out):
                    forced = self._force_bookmark
                    next_bookmark = nowt + self.bookmark_interval
                    yield "event", _bookmark(rt, pos)
                if timed_out:
                    yield "end", "clean"
                    return
        finally:
            with self._lock:
                self.active -= 1


def _translate(ev, matches):
    now_match = matches(ev.obj)
    if ev.type == "ADDED":
        return {"type": "ADDED", "object": ev.obj} if now_match else None
    if ev.type == "DELETED":
        return {"type": "DELETED", "object": ev.obj} if (now_match or matches(ev.old)) else None
    was = matches(ev.old)
    if was and now_match:
        return {"type": "MODIFIED", "object": ev.obj}
    if now_match:
        return {"type": "ADDED", "object": ev.obj}
    if was:
        return {"type": "DELETED", "object": ev.obj}
    return None


def _bookmark(rt, rv, initial_end=False):
    md = {"resourceVersion": str(rv)}
    if initial_end:
        md["annotations"] = {"k8s.io/initial-events-end": "true"}
    return {"type": "BOOKMARK",
            "object": {"kind": rt.kind, "apiVersion": rt.api_version, "metadata": md}}
