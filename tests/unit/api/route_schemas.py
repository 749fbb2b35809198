"""Pair the project's route schemas with upstream's, by route and version.

``recorded(handler)`` lists what keel.api.validation recorded on a handler
(following VersionedHandler implementations and ActionDispatcher actions);
``comparisons(table)`` turns a route table into (route, version range,
ours, upstream ref) cases using routes.json; ``problems(cases)`` runs the
generated documents of schema_cases through both sides.
"""
import copy
import functools
import json
import pathlib

from keel.api import microversion
from keel.api import wsgi
from tests.unit.api import schema_cases

REFERENCE = pathlib.Path(__file__).resolve().parents[4] / "shared" / \
    "reference" / "compute-api"
KIND = {"body": "request", "query": "query"}


@functools.lru_cache(maxsize=None)
def _upstream_module(module):
    return json.loads((REFERENCE / "schemas" / f"{module}.json").read_text())


def upstream_schema(ref):
    module, name = ref.split(".", 1)
    # A deep copy: callers may not change the cached module data.
    return copy.deepcopy(_upstream_module(module)[name])


def has_upstream_data(ref):
    """False for refs the reference set holds no schema for (the removed
    APIs' stubs, which accept anything before answering 410)."""
    try:
        upstream_schema(ref)
    except (KeyError, FileNotFoundError):
        return False
    return True


def _routes_index():
    index = {}
    for r in json.loads((REFERENCE / "routes.json").read_text())["routes"]:
        index[(r["method"], r["path"], r.get("body_action"))] = r
    return index


def recorded(handler, action=None):
    """[(action, kind, schema, lo, hi)] for one route handler."""
    out = []
    if isinstance(handler, wsgi.ActionDispatcher):
        for name, sub in handler.actions.items():
            out.extend(recorded(sub, name))
        return out
    impls = handler.impls if isinstance(handler, wsgi.VersionedHandler) \
        else [(None, None, handler, None)]
    for lo, hi, func, _status in impls:
        for rec in getattr(func, "__keel_schemas__", ()):
            rlo = rec["min_version"] or lo or microversion.MIN_VERSION
            rhi = rec["max_version"] or hi
            out.append((action, rec["kind"], rec["schema"],
                        microversion.as_version(rlo),
                        microversion.as_version(rhi) if rhi else None))
    return out


def _overlap(lo, hi, olo, ohi):
    return (hi is None or olo <= hi) and (ohi is None or lo <= ohi)


def comparisons(table):
    """Cases to check and routes that have schemas but no upstream match."""
    index = _routes_index()
    cases, unmatched = [], []
    for path, methods in table.items():
        for method, handler in methods.items():
            for action, kind, ours, lo, hi in recorded(handler):
                route = index.get((method, path, action))
                if route is None:
                    unmatched.append((method, path, action))
                    continue
                for up in route.get("schemas", {}).get(KIND[kind], []):
                    ulo = microversion.as_version(
                        "2.1" if up["min"] in (None, "2.0") else up["min"])
                    uhi = microversion.as_version(up["max"]) \
                        if up["max"] else None
                    if up["max"] == "2.0":
                        continue  # the legacy /v2 schema: not microversioned
                    if not has_upstream_data(up["ref"]):
                        unmatched.append((method, path, action, up["ref"]))
                        continue
                    if _overlap(lo, hi, ulo, uhi):
                        cases.append(((method, path, action, kind),
                                      (str(max(lo, ulo)),
                                       str(min(hi, uhi) if hi and uhi
                                           else hi or uhi)),
                                      ours, up["ref"]))
    return cases, unmatched


def uncovered(table):
    """Upstream schema ranges inside a handler's versions with no schema of
    ours: a route we implement but do not validate as Nova does."""
    index = _routes_index()
    gaps = []
    for path, methods in table.items():
        for method, handler in methods.items():
            subs = handler.actions.items() \
                if isinstance(handler, wsgi.ActionDispatcher) \
                else [(None, handler)]
            for action, sub in subs:
                if not isinstance(sub, wsgi.VersionedHandler) or all(
                        getattr(f, "not_implemented", False)
                        for _l, _h, f, _s in sub.impls):
                    continue  # a 501 placeholder validates nothing
                route = index.get((method, path, action))
                if route is None:
                    continue
                mine = recorded(sub, action)
                for kind, upkind in KIND.items():
                    for up in route.get("schemas", {}).get(upkind, []):
                        if up["max"] == "2.0" or \
                                not has_upstream_data(up["ref"]):
                            continue
                        ulo = microversion.as_version(
                            "2.1" if up["min"] in (None, "2.0")
                            else up["min"])
                        uhi = microversion.as_version(up["max"]) \
                            if up["max"] else None
                        served = any(_overlap(lo, hi, ulo, uhi)
                                     for lo, hi, *_ in sub.impls)
                        have = any(k == kind and _overlap(lo, hi, ulo, uhi)
                                   for _a, k, _s, lo, hi in mine)
                        if served and not have:
                            gaps.append((method, path, action, up["ref"]))
    return gaps


def problems(cases):
    """[(case, disagreements)] for every case whose schemas disagree."""
    out = []
    for case in cases:
        _route, _range, ours, ref = case
        diffs = schema_cases.parity(ours, upstream_schema(ref))
        if diffs:
            out.append((case, diffs[:3]))
    return out
