"""The cyclic garbage collector paused while a decision runs.

A decision among 1,000 hosts allocates some 25,000 containers (the decoded
allocation candidates, the host states) that all die when it returns, and
nearly none of them in a cycle: reference counting frees them.  With the
collector running, those allocations trigger ~30 young and ~3 middle
collections per decision that walk the live ones again and again, and
now and then a full collection of the whole heap: together more time than
the filters and weighers (measured with bench/scheduler.py).  Paused, the
next collection after the decision finds almost nothing left to walk.

The pause is process-wide, so overlapping decisions share it (a count),
and a process that is never without a decision in progress still
collects: a decision that ends after the pause has lasted
``MAX_PAUSE_SECONDS`` runs one collection of the young and middle
generations itself.
"""
import contextlib
import gc
import threading
import time

MAX_PAUSE_SECONDS = 2.0

_lock = threading.Lock()
_holders = 0
_disabled_by_us = False
_since = 0.0


@contextlib.contextmanager
def paused():
    global _holders, _disabled_by_us, _since
    with _lock:
        if _holders == 0:
            # Someone else (a test, a debugger) turned it off: leave it so.
            _disabled_by_us = gc.isenabled()
            if _disabled_by_us:
                gc.disable()
            _since = time.monotonic()
        _holders += 1
    try:
        yield
    finally:
        collect = False
        with _lock:
            _holders -= 1
            if _holders == 0:
                if _disabled_by_us:
                    gc.enable()
                    _disabled_by_us = False
            elif _disabled_by_us and \
                    time.monotonic() - _since > MAX_PAUSE_SECONDS:
                _since = time.monotonic()
                collect = True
        if collect:
            # The young and middle generations: what was allocated during
            # the pause. Objects older than it were not held back by it,
            # and a full collection walks the whole heap (tens of ms in the
            # all-in-one, every MAX_PAUSE_SECONDS while decisions overlap).
            gc.collect(1)
