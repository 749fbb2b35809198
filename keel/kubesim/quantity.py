"""Kubernetes resource quantities ("500m", "4Gi", "1e3") as plain numbers."""
import functools
import re

_SUFFIX = {"": 1, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
           "P": 1e15, "E": 1e18, "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40,
           "Pi": 2 ** 50, "Ei": 2 ** 60}
_RE = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$")


def parse(q):
    if q is None or q == "":
        return 0.0
    if isinstance(q, (int, float)):
        return float(q)
    return _parse_str(str(q))


@functools.lru_cache(maxsize=4096)   # the same few strings are parsed again on every step
def _parse_str(q):
    m = _RE.match(q.strip())
    if not m or m.group(2) not in _SUFFIX:
        raise ValueError(f"invalid quantity {q!r}")
    return float(m.group(1)) * _SUFFIX[m.group(2)]


def cpu_str(cores):
    milli = int(round(cores * 1000))
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def mem_str(nbytes):
    n = int(nbytes)
    for suffix, mult in (("Gi", 2 ** 30), ("Mi", 2 ** 20), ("Ki", 2 ** 10)):
        if n and n % mult == 0:
            return f"{n // mult}{suffix}"
    return str(n)
