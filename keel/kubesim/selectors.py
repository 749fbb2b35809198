"""labelSelector and fieldSelector parsing and matching, with the apiserver's grammar.

Label requirements: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`.
Field selectors only accept the fields each kind indexes; anything else is a 400, as upstream.
"""
import re

from . import errors

_FIELDS_COMMON = {"metadata.name", "metadata.namespace"}
# Field labels each built-in kind supports (custom resources only get the common two).
_FIELDS_BY_KIND = {
    "Pod": {"spec.nodeName", "status.phase", "spec.restartPolicy", "spec.schedulerName",
            "spec.serviceAccountName", "status.podIP", "status.nominatedNodeName"},
    "Node": {"spec.unschedulable"},
    "Namespace": {"status.phase"},
    "Secret": {"type"},
    "Event": {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
              "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
              "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
}

_KEY = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def _split_top(text):
    """Split on commas that are not inside parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _check_key(key, raw):
    if not _KEY.match(key):
        raise errors.bad_request(f'unable to parse requirement: invalid label key "{key}" '
                                 f'in selector "{raw}"')


def parse_labels(raw):
    """Return a predicate over a labels dict."""
    if not raw:
        return lambda labels: True
    reqs = []
    for part in _split_top(raw):
        m = re.match(r"^(\S+)\s+(in|notin)\s*\((.*)\)$", part)
        if m:
            key, op, vals = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",")}
            _check_key(key, raw)
            reqs.append((key, op, vals))
            continue
        m = re.match(r"^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$", part)
        if m:
            key, op, val = m.group(1), m.group(2), m.group(3)
            _check_key(key, raw)
            reqs.append((key, "!=" if op == "!=" else "=", val))
            continue
        if part.startswith("!"):
            _check_key(part[1:].strip(), raw)
            reqs.append((part[1:].strip(), "!exists", None))
            continue
        _check_key(part, raw)
        reqs.append((part, "exists", None))

    def match(labels):
        labels = labels or {}
        for key, op, val in reqs:
            have = key in labels
            cur = labels.get(key)
            if op == "=" and cur != val:
                return False
            if op == "!=" and have and cur == val:
                return False
            if op == "in" and (not have or cur not in val):
                return False
            if op == "notin" and have and cur in val:
                return False
            if op == "exists" and not have:
                return False
            if op == "!exists" and have:
                return False
        return True
    return match


def field_value(obj, path):
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def parse_fields(raw, kind):
    """Return a predicate over a whole object; unsupported field labels raise 400."""
    if not raw:
        return lambda obj: True
    allowed = _FIELDS_COMMON | _FIELDS_BY_KIND.get(kind, set())
    reqs = []
    for part in _split_top(raw):
        m = re.match(r"^([^=!]+)(==|=|!=)(.*)$", part)
        if not m:
            raise errors.bad_request(f'invalid selector: \'{raw}\'; can\'t understand \'{part}\'')
        key, op, val = m.group(1).strip(), m.group(2), m.group(3).strip()
        if key not in allowed:
            raise errors.bad_request(f'field label not supported: {key}')
        reqs.append((key, op != "!=", val))

    def match(obj):
        return all((field_value(obj, k) == v) == eq for k, eq, v in reqs)
    return match
