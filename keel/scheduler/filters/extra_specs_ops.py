"""The operators of flavor extra specs matched against host values
(``>= 4``, ``s== x86_64``, ``<in> avx``, ``<all-in> a b``, ``<or> a <or> b``;
a bare value matches when equal; a bare ``= N`` means at least N)."""
import operator


def _num(op):
    return lambda value, req: op(float(value), float(req))


def _str(op):
    return lambda value, req: op(str(value), req)


_OPS = {
    "=": _num(operator.ge),
    "==": _num(operator.eq),
    "!=": _num(operator.ne),
    ">=": _num(operator.ge),
    "<=": _num(operator.le),
    "s==": _str(operator.eq),
    "s!=": _str(operator.ne),
    "s<": _str(operator.lt),
    "s<=": _str(operator.le),
    "s>": _str(operator.gt),
    "s>=": _str(operator.ge),
    "<in>": lambda value, req: req in value,
}


def match(value, req):
    words = str(req).split()
    op = words[0] if words else None
    if op == "<or>":
        if value is None:
            return False
        options = [w for w in words[1:] if w != "<or>"]
        return str(value) in options
    if op == "<all-in>":
        if value is None:
            return False
        return all(w in value for w in words[1:])
    method = _OPS.get(op)
    if method is None:
        return value == req or str(value) == str(req)
    if value is None or len(words) < 2:
        return False
    try:
        return bool(method(value, words[1]))
    except (ValueError, TypeError):
        return False
