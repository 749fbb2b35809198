"""The three patch formats the apiserver accepts on JSON objects.

- JSON merge patch (RFC 7386): objects merge, null deletes, lists are replaced.
- JSON patch (RFC 6902): add/remove/replace/move/copy/test on JSON pointers.
- Strategic merge patch, for built-in kinds only: like merge patch, except the lists that
  Kubernetes declares `patchStrategy: merge` are merged item by item on their merge key.
"""
import copy

from . import errors

# field name -> merge key for lists Kubernetes merges strategically (None: merge as a set).
STRATEGIC_LISTS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "volumes": "name", "volumeMounts": "mountPath", "env": "name", "ports": "containerPort",
    "conditions": "type", "ownerReferences": "uid", "imagePullSecrets": "name",
    "hostAliases": "ip", "taints": "key", "finalizers": None, "addresses": "type",
}


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def strategic_merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue  # directives such as $retainKeys are not modelled
        if value is None:
            out.pop(key, None)
        elif key in STRATEGIC_LISTS and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = _merge_list(out[key], value, STRATEGIC_LISTS[key])
        else:
            out[key] = strategic_merge_patch(out.get(key), value)
    return out


def _merge_list(current, patch, merge_key):
    result = copy.deepcopy(current)
    if merge_key is None:
        result.extend(v for v in patch if v not in result)
        return result
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            raise errors.bad_request(f"map in list is missing the merge key {merge_key!r}")
        idx = next((i for i, cur in enumerate(result)
                    if isinstance(cur, dict) and cur.get(merge_key) == item[merge_key]), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                result.pop(idx)
        elif idx is None:
            result.append({k: v for k, v in item.items() if k != "$patch"})
        else:
            result[idx] = strategic_merge_patch(result[idx], item)
    return result


def _parse_pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise errors.bad_request(f'JSON patch path "{path}" must start with "/"')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _walk(doc, parts, path):
    cur = doc
    for p in parts:
        if isinstance(cur, dict):
            if p not in cur:
                raise _patch_error(f'doc is missing path: "{path}"')
            cur = cur[p]
        elif isinstance(cur, list):
            cur = cur[_index(cur, p, path, allow_end=False)]
        else:
            raise _patch_error(f'doc is missing path: "{path}"')
    return cur


def _index(lst, token, path, allow_end):
    if token == "-" and allow_end:
        return len(lst)
    try:
        i = int(token)
    except ValueError:
        raise _patch_error(f'invalid array index in path "{path}"')
    if i < 0 or i > len(lst) or (i == len(lst) and not allow_end):
        raise _patch_error(f'array index out of bounds in path "{path}"')
    return i


def _patch_error(message):
    # The apiserver answers a JSON patch that does not apply with 422 Invalid.
    return errors.ApiError(422, "Invalid", message)


def _get(doc, path):
    return _walk(doc, _parse_pointer(path), path)


def _add(doc, path, value):
    parts = _parse_pointer(path)
    if not parts:
        return value
    parent = _walk(doc, parts[:-1], path)
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, path, allow_end=True), value)
    else:
        raise _patch_error(f'doc is missing path: "{path}"')
    return doc


def _remove(doc, path):
    parts = _parse_pointer(path)
    if not parts:
        raise _patch_error("cannot remove the document root")
    parent = _walk(doc, parts[:-1], path)
    last = parts[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise _patch_error(f'unable to remove nonexistent key: {last}: missing value')
        return parent.pop(last)
    if isinstance(parent, list):
        return parent.pop(_index(parent, last, path, allow_end=False))
    raise _patch_error(f'doc is missing path: "{path}"')


def json_patch(target, ops):
    if not isinstance(ops, list):
        raise errors.bad_request("json patch must be a list of operations")
    doc = copy.deepcopy(target)
    for op in ops:
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise errors.bad_request(f"invalid JSON patch operation: {op!r}")
        kind, path = op["op"], op["path"]
        if kind == "add":
            doc = _add(doc, path, copy.deepcopy(op.get("value")))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            _get(doc, path)  # must exist
            parts = _parse_pointer(path)
            if not parts:
                doc = copy.deepcopy(op.get("value"))
            else:
                parent = _walk(doc, parts[:-1], path)
                key = parts[-1] if isinstance(parent, dict) else int(parts[-1])
                parent[key] = copy.deepcopy(op.get("value"))
        elif kind in ("move", "copy"):
            value = copy.deepcopy(_get(doc, op.get("from", "")))
            if kind == "move":
                _remove(doc, op["from"])
            doc = _add(doc, path, value)
        elif kind == "test":
            try:
                have = _get(doc, path)
            except errors.ApiError:
                have = None
            if have != op.get("value"):
                raise _patch_error(f"testing value {path} failed: test operation failed")
        else:
            raise errors.bad_request(f'Unexpected kind: {kind}')
    return doc
