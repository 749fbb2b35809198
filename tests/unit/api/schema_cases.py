"""Generated request documents for comparing two JSON Schemas.

``documents(schema)`` builds a valid minimal document, a "full" one with every
optional property, and mutations of both: each required key removed, an
unknown key added at every object, every property replaced by values of the
wrong type, at and past its length / numeric bounds, outside its enum, and
not matching its format. ``parity(ours, theirs)`` runs the documents of both
schemas through both validators and returns the documents they disagree on.

Reusable for any resource: give it the two schemas; the test modules decide
which pairs to compare (route table + routes.json, or a schema module's
``UPSTREAM`` map).
"""
import copy
import json

from keel.api import validation

UUID = "0b3a9d7c-5d7e-4f55-9a57-6f0c1ad9d4c1"
# Values tried when a schema needs a string/number we cannot derive.
POOL = [
    "a", "abc", "A-b_c.d", "1", "0", "10", "-1", "1.5", "true", "ssh",
    "x509", UUID, "2020-01-02T03:04:05Z", "2020-01-02", "10.0.0.1", "::1",
    "10.0.0.0/24", "fe80::/64", "http://example.com/x", "aGVsbG8=",
    "fa:16:3e:00:00:01", "host-1.example.com", "nova", "name with space",
    "", " a", "a ", "x" * 256, "new", "ACTIVE", "asc", "desc",
]
WRONG_TYPES = [None, True, 0, -1, 1.5, "", "a", [], {}, ["a"], {"a": 1}]


class _Validator:
    def __init__(self, schema):
        self.v = validation.SchemaValidator(schema)

    def ok(self, doc):
        return self.v.is_valid(doc)  # strict validation never mutates


_CACHE = {}


def _validator(schema):
    # Keyed by identity; the schema is kept in the entry so ids stay unique.
    entry = _CACHE.get(id(schema))
    if entry is None or entry[0] is not schema:
        entry = _CACHE[id(schema)] = (schema, _Validator(schema))
    return entry[1]


def _types(schema):
    t = schema.get("type")
    if isinstance(t, list):
        return t
    if t:
        return [t]
    if "properties" in schema:
        return ["object"]
    return []


def _candidates(schema, full):
    """Values that might satisfy ``schema`` (checked by the caller)."""
    out = []
    if "const" in schema:
        out.append(schema["const"])
    if "enum" in schema:
        out.extend(schema["enum"])
    if "default" in schema:
        out.append(schema["default"])
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, []):
            out.extend(_candidates(sub, full))
    for t in _types(schema):
        if t == "object":
            out.append(_object(schema, full))
        elif t == "array" and "prefixItems" in schema:
            out.append([example(p, full) for p in schema["prefixItems"]])
        elif t == "array":
            item = example(schema.get("items", {}), full)
            n = max(schema.get("minItems", 1 if full else 0), 0)
            out.append([item] * n if item is not _NONE else [])
        elif t == "string":
            lo = schema.get("minLength", 1)
            out.extend(["a" * max(lo, 1)] + POOL)
        elif t in ("integer", "number"):
            lo = schema.get("minimum")
            if lo is None and "exclusiveMinimum" in schema:
                lo = schema["exclusiveMinimum"] + 1
            out.extend([v for v in (lo, 1, 0, 10, 1.5) if v is not None])
        elif t == "boolean":
            out.extend([True, False])
        elif t == "null":
            out.append(None)
    if not _types(schema) and not out:
        out.extend(["a", 1, True, None])
    return out


class _None:
    pass


_NONE = _None()


def example(schema, full=False):
    """A document valid for ``schema``, or ``_NONE`` when none was found."""
    checker = _validator(schema)
    for value in _candidates(schema, full):
        if value is _NONE:
            continue
        if checker.ok(value):
            return value
    return _NONE


def _object(schema, full):
    doc = {}
    props = schema.get("properties", {})
    names = list(props) if full else list(schema.get("required", []))
    for name in names:
        value = example(props.get(name, {}), full)
        if value is not _NONE:
            doc[name] = value
    patterns = schema.get("patternProperties", {})
    if patterns and (full or schema.get("minProperties")):
        sub = next(iter(patterns.values()))
        value = example(sub, full)
        key = next((k for k in ("a", "key1", "hw:cpu_policy", "a1")
                    if _validator({"patternProperties": patterns,
                                   "additionalProperties": False}).ok(
                                       {k: value})), None)
        if key is not None and value is not _NONE:
            doc[key] = value
    return doc


