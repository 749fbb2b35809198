"""The object store: what etcd plus the generic apiserver registry do for us.

One global, monotonically increasing resourceVersion; every write that changes an object
takes the next one and appends exactly one event to a bounded history, so history index
arithmetic is simple and a watch from a compacted version can be answered with 410 Gone.
Stored dicts are never mutated in place (writes replace them), so events share them safely.
"""
import collections
import threading

from . import errors
from . import meta

FOREGROUND = "foregroundDeletion"
ORPHAN = "orphan"


class Event:
    __slots__ = ("rv", "rt", "type", "obj", "old")

    def __init__(self, rv, rt, type_, obj, old):
        self.rv, self.rt, self.type, self.obj, self.old = rv, rt, type_, obj, old


def _body(obj):
    return {k: v for k, v in obj.items() if k not in ("metadata", "status")}


def _without_rv(obj):
    o = dict(obj)
    o["metadata"] = {k: v for k, v in obj.get("metadata", {}).items() if k != "resourceVersion"}
    return o


class Store:
    # Labels looked up on every controller pass (launcher pods by VMI uid); indexed so a
    # step stays linear in the number of objects.
    INDEXED_LABELS = ("kubevirt.io/created-by",)

    def __init__(self, history_size=1000, first_rv=1000):
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self._rv = first_rv
        self._objects = collections.defaultdict(dict)   # storage -> {(ns, name): obj}
        self._history = collections.deque()
        self._history_size = history_size
        self._compacted = 0          # newest resourceVersion no longer in history
        self._index = collections.defaultdict(set)   # (storage, label, value) -> {(ns, name)}
        self.closed = False

    # -- versions and history -------------------------------------------------------------
    @property
    def resource_version(self):
        return self._rv

    def _record(self, rt, type_, obj, old):
        self._history.append(Event(self._rv, rt, type_, obj, old))
        while len(self._history) > self._history_size:
            self._compacted = self._history.popleft().rv
        self.cond.notify_all()

    def compact(self):
        """Forget all history, as etcd compaction does: older watches get 410 Gone."""
        with self.lock:
            self._history.clear()
            self._compacted = self._rv

    def is_compacted(self, rv):
        return rv < self._compacted

    def events_after(self, rv):
        """Events with resourceVersion > rv; raises 410 Expired when some were dropped."""
        with self.lock:
            if rv < self._compacted:
                raise errors.gone(f"too old resource version: {rv} ({self._compacted + 1})")
            if not self._history or rv >= self._history[-1].rv:
                return []
            start = max(0, rv + 1 - self._history[0].rv)
            return [self._history[i] for i in range(start, len(self._history))]

    def close(self):
        with self.lock:
            self.closed = True
            self.cond.notify_all()

    # -- label index ------------------------------------------------------------------------
    def _index_keys(self, rt, obj):
        labels = obj["metadata"].get("labels") or {}
        return [(rt.storage, k, labels[k]) for k in self.INDEXED_LABELS if k in labels]

    def _put(self, rt, key, new, old):
        if old is not None:
            for ik in self._index_keys(rt, old):
                self._index[ik].discard(key)
        self._bucket(rt)[key] = new
        for ik in self._index_keys(rt, new):
            self._index[ik].add(key)

    def _pop(self, rt, key):
        old = self._bucket(rt).pop(key)
        for ik in self._index_keys(rt, old):
            self._index[ik].discard(key)
        return old

    def by_label(self, rt, label, value):
        """Stored dicts (read-only) carrying an indexed label value."""
        with self.lock:
            bucket = self._bucket(rt)
            return [bucket[k] for k in sorted(self._index.get((rt.storage, label, value), ()))]

    # -- reads ------------------------------------------------------------------------------
    def _bucket(self, rt):
        return self._objects[rt.storage]

    def raw(self, rt, ns, name):
        """The stored dict, read-only for the caller, or None."""
        return self._bucket(rt).get((ns or "", name))

    def get(self, rt, ns, name):
        with self.lock:
            obj = self.raw(rt, ns, name)
            if obj is None:
                raise errors.not_found(rt, name)
            return meta.clone(obj)

    def items(self, rt, ns=None):
        """Stored dicts (read-only) in key order, and the resourceVersion they are valid at."""
        with self.lock:
            bucket = self._bucket(rt)
            keys = sorted(k for k in bucket if ns is None or k[0] == ns)
            return [bucket[k] for k in keys], self._rv

    def all_items(self):
        with self.lock:
            return [(storage, obj) for storage, b in self._objects.items() for obj in b.values()]

    # -- writes -----------------------------------------------------------------------------
    def create(self, rt, ns, obj, *, internal=False, dry_run=False):
        with self.lock:
            obj = meta.clone(obj)
            md = obj.get("metadata")
            if not isinstance(md, dict):
                md = obj["metadata"] = {}
            ns = ns or "" if rt.namespaced else ""
            if rt.namespaced:
                if md.get("namespace") and md["namespace"] != ns:
                    raise errors.bad_request("the namespace of the provided object does not "
                                             "match the namespace sent on the request")
                self._check_namespace(ns)
            name = md.get("name")
            if not name and md.get("generateName"):
                name = md["generateName"] + meta.random_suffix()
            if not name:
                raise errors.invalid(rt, "", [("metadata.name",
                                               "Required value: name or generateName is required")])
            if not meta.valid_name(name):
                raise errors.invalid(rt, name, [("metadata.name", f'Invalid value: "{name}": a '
                                     "lowercase RFC 1123 subdomain must consist of lower case "
                                     "alphanumeric characters, '-' or '.'")])
            if (ns, name) in self._bucket(rt):
                raise errors.already_exists(rt, name)
            for k in ("deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion"):
                md.pop(k, None)
            md.update(name=name, uid=meta.new_uid(), creationTimestamp=meta.now(), generation=1)
            if rt.namespaced:
                md["namespace"] = ns
            else:
                md.pop("namespace", None)
            obj["kind"], obj["apiVersion"] = rt.kind, rt.api_version
            if rt.has_status and not internal:
                obj.pop("status", None)  # status is written through /status only
            if rt.kind == "Namespace":
                obj.setdefault("status", {})["phase"] = "Active"
            if dry_run:
                md["resourceVersion"] = str(self._rv)
                return obj
            self._rv += 1
            md["resourceVersion"] = str(self._rv)
            self._put(rt, (ns, name), obj, None)
            self._record(rt, "ADDED", obj, None)
            return obj          # stored dicts are never mutated, so sharing it is safe

    def _check_namespace(self, ns):
        from .resources import by_kind
        nsobj = self._objects[by_kind("Namespace").storage].get(("", ns))
        if nsobj is None:
            raise errors.namespace_not_found(ns)
        if nsobj["metadata"].get("deletionTimestamp"):
            raise errors.forbidden(f"unable to create new content in namespace {ns} because "
                                   "it is being terminated")

    def update(self, rt, ns, name, obj, *, subresource=None, dry_run=False):
        """PUT: optimistic concurrency on metadata.resourceVersion."""
        with self.lock:
            old = self._existing(rt, ns, name)
            md = obj.get("metadata") or {}
            if md.get("name") and md["name"] != name:
                raise errors.bad_request(f"the name of the object ({md['name']}) does not "
                                         f"match the name on the URL ({name})")
            rv = md.get("resourceVersion")
            if not rv and rt.crd:
                raise errors.invalid(rt, name, [("metadata.resourceVersion",
                                     "Invalid value: 0x0: must be specified for an update")])
            if rv and rv != old["metadata"]["resourceVersion"]:
                raise errors.conflict(rt, name)
            return self._commit(rt, old, meta.clone(obj), subresource, False, dry_run)

    def patch(self, rt, ns, name, apply, *, subresource=None, dry_run=False):
        """apply(copy_of_current) -> patched object; a resourceVersion it carries must match."""
        with self.lock:
            old = self._existing(rt, ns, name)
            new = apply(meta.clone(old))
            if not isinstance(new, dict):
                raise errors.bad_request("patch did not produce an object")
            rv = (new.get("metadata") or {}).get("resourceVersion")
            if rv and rv != old["metadata"]["resourceVersion"]:
                raise errors.conflict(rt, name)
            return self._commit(rt, old, new, subresource, False, dry_run)

    def mutate(self, rt, ns, name, fn):
        """Controller-side read-modify-write (may change status and spec); fn returns the
        object to store or None for no change. Returns the stored object or None if absent."""
        with self.lock:
            old = self.raw(rt, ns, name)
            if old is None:
                return None
            new = fn(meta.clone(old))
            if new is None:
                return old
            return self._commit(rt, old, new, None, True, False)

    def _existing(self, rt, ns, name):
        old = self.raw(rt, ns, name)
        if old is None:
            raise errors.not_found(rt, name)
        return old

    def _commit(self, rt, old, new, subresource, internal, dry_run):
        if not isinstance(new.get("metadata"), dict):
            raise errors.bad_request("metadata must be an object")
        omd, md = old["metadata"], new["metadata"]
        if subresource == "status":
            status = new.get("status")
            new = meta.clone(old)
            if status is None:
                new.pop("status", None)
            else:
                new["status"] = status
            md = new["metadata"]
        elif rt.has_status and not internal:
            if "status" in old:
                new["status"] = meta.clone(old["status"])
            else:
                new.pop("status", None)
        for k in ("uid", "creationTimestamp", "name", "namespace", "deletionTimestamp",
                  "deletionGracePeriodSeconds", "generation", "resourceVersion"):
            if k in omd:
                md[k] = omd[k]
            else:
                md.pop(k, None)
        new["kind"], new["apiVersion"] = old["kind"], old["apiVersion"]
        finalizers = md.get("finalizers") or []
        if omd.get("deletionTimestamp"):
            added = set(finalizers) - set(omd.get("finalizers") or [])
            if added:
                raise errors.invalid(rt, omd["name"], [("metadata.finalizers",
                                     "Forbidden: no new finalizers can be added if the object "
                                     "is being deleted, found new finalizers "
                                     f"{sorted(added)}")])
        if new == old:
            return old          # no-op writes keep their resourceVersion
        if _body(new) != _body(old):
            md["generation"] = omd.get("generation", 1) + 1
        if dry_run:
            return new
        if omd.get("deletionTimestamp") and not finalizers:
            return self._remove(rt, new)
        self._rv += 1
        md["resourceVersion"] = str(self._rv)
        self._put(rt, (omd.get("namespace", ""), omd["name"]), new, old)
        self._record(rt, "MODIFIED", new, old)
        return new

    def _remove(self, rt, obj):
        md = obj["metadata"]
        old = self._pop(rt, (md.get("namespace", ""), md["name"]))
        obj = meta.clone(obj)
        self._rv += 1
        obj["metadata"]["resourceVersion"] = str(self._rv)
        self._record(rt, "DELETED", obj, old)
        return meta.clone(obj)

    def delete(self, rt, ns, name, options=None, *, dry_run=False):
        """Returns (object, deleted_now). Finalizers turn the delete into a deletionTimestamp."""
        options = options or {}
        with self.lock:
            old = self._existing(rt, ns, name)
            pre = options.get("preconditions") or {}
            if pre.get("uid") and pre["uid"] != old["metadata"]["uid"]:
                raise errors.conflict(rt, name, "Precondition failed: UID in precondition: "
                                      f"{pre['uid']}, UID in object meta: "
                                      f"{old['metadata']['uid']}")
            if pre.get("resourceVersion") and \
                    pre["resourceVersion"] != old["metadata"]["resourceVersion"]:
                raise errors.conflict(rt, name, "Precondition failed: ResourceVersion in "
                                      f"precondition: {pre['resourceVersion']}, ResourceVersion "
                                      f"in object meta: {old['metadata']['resourceVersion']}")
            new = meta.clone(old)
            md = new["metadata"]
            finalizers = list(md.get("finalizers") or [])
            policy = options.get("propagationPolicy")
            if options.get("orphanDependents") is True:
                policy = "Orphan"
            if policy == "Foreground" and FOREGROUND not in finalizers:
                finalizers.append(FOREGROUND)
            elif policy == "Orphan" and ORPHAN not in finalizers:
                finalizers.append(ORPHAN)
            if rt.kind == "Namespace" and name in ("default", "kube-system", "kube-public"):
                raise errors.forbidden(f'namespaces "{name}" is forbidden: this namespace may '
                                       "not be deleted")
            if rt.kind == "Namespace":
                # The namespace controller empties it first; phase shows Terminating meanwhile.
                new.setdefault("spec", {})["finalizers"] = ["kubernetes"]
                new.setdefault("status", {})["phase"] = "Terminating"
            if not finalizers and rt.kind != "Namespace":
                if dry_run:
                    return new, True
                return self._remove(rt, new), True
            if md.get("deletionTimestamp") and finalizers == (md.get("finalizers") or []):
                return meta.clone(old), False
            if finalizers:
                md["finalizers"] = finalizers
            md.setdefault("deletionTimestamp", meta.now())
            md.setdefault("deletionGracePeriodSeconds", options.get("gracePeriodSeconds") or 0)
            if dry_run:
                return new, False
            # Written as an internal update so the deletion fields are kept.
            self._rv += 1
            md["resourceVersion"] = str(self._rv)
            self._put(rt, (md.get("namespace", ""), name), new, old)
            self._record(rt, "MODIFIED", new, old)
            return meta.clone(new), False

    def finalize(self, rt, ns, name, finalizer):
        """Drop one finalizer (controllers use this); the object goes away when none remain."""
        def drop(obj):
            fins = obj["metadata"].get("finalizers") or []
            if finalizer not in fins:
                return None
            obj["metadata"]["finalizers"] = [f for f in fins if f != finalizer]
            return obj
        return self.mutate(rt, ns, name, drop)

    def remove_now(self, rt, ns, name):
        """Unconditional removal, for a namespace the namespace controller has emptied."""
        with self.lock:
            obj = self.raw(rt, ns, name)
            if obj is not None:
                self._remove(rt, obj)
