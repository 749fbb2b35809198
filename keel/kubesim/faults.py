"""Request-level fault injection: API errors and hung requests on matching requests.

Kubevirt-level faults (unschedulable, image pull, DataVolume and migration failures) live with
the controllers they affect; see `KubeVirtFaults`.
"""
import re
import threading


class RequestFault:
    def __init__(self, verb, path, count, status=None, reason=None, message=None, delay=None):
        self.verb = verb.lower() if verb else None
        self.path = re.compile(path) if path else None
        self.remaining = count          # None: every matching request
        self.status = status
        self.reason = reason
        self.message = message
        self.delay = delay
        self.hits = 0

    def matches(self, method, verb, path):
        if self.verb and self.verb not in (method.lower(), verb):
            return False
        return not self.path or bool(self.path.search(path))


class RequestFaults:
    def __init__(self):
        self._lock = threading.Lock()
        self._faults = []

    def add(self, fault):
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear(self):
        with self._lock:
            self._faults.clear()

    def take(self, method, verb, path):
        """The first armed fault matching this request, consuming one of its uses."""
        with self._lock:
            for f in self._faults:
                if f.matches(method, verb, path) and f.remaining != 0:
                    if f.remaining is not None:
                        f.remaining -= 1
                    f.hits += 1
                    return f
        return None


class KubeVirtFaults:
    """Faults the simulated KubeVirt/CDI controllers consult; names may be None for 'any'.

    Each entry is {name_or_None: remaining_count_or_None}."""

    def __init__(self):
        self._lock = threading.Lock()
        self._armed = {}

    def arm(self, kind, name=None, count=None, **data):
        with self._lock:
            self._armed.setdefault(kind, []).append({"name": name, "count": count, **data})

    def disarm(self, kind=None):
        with self._lock:
            if kind is None:
                self._armed.clear()
            else:
                self._armed.pop(kind, None)

    def take(self, kind, name):
        with self._lock:
            for entry in self._armed.get(kind, []):
                if entry["name"] not in (None, name) or entry["count"] == 0:
                    continue
                if entry["count"] is not None:
                    entry["count"] -= 1
                return entry
        return None
