"""The cyclic garbage collector tuned for long-running services.

Two costs showed in the profiles of every keel process (bench/boot.py
--py-spy): full collections walking the whole heap -- some 160,000 objects
of imported modules, configuration and compiled SQL that live as long as
the process -- and young collections every 700 container allocations while
a request builds and drops thousands of short-lived dicts and lists, nearly
none of them in a cycle (reference counting frees them).

``settle()`` is called once a service has started: it collects what
start-up left behind, then freezes every surviving object into the
permanent generation (gc.freeze) so that no later collection walks them
again, and raises the young-generation threshold so a collection runs
only after many more net allocations.  Cyclic garbage is still collected;
start-up objects simply stop being re-examined.  Freezing before a fork
also keeps the collector from touching (and so copying) the parent's
pages in the children.
"""
import gc
import threading

# Net container allocations between young collections (CPython's default
# is 700).  Objects freed by reference counting lower the count again, so
# this bounds the memory cyclic garbage may hold before it is looked at,
# not the rate of allocation.
YOUNG_THRESHOLD = 20000
# Young collections between middle ones, middle between full (defaults 10).
MIDDLE_THRESHOLD = 10
OLD_THRESHOLD = 10

_lock = threading.Lock()
_collected = False


def settle():
    """Freeze what start-up built; cheap when called again (the all-in-one
    starts many services in one process)."""
    global _collected
    with _lock:
        if not _collected:
            gc.collect()
            _collected = True
        gc.freeze()
        gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, OLD_THRESHOLD)


def reset_for_tests():
    global _collected
    with _lock:
        _collected = False
        gc.unfreeze()
        gc.set_threshold(700, 10, 10)
