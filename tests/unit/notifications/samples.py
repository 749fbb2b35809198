"""Nova's notification samples (shared/reference/notifications) resolved
and compared by schema: object names, namespaces, versions, the keys of
every ``nova_object.data`` and the JSON type of every non-null value."""
import json
import os

SAMPLES = os.path.abspath(os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "..", "shared",
    "reference", "notifications", "samples"))


def _merge(base, overlay):
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value
    return base


def _resolve(node, folder):
    if isinstance(node, list):
        return [_resolve(x, folder) for x in node]
    if not isinstance(node, dict):
        return node
    node = {k: _resolve(v, folder) if k != "$ref" else v
            for k, v in node.items()}
    ref = node.pop("$ref", None)
    if ref is None:
        return node
    path = os.path.join(folder, ref.split("#")[0])
    with open(path) as f:
        base = _resolve(json.load(f), os.path.dirname(path))
    return _merge(base, node)


def load(name):
    """A sample envelope with every ``$ref`` laid out."""
    path = os.path.join(SAMPLES, name)
    with open(path) as f:
        return _resolve(json.load(f), SAMPLES)


def _kind(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object" if "nova_object.name" in value else "dict"
    return "null"


def schema_diff(expected, actual, path="payload"):
    """Differences between two payloads' schemas, as readable lines."""
    out = []
    ek, ak = _kind(expected), _kind(actual)
    if "null" in (ek, ak):
        return out  # nullable: a value here may be absent there
    if ek != ak:
        return ["%s: %s in the sample, %s here" % (path, ek, ak)]
    if ek == "object":
        if set(expected) != set(actual):
            out.append("%s: envelope keys %s != %s" % (
                path, sorted(expected), sorted(actual)))
        for meta in ("nova_object.name", "nova_object.namespace",
                     "nova_object.version"):
            if expected[meta] != actual[meta]:
                out.append("%s.%s: %r != %r" % (path, meta, expected[meta],
                                                actual[meta]))
        edata, adata = expected["nova_object.data"], actual[
            "nova_object.data"]
        missing = sorted(set(edata) - set(adata))
        extra = sorted(set(adata) - set(edata))
        if missing:
            out.append("%s: missing keys %s" % (path, missing))
        if extra:
            out.append("%s: extra keys %s" % (path, extra))
        for key in sorted(set(edata) & set(adata)):
            out.extend(schema_diff(edata[key], adata[key],
                                   "%s.%s" % (path, key)))
    elif ek == "list" and expected and actual:
        out.extend(schema_diff(expected[0], actual[0], path + "[0]"))
    return out
