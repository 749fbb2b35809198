"""The garbage collector (ownerReferences, foreground/orphan finalizers) and namespace
controller, which real clusters run in kube-controller-manager."""
from .. import errors
from .. import resources
from ..store import FOREGROUND, ORPHAN

_BY_STORAGE = {t.storage: t for t in resources.TYPES}


class GarbageCollector:
    def __init__(self, sim):
        self.store = sim.store

    def step(self):
        everything = self.store.all_items()
        uids = {o["metadata"]["uid"] for _, o in everything}
        dependents = {}
        for storage, obj in everything:
            for ref in obj["metadata"].get("ownerReferences") or []:
                dependents.setdefault(ref.get("uid"), []).append((storage, obj))
        for storage, obj in everything:
            md = obj["metadata"]
            rt = _BY_STORAGE[storage]
            refs = md.get("ownerReferences") or []
            # Background propagation: a dependent whose owners are all gone is deleted.
            if refs and not md.get("deletionTimestamp") and \
                    all(r.get("uid") not in uids for r in refs):
                self._delete(rt, obj, "Background")
                continue
            fins = md.get("finalizers") or []
            if not md.get("deletionTimestamp"):
                continue
            deps = dependents.get(md["uid"], [])
            if ORPHAN in fins:
                for dstorage, dep in deps:
                    self._orphan(_BY_STORAGE[dstorage], dep, md["uid"])
                self.store.finalize(rt, md.get("namespace"), md["name"], ORPHAN)
            elif FOREGROUND in fins:
                for dstorage, dep in deps:
                    if not dep["metadata"].get("deletionTimestamp"):
                        self._delete(_BY_STORAGE[dstorage], dep, "Foreground")
                if not deps:
                    self.store.finalize(rt, md.get("namespace"), md["name"], FOREGROUND)

    def _delete(self, rt, obj, policy):
        md = obj["metadata"]
        try:
            self.store.delete(rt, md.get("namespace"), md["name"],
                              {"propagationPolicy": policy,
                               "preconditions": {"uid": md["uid"]}})
        except errors.ApiError:
            pass  # already gone or replaced

    def _orphan(self, rt, obj, owner_uid):
        def strip(o):
            o["metadata"]["ownerReferences"] = [r for r in o["metadata"].get("ownerReferences")
                                                or [] if r.get("uid") != owner_uid]
            if not o["metadata"]["ownerReferences"]:
                del o["metadata"]["ownerReferences"]
            return o
        self.store.mutate(rt, obj["metadata"].get("namespace"), obj["metadata"]["name"], strip)


class NamespaceController:
    """Empties a Terminating namespace, then removes it."""

    def __init__(self, sim):
        self.store = sim.store

    def step(self):
        ns_type = resources.by_kind("Namespace")
        items, _ = self.store.items(ns_type)
        for nsobj in items:
            if not nsobj["metadata"].get("deletionTimestamp"):
                continue
            name = nsobj["metadata"]["name"]
            remaining = 0
            seen = set()
            for t in resources.TYPES:
                if not t.namespaced or t.storage in seen:
                    continue
                seen.add(t.storage)
                objs, _ = self.store.items(t, name)
                for o in objs:
                    remaining += 1
                    if not o["metadata"].get("deletionTimestamp"):
                        try:
                            self.store.delete(t, name, o["metadata"]["name"])
                        except errors.ApiError:
                            pass
            if remaining == 0 and not (nsobj["metadata"].get("finalizers")):
                self.store.remove_now(ns_type, "", name)
