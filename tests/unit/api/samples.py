"""Compare a response with an upstream API sample by shape.

Samples hold example values; what must match is the structure: the same
keys at every level and the same JSON types (lists item by item, or against
the sample's first item when the lengths differ). ``ignore`` names keys
whose presence depends on state or policy (``fault``, ``*_links``,
admin-only attributes …).
"""
import json
import pathlib

SAMPLES = pathlib.Path(__file__).resolve().parents[4] / "shared" / \
    "reference" / "compute-api" / "samples"


def load(name):
    return json.loads((SAMPLES / name).read_text())


def sample_for(files_by_version, version):
    """The sample file of the highest listed microversion <= ``version``."""
    def key(v):
        major, minor = v.split(".")
        return int(major), int(minor)
    usable = [v for v in files_by_version if key(v) <= key(version)]
    return files_by_version[max(usable, key=key)][0] if usable else None


def _type(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__


def shape_differences(actual, expected, ignore=(), path="$"):
    """Human-readable differences; empty when the shapes agree."""
    out = []
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = (set(expected) | set(actual)) - set(ignore)
        for key in sorted(keys):
            where = f"{path}.{key}"
            if key not in actual:
                out.append(f"{where}: missing")
            elif key not in expected:
                out.append(f"{where}: not in the sample")
            else:
                out.extend(shape_differences(actual[key], expected[key],
                                             ignore, where))
    elif isinstance(expected, list) and isinstance(actual, list):
        # item-wise when the sample has as many items (heterogeneous lists
        # such as links), else every item against the sample's first one
        for i, item in enumerate(actual if expected else ()):
            model = expected[i] if len(expected) == len(actual) \
                else expected[0]
            out.extend(shape_differences(item, model, ignore,
                                         f"{path}[{i}]"))
    elif expected is not None and actual is not None and \
            _type(actual) != _type(expected):
        out.append(f"{path}: {_type(actual)} where the sample has "
                   f"{_type(expected)}")
    return out