def _walk(doc, schema, path=()):
    """(path, value, subschema) for every node of ``doc``."""
    yield path, doc, schema
    if isinstance(doc, dict):
        props = _merged_properties(schema)
        patterns = list(schema.get("patternProperties", {}).values())
        for key, value in doc.items():
            sub = props.get(key, patterns[0] if patterns else {})
            yield from _walk(value, sub, path + (key,))
    elif isinstance(doc, list) and doc:
        items = schema.get("prefixItems", [schema.get("items", {})])
        yield from _walk(doc[0], items[0] if items else {}, path + (0,))


def _merged_properties(schema):
    props = dict(schema.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, []):
            for name, sub_schema in sub.get("properties", {}).items():
                props.setdefault(name, sub_schema)
    return props


def _replace(doc, path, value):
    doc = copy.deepcopy(doc)
    if not path:
        return value
    node = doc
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return doc


def _delete(doc, path):
    doc = copy.deepcopy(doc)
    node = doc
    for step in path[:-1]:
        node = node[step]
    del node[path[-1]]
    return doc


def _variants(schema):
    """Edge values for one node's schema."""
    out = list(WRONG_TYPES)
    for sub in [schema] + schema.get("allOf", []) + schema.get("anyOf", []):
        for bound in ("minLength", "maxLength"):
            if bound in sub:
                n = sub[bound]
                out.extend(["a" * max(n - 1, 0), "a" * n, "a" * (n + 1)])
        for bound in ("minimum", "maximum", "exclusiveMinimum",
                      "exclusiveMaximum"):
            if bound in sub and isinstance(sub[bound], (int, float)):
                n = sub[bound]
                out.extend([n - 1, n, n + 1, str(n - 1), str(n + 1)])
        if "enum" in sub:
            out.extend([str(v) + "x" for v in sub["enum"]])
            out.extend(sub["enum"])
        if "format" in sub:
            out.extend(["not-a-" + sub["format"], " padded", "a:b", UUID])
        if "pattern" in sub:
            out.extend(["-1", "abc", "1", " ", "a!b"])
        if "minItems" in sub or "maxItems" in sub:
            out.extend([[], ["a"] * 3])
    out.extend(POOL)
    return out


def documents(schema):
    """Valid and invalid documents derived from ``schema``."""
    docs = [None, [], {}, "", {"zz_unknown": 1}]
    bases = [d for d in (example(schema), example(schema, full=True))
             if d is not _NONE]
    for base in bases:
        docs.append(base)
        for path, value, sub in _walk(base, schema):
            if isinstance(value, dict):
                docs.append(_replace(base, path,
                                     dict(value, zz_unknown="x")))
                for key in list(value):
                    docs.append(_delete(base, path + (key,)))
            if path:
                for variant in _variants(sub):
                    docs.append(_replace(base, path, variant))
                if isinstance(value, list):
                    docs.append(_replace(base, path, value * 2))
    unique, seen = [], set()
    for doc in docs:
        key = json.dumps(doc, sort_keys=True)
        if key not in seen:
            seen.add(key)
            unique.append(doc)
    return unique


_PARITY_CACHE = {}


def _key(value):
    return json.dumps(value, sort_keys=True, default=str)


def parity(ours, theirs):
    """Documents on which the two schemas disagree: [(doc, ours, theirs)].

    Each distinct pair of schemas is compared once per process (the same
    pair recurs across microversion ranges and test functions), on the
    union of both schemas' documents without repeats.
    """
    cache_key = (_key(ours), _key(theirs))
    if cache_key in _PARITY_CACHE:
        return list(_PARITY_CACHE[cache_key])
    mine, upstream = _validator(ours), _validator(theirs)
    diffs, seen = [], set()
    for doc in documents(ours) + documents(theirs):
        doc_key = _key(doc)
        if doc_key in seen:
            continue
        seen.add(doc_key)
        a, b = mine.ok(doc), upstream.ok(doc)
        if a != b:
            diffs.append((doc, a, b))
    _PARITY_CACHE[cache_key] = list(diffs)
    return diffs
