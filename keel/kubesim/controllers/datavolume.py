"""CDI's DataVolume controller: a PVC per DataVolume and the import/clone phase machine.

Import (http, registry, blank, upload...): Pending -> ImportScheduled -> ImportInProgress
(progress grows by `sim.dv_progress_step` percent per step) -> Succeeded.
Clone (source.pvc / sourceRef): Pending -> CloneScheduled -> CloneInProgress -> Succeeded;
a missing source PVC holds it in CloneScheduled. An armed fault sends it to Failed.
"""
import copy

from .. import errors
from .. import kubevirt as kv
from .. import meta


def _requested_storage(dv):
    spec = dv.get("spec") or {}
    claim = spec.get("pvc") or spec.get("storage") or {}
    return ((claim.get("resources") or {}).get("requests") or {}).get("storage", "1Gi")


def _is_clone(dv):
    src = (dv.get("spec") or {}).get("source") or {}
    return "pvc" in src or "snapshot" in src or bool((dv.get("spec") or {}).get("sourceRef"))


class DataVolumeController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def step(self):
        items, _ = self.store.items(kv.DV)
        for dv in items:
            if dv["metadata"].get("deletionTimestamp"):
                continue
            try:
                self._sync(dv)
            except errors.ApiError:
                pass

    def _update(self, dv, fn):
        ns, name = kv.ns_name(dv)

        def apply(o):
            fn(o.setdefault("status", {}), o)
            return o
        self.store.mutate(kv.DV, ns, name, apply)

    def _sync(self, dv):
        ns, name = kv.ns_name(dv)
        phase = (dv.get("status") or {}).get("phase", "")
        clone = _is_clone(dv)
        if phase == "":
            self._ensure_pvc(dv)
            self._update(dv, lambda st, o: self._phase(st, o, "Pending"))
        elif phase == "Pending":
            if clone and not self._clone_source_exists(dv):
                self._update(dv, lambda st, o: meta.set_condition(
                    o, "Running", "False", "CloneWithoutSource",
                    "The source PVC of the clone does not exist"))
                return
            self._update(dv, lambda st, o: self._phase(
                st, o, "CloneScheduled" if clone else "ImportScheduled"))
        elif phase in ("ImportScheduled", "CloneScheduled"):
            fault = self.sim.kv_faults.take("datavolume", name)
            if fault:
                return self._fail(dv, fault.get("message") or "Unable to process data: "
                                  "Unable to transfer source data to target file: "
                                  "unexpected EOF")
            self._bind_pvc(dv)
            nxt = "CloneInProgress" if clone else "ImportInProgress"

            def start(st, o):
                self._phase(st, o, nxt)
                st["progress"] = "0.00%"
                meta.set_condition(o, "Running", "True", "Pod is running")
                meta.set_condition(o, "Bound", "True", "Bound", f"PVC {name} Bound")
            self._update(dv, start)
        elif phase in ("ImportInProgress", "CloneInProgress"):
            done = float((dv["status"].get("progress") or "0").rstrip("%") or 0)
            done = min(100.0, done + self.sim.dv_progress_step)
            if done < 100.0:
                self._update(dv, lambda st, o: st.__setitem__("progress", f"{done:.2f}%"))
                return

            def finish(st, o):
                self._phase(st, o, "Succeeded")
                st["progress"] = "100.0%"
                meta.set_condition(o, "Running", "False", "Completed")
                meta.set_condition(o, "Ready", "True")
            self._update(dv, finish)
            self.sim.record_event(dv, "Normal", "ImportSucceeded" if not clone
                                  else "CloneSucceeded", "Successfully populated the volume",
                                  "datavolume-controller")

    def _phase(self, st, o, phase):
        st["phase"] = phase
        st.setdefault("claimName", o["metadata"]["name"])
        meta.set_condition(o, "Ready", "True" if phase == "Succeeded" else "False")

    def _fail(self, dv, message):
        def fail(st, o):
            self._phase(st, o, "Failed")
            meta.set_condition(o, "Running", "False", "Error", message)
        self._update(dv, fail)
        self.sim.record_event(dv, "Warning", "Error", message, "datavolume-controller")

    def _clone_source_exists(self, dv):
        spec = dv.get("spec") or {}
        src = (spec.get("source") or {}).get("pvc")
        if src:
            return self.store.raw(kv.PVC, src.get("namespace") or dv["metadata"]["namespace"],
                                  src.get("name")) is not None
        return True

    def _ensure_pvc(self, dv):
        ns, name = kv.ns_name(dv)
        if self.store.raw(kv.PVC, ns, name) is not None:
            return
        spec = dv.get("spec") or {}
        claim = copy.deepcopy(spec.get("pvc") or spec.get("storage") or {})
        claim.setdefault("accessModes", ["ReadWriteOnce"])
        claim.setdefault("resources", {}).setdefault("requests", {})["storage"] = \
            _requested_storage(dv)
        claim.setdefault("volumeMode", "Block")
        pvc = {"metadata": {"name": name, "labels": {"app": "containerized-data-importer"},
                            "ownerReferences": [meta.owner_ref(dv)]},
               "spec": claim, "status": {"phase": "Pending"}}
        self.store.create(kv.PVC, ns, pvc, internal=True)

    def _bind_pvc(self, dv):
        ns, name = kv.ns_name(dv)

        def bind(p):
            p["status"] = {"phase": "Bound",
                           "accessModes": p["spec"].get("accessModes"),
                           "capacity": {"storage": _requested_storage(dv)}}
            p["spec"]["volumeName"] = f"pvc-{p['metadata']['uid']}"
            return p
        self.store.mutate(kv.PVC, ns, name, bind)
