"""Wait for one object to reach a condition, through a watch (no polling).

The VM/VMI informers already serve waits on guests; objects an operation
creates for itself (snapshots, exports, claims) are waited on here: one
list of that name for a resourceVersion, then a watch of that name from it,
re-listed on 410 Gone, until the predicate holds or the deadline passes.
"""
import logging
import math
import time

from keel.virt.kubevirt import kube

LOG = logging.getLogger(__name__)


def wait_for(client, kind, name, predicate, timeout, namespace=None):
    """``predicate(obj)`` (obj is None once the object is gone) re-checked on
    every change; returns its first truthy value, None on timeout."""
    deadline = time.monotonic() + timeout
    selector = "metadata.name=%s" % name
    while True:
        items, rv = client.list(kind, namespace=namespace,
                                field_selector=selector)
        obj = items[0] if items else None
        try:
            while True:
                value = predicate(obj)
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                for etype, new in client.watch(
                        kind, rv, namespace=namespace, field_selector=selector,
                        timeout_seconds=math.ceil(left)):
                    rv = new.get("metadata", {}).get("resourceVersion", rv)
                    if etype == "BOOKMARK":
                        continue
                    obj = None if etype == "DELETED" else new
                    value = predicate(obj)
                    if value:
                        return value
                    if time.monotonic() >= deadline:
                        return None
        except kube.Gone:
            continue        # history compacted: list again
        except Exception as exc:  # noqa: BLE001 - a dropped stream
            # The connection broke mid-watch: resume with a fresh list (the
            # adapter retries the list itself), losing no change.
            if time.monotonic() >= deadline:
                return None
            LOG.info("Watch of %s %s broke (%s); listing again", kind.plural,
                     name, str(exc).splitlines()[0] if str(exc) else exc)
            time.sleep(min(1.0, client.opts.api_retry_interval))
