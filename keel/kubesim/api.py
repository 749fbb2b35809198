"""The REST surface: routing, CRUD verbs, list paging, watch streaming and pod logs.

Requests go: fault injection -> route -> verb. Errors leave as `Status` JSON with the code the
apiserver would use; writes return 201/200/202 as upstream does.
"""
import base64
import collections
import json
import select
import socket
import threading
import traceback

from . import errors
from . import patching
from . import resources
from . import selectors

_NOT_FOUND = errors.ApiError(404, "NotFound", "the server could not find the requested resource")
_PATCHERS = {
    "application/merge-patch+json": patching.merge_patch,
    "application/json-patch+json": patching.json_patch,
    "application/strategic-merge-patch+json": patching.strategic_merge_patch,
}


def _out(rt, obj):
    """Serve an object in the version the request used (versions share storage)."""
    if obj.get("apiVersion") != rt.api_version:
        obj = dict(obj, apiVersion=rt.api_version)
    return obj


def _peer_closed(sock):
    """True once the client has closed its end (readable with nothing to read)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _truthy(value):
    return str(value).lower() in ("1", "true")


class Route:
    __slots__ = ("rt", "ns", "name", "sub", "verb")

    def __init__(self, rt, ns, name, sub, verb):
        self.rt, self.ns, self.name, self.sub, self.verb = rt, ns, name, sub, verb


class App:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store
        self.stopping = threading.Event()
        # (method, verb, path) of recent requests, in order; bounded for long demos
        self.requests = collections.deque(maxlen=200000)
        self.server_errors = []            # tracebacks of unexpected exceptions
        self._continues = collections.OrderedDict()
        self._continue_seq = 0
        self._lock = threading.Lock()

    # -- entry point -----------------------------------------------------------------------
    def handle(self, req, h):
        try:
            verb, dispatch = self._route(req)
            with self._lock:
                self.requests.append((req.method, verb, req.path))
            token = self.sim.token
            if token and req.headers.get("Authorization") != f"Bearer {token}":
                raise errors.ApiError(401, "Unauthorized", "Unauthorized")
            fault = self.sim.request_faults.take(req.method, verb, req.path)
            if fault is not None:
                if fault.delay:
                    self.stopping.wait(fault.delay)
                if fault.status:
                    raise errors.ApiError(fault.status, fault.reason or "InternalError",
                                          fault.message or "injected fault")
            dispatch()
        except errors.ApiError as exc:
            self._send_error(h, exc)
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True
        except Exception as exc:  # noqa: BLE001 - report as the apiserver would, keep serving
            self.server_errors.append(traceback.format_exc())
            self._send_error(h, errors.internal(repr(exc)))

    def _send_error(self, h, exc):
        try:
            h.send_json(exc.code, exc.status())
        except OSError:
            h.close_connection = True

    # -- routing ---------------------------------------------------------------------------
    def _route(self, req):
        """Returns (kubernetes verb, zero-argument callable that answers the request)."""
        h = req.handler
        parts = [p for p in req.path.split("/") if p]
        if req.path in ("/healthz", "/readyz", "/livez"):
            return "get", lambda: h.send_bytes(200, b"ok", "text/plain")
        if req.path == "/version":
            return "get", lambda: h.send_json(200, {"major": "1", "minor": "34",
                                                    "gitVersion": "v1.34.0-kubesim",
                                                    "platform": "linux/amd64"})
        if parts[:2] == ["kubesim", "export"]:
            return "get", lambda: self.sim.serve_export(req, parts)
        if parts == ["api"]:
            return "get", lambda: h.send_json(200, resources.api_versions())
        if parts == ["apis"]:
            return "get", lambda: h.send_json(200, resources.api_group_list())
        if len(parts) >= 2 and parts[0] == "api":
            group, version, rest = "", parts[1], parts[2:]
        elif len(parts) >= 2 and parts[0] == "apis":
            group = parts[1]
            if len(parts) == 2:
                doc = resources.api_group(group)
                if doc is None:
                    raise _NOT_FOUND
                return "get", lambda: h.send_json(200, doc)
            version, rest = parts[2], parts[3:]
        else:
            raise _NOT_FOUND
        if not rest:
            doc = resources.resource_list(group, version)
            if doc is None:
                raise _NOT_FOUND
            return "get", lambda: h.send_json(200, doc)
        if group == resources.SUBRESOURCE_GROUP:
            return self.sim.virtapi.route(req, rest)
        route = self._resource_route(req, group, version, rest)
        return route.verb, lambda: self._serve(req, route)

    def _resource_route(self, req, group, version, rest):
        ns = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            rt = resources.lookup(group, version, rest[2])
            if rt is not None and rt.namespaced:
                ns, rest = rest[1], rest[2:]
        rt = resources.lookup(group, version, rest[0])
        if rt is None or len(rest) > 3 or (ns is not None and not rt.namespaced):
            raise _NOT_FOUND
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if sub and sub not in ((("status",) if rt.has_status else ()) + rt.extra_subresources):
            raise _NOT_FOUND
        if name and rt.namespaced and ns is None:
            raise _NOT_FOUND
        m = req.method
        if m == "GET":
            verb = "get" if name else ("watch" if _truthy(req.query.get("watch")) else "list")
        elif m == "POST":
            verb = "create"
        elif m == "PUT":
            verb = "update"
        elif m == "PATCH":
            verb = "patch"
        elif m == "DELETE":
            verb = "delete" if name else "deletecollection"
        else:
            raise errors.method_not_allowed()
        if verb in ("update", "patch") and not name:
            raise errors.method_not_allowed()
        if verb == "create" and name:
            raise errors.method_not_allowed()
        return Route(rt, ns, name, sub, verb)

    # -- verbs -----------------------------------------------------------------------------
    def _serve(self, req, r):
        h = req.handler
        store, rt = self.store, r.rt
        dry = req.query.get("dryRun") == "All"
        if r.verb == "get":
            if r.sub == "log":
                return self.sim.serve_pod_log(req, r.ns, r.name)
            return h.send_json(200, _out(rt, store.get(rt, r.ns, r.name)))
        if r.verb == "list":
            return h.send_json(200, self._list(req, rt, r.ns))
        if r.verb == "watch":
            return self._watch(req, rt, r.ns)
        if r.verb == "create":
            body = self._object_body(req, rt)
            self.sim.admit(rt, r.ns, body)
            return h.send_json(201, _out(rt, store.create(rt, r.ns, body, dry_run=dry)))
        if r.verb == "update":
            body = self._object_body(req, rt)
            if r.sub is None and store.raw(rt, r.ns, r.name) is not None:
                self.sim.admit_update(rt, store.raw(rt, r.ns, r.name), body)
            return h.send_json(200, _out(rt, store.update(rt, r.ns, r.name, body,
                                                          subresource=r.sub, dry_run=dry)))
        if r.verb == "patch":
            return h.send_json(200, _out(rt, self._patch(req, rt, r, dry)))
        if r.verb == "delete":
            opts = req.json(default={}) or {}
            if "propagationPolicy" in req.query:
                opts["propagationPolicy"] = req.query["propagationPolicy"]
            if "gracePeriodSeconds" in req.query:
                try:
                    opts["gracePeriodSeconds"] = int(req.query["gracePeriodSeconds"])
                except ValueError:
                    raise errors.bad_request("gracePeriodSeconds must be an integer")
            if opts.get("propagationPolicy") not in (None, "Orphan", "Background",
                                                     "Foreground"):
                raise errors.invalid(rt, r.name, [("propagationPolicy", "Unsupported value: "
                                                   f"\"{opts['propagationPolicy']}\"")])
            if "orphanDependents" in req.query:
                opts["orphanDependents"] = _truthy(req.query["orphanDependents"])
            dry = dry or opts.get("dryRun") == ["All"]
            obj, now = store.delete(rt, r.ns, r.name, opts, dry_run=dry)
            # Like the apiserver: 202 only for a pending delete that explicitly asked
            # orphanDependents=false; everything else answers 200 with the object.
            accepted = not now and opts.get("orphanDependents") is False
            return h.send_json(202 if accepted else 200, _out(rt, obj))
        if r.verb == "deletecollection":
            opts = req.json(default={}) or {}
            lm = selectors.parse_labels(req.query.get("labelSelector"))
            fm = selectors.parse_fields(req.query.get("fieldSelector"), rt.kind)
            items, _ = store.items(rt, r.ns)
            gone = []
            for o in items:
                if lm(o["metadata"].get("labels")) and fm(o):
                    try:
                        gone.append(store.delete(rt, o["metadata"].get("namespace"),
                                                 o["metadata"]["name"], opts, dry_run=dry)[0])
                    except errors.ApiError as exc:
                        if exc.code != 404:
                            raise
            return h.send_json(200, {"kind": rt.list_kind, "apiVersion": rt.api_version,
                                     "metadata": {"resourceVersion":
                                                  str(store.resource_version)},
                                     "items": [_out(rt, o) for o in gone]})
        raise errors.method_not_allowed()

    def _object_body(self, req, rt):
        body = req.json()
        if not isinstance(body, dict):
            raise errors.bad_request("the request body must be a JSON object")
        if body.get("kind") and body["kind"] != rt.kind:
            raise errors.bad_request(f"the kind in the data ({body['kind']}) does not match "
                                     f"the expected kind ({rt.kind})")
        if body.get("apiVersion") and body["apiVersion"].split("/")[0] != (
                rt.group or body["apiVersion"]) and body["apiVersion"] != rt.api_version:
            raise errors.bad_request(f"the API version in the data ({body['apiVersion']}) does "
                                     f"not match the expected API version ({rt.api_version})")
        return body

    def _patch(self, req, rt, r, dry):
        patcher = _PATCHERS.get(req.content_type)
        if patcher is None or (rt.crd and patcher is patching.strategic_merge_patch):
            # Custom resources cannot be strategically merged: no schema for merge keys.
            raise errors.unsupported_media_type(req.content_type)
        body = req.json()
        if body is None:
            raise errors.bad_request("the request body is empty")
        if patcher is not patching.json_patch and not isinstance(body, dict):
            raise errors.bad_request("the patch must be a JSON object")
        def apply(cur):
            new = patcher(cur, body)
            return new if r.sub else self.sim.admit_update(rt, cur, new)
        return self.store.patch(rt, r.ns, r.name, apply, subresource=r.sub, dry_run=dry)

    # -- list ------------------------------------------------------------------------------
    def _list(self, req, rt, ns):
        token = req.query.get("continue")
        limit = int(req.query.get("limit") or 0)
        if token:
            items, rv = self._resume(token)
        else:
            lm = selectors.parse_labels(req.query.get("labelSelector"))
            fm = selectors.parse_fields(req.query.get("fieldSelector"), rt.kind)
            all_items, rv = self.store.items(rt, ns)
            items = [o for o in all_items if lm(o["metadata"].get("labels")) and fm(o)]
        md = {"resourceVersion": str(rv)}
        if limit and len(items) > limit:
            rest = items[limit:]
            items = items[:limit]
            md["continue"] = self._remember(rv, rest)
            md["remainingItemCount"] = len(rest)
        return {"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": md,
                "items": [_out(rt, o) for o in items]}

    def _remember(self, rv, rest):
        # Keeping the remainder gives the consistent snapshot paging etcd gives upstream.
        with self._lock:
            self._continue_seq += 1
            key = str(self._continue_seq)
            self._continues[key] = (rv, rest)
            while len(self._continues) > 256:
                self._continues.popitem(last=False)
        return base64.urlsafe_b64encode(json.dumps({"rv": rv, "k": key}).encode()).decode()

    def _resume(self, token):
        try:
            data = json.loads(base64.urlsafe_b64decode(token.encode()))
            rv, key = int(data["rv"]), data["k"]
        except (ValueError, KeyError, TypeError):
            raise errors.bad_request("continue key is not valid: incorrect encoded start "
                                     "resourceVersion (version meta.k8s.io/v1)")
        with self._lock:
            entry = self._continues.get(key)
        if entry is None or self.store.is_compacted(rv):
            raise errors.gone("The provided continue parameter is too old to display a "
                              "consistent list result. You can start a new list without the "
                              "continue parameter.")
        return entry[1], entry[0]

    # -- watch -----------------------------------------------------------------------------
    def _watch(self, req, rt, ns):
        h = req.handler
        lm = selectors.parse_labels(req.query.get("labelSelector"))
        fm = selectors.parse_fields(req.query.get("fieldSelector"), rt.kind)
        rv = req.query.get("resourceVersion")
        if rv not in (None, "", "0"):
            try:
                int(rv)
            except ValueError:
                raise errors.bad_request(f'invalid resource version: "{rv}"')
        timeout = float(req.query["timeoutSeconds"]) if req.query.get("timeoutSeconds") else None
        bookmarks = _truthy(req.query.get("allowWatchBookmarks"))
        initial = _truthy(req.query.get("sendInitialEvents"))
        if initial and not bookmarks:
            raise errors.invalid(rt, "", [("sendInitialEvents", "Forbidden: sendInitialEvents "
                                           "requires setting allowWatchBookmarks to true")])
        stream = self.sim.watches.stream(rt, ns, lm, fm, rv, timeout, bookmarks, initial,
                                         alive=lambda: not _peer_closed(h.connection))
        h.start_chunked("application/json;stream=watch")
        ending = "clean"
        try:
            for kind, value in stream:
                if kind == "end":
                    ending = value
                    break
                if value["type"] not in ("ERROR", "BOOKMARK"):
                    value = {"type": value["type"], "object": _out(rt, value["object"])}
                h.write_chunk(json.dumps(value).encode() + b"\n")
        finally:
            stream.close()
        if ending == "abrupt":
            # Drop the connection mid-stream, without the closing chunk.
            h.close_connection = True
            h.connection.shutdown(2)
        else:
            h.end_chunked()
