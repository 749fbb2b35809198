"""virt-controller's migration loop for VirtualMachineInstanceMigration objects.

Pending -> Scheduling (target pod created) -> Scheduled (target node chosen) ->
PreparingTarget -> TargetReady -> Running -> Succeeded, mirrored into the VMI's
status.migrationState. Deleting an unfinished migration aborts it; an armed fault fails it.
"""
from .. import errors
from .. import kubevirt as kv
from .. import meta
from .scheduling import pick_node

ORDER = ["Pending", "Scheduling", "Scheduled", "PreparingTarget", "TargetReady", "Running",
         "Succeeded"]


class MigrationController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def step(self):
        items, _ = self.store.items(kv.VMIM)
        for mig in items:
            try:
                self._sync(mig)
            except errors.ApiError:
                pass

    def _set(self, mig, fn):
        ns, name = kv.ns_name(mig)

        def apply(o):
            fn(o.setdefault("status", {}), o)
            return o
        self.store.mutate(kv.VMIM, ns, name, apply)

    def _vmi_state(self, mig, fn):
        ns = mig["metadata"]["namespace"]
        name = (mig.get("spec") or {}).get("vmiName")

        def apply(o):
            st = o.setdefault("status", {})
            fn(st.setdefault("migrationState", {}), o)
            return o
        self.store.mutate(kv.VMI, ns, name, apply)

    def _phase(self, st, phase):
        st["phase"] = phase
        st.setdefault("phaseTransitionTimestamps", []).append(
            {"phase": phase, "phaseTransitionTimestamp": meta.now()})

    def _sync(self, mig):
        ns, name = kv.ns_name(mig)
        md = mig["metadata"]
        phase = (mig.get("status") or {}).get("phase", "")
        final = phase in ("Succeeded", "Failed")
        if md.get("deletionTimestamp"):
            if not final:
                self._abort(mig)
            self.store.finalize(kv.VMIM, ns, name, kv.MIGRATION_FINALIZER)
            return
        if final:
            return
        if kv.MIGRATION_FINALIZER not in (md.get("finalizers") or []):
            self.store.mutate(kv.VMIM, ns, name, _add_finalizer)
        vmi_name = (mig.get("spec") or {}).get("vmiName")
        vmi = self.store.raw(kv.VMI, ns, vmi_name)
        if vmi is None or kv.phase(vmi) != "Running":
            return self._failed(mig, "VMI is not running")
        if phase == "":
            self._set(mig, lambda st, o: self._phase(st, "Pending"))
        elif phase == "Pending":
            self._create_target_pod(mig, vmi)
        elif phase == "Scheduling":
            self._schedule_target(mig, vmi)
        elif phase in ("Scheduled", "PreparingTarget", "TargetReady"):
            nxt = ORDER[ORDER.index(phase) + 1]
            self._set(mig, lambda st, o: self._phase(st, nxt))
            if nxt == "Running":
                self._vmi_state(mig, lambda ms, o: ms.update(startTimestamp=meta.now()))
        elif phase == "Running":
            fault = self.sim.kv_faults.take("migration", vmi_name)
            if fault:
                return self._failed(mig, fault.get("reason") or
                                    "Live migration failed: operation failed: migration "
                                    "out job: unexpectedly failed")
            self._complete(mig, vmi)

    def _create_target_pod(self, mig, vmi):
        ns = mig["metadata"]["namespace"]
        source = self.sim.launcher_pods(vmi)
        if not source:
            return self._failed(mig, "source launcher pod not found")
        src = source[0]
        selector = dict((src.get("spec") or {}).get("nodeSelector") or {})
        selector.update((mig.get("spec") or {}).get("addedNodeSelector") or {})
        pod = {"metadata": {"generateName": f"virt-launcher-{vmi['metadata']['name']}-",
                            "labels": dict(src["metadata"].get("labels") or {},
                                           **{"kubevirt.io/migrationJobUID":
                                              mig["metadata"]["uid"]}),
                            "ownerReferences": [meta.owner_ref(vmi)]},
               "spec": {"nodeSelector": selector, "containers": src["spec"]["containers"],
                        "restartPolicy": "Never"},
               "status": {"phase": "Pending"}}
        target = self.store.create(kv.POD, ns, pod, internal=True)
        tname = target["metadata"]["name"]
        self._set(mig, lambda st, o: self._phase(st, "Scheduling"))
        self._vmi_state(mig, lambda ms, o: ms.update(
            migrationUid=mig["metadata"]["uid"], sourceNode=o["status"].get("nodeName"),
            sourcePod=src["metadata"]["name"], targetPod=tname, mode="PreCopy",
            completed=False, failed=False))

    def _schedule_target(self, mig, vmi):
        ns = mig["metadata"]["namespace"]
        tname = ((vmi.get("status") or {}).get("migrationState") or {}).get("targetPod")
        pod = self.store.raw(kv.POD, ns, tname) if tname else None
        if pod is None:
            return self._failed(mig, "target pod is gone")
        node, why = pick_node(self.store, pod, exclude_nodes=(vmi["status"].get("nodeName"),))
        if node is None:
            return self._failed(mig, f"target pod could not be scheduled: {why}")

        def bind(p):
            p["spec"]["nodeName"] = node
            p["status"]["phase"] = "Running"
            meta.set_condition(p, "PodScheduled", "True")
            return p
        self.store.mutate(kv.POD, ns, tname, bind)
        self._set(mig, lambda st, o: self._phase(st, "Scheduled"))
        self._vmi_state(mig, lambda ms, o: ms.update(targetNode=node,
                                                     targetNodeAddress=self.sim.next_ip()))

    def _complete(self, mig, vmi):
        ns = mig["metadata"]["namespace"]
        ms0 = vmi["status"]["migrationState"]
        target = self.store.raw(kv.POD, ns, ms0.get("targetPod"))

        def done(ms, o):
            ms.update(completed=True, endTimestamp=meta.now())
            o["status"]["nodeName"] = ms["targetNode"]
            o["metadata"].setdefault("labels", {})["kubevirt.io/nodeName"] = ms["targetNode"]
            if target is not None:
                o["status"]["activePods"] = {target["metadata"]["uid"]: ms["targetNode"]}
        self._vmi_state(mig, done)
        self._mirror(mig)
        if ms0.get("sourcePod"):
            try:
                self.store.delete(kv.POD, ns, ms0["sourcePod"])
            except errors.ApiError:
                pass
        self._set(mig, lambda st, o: self._phase(st, "Succeeded"))

    def _failed(self, mig, reason):
        ns = mig["metadata"]["namespace"]
        vmi = self.store.raw(kv.VMI, ns, (mig.get("spec") or {}).get("vmiName"))
        ms = ((vmi or {}).get("status") or {}).get("migrationState") or {}
        if vmi is not None and ms.get("migrationUid") == mig["metadata"]["uid"]:
            self._vmi_state(mig, lambda m, o: m.update(failed=True, completed=False,
                                                       failureReason=reason,
                                                       endTimestamp=meta.now()))
            self._drop_target(ns, ms.get("targetPod"))
            self._mirror(mig)
        self._set(mig, lambda st, o: self._phase(st, "Failed"))
        self.sim.record_event(mig, "Warning", "FailedMigration", reason, "virt-controller")

    def _mirror(self, mig):
        """Newer KubeVirt also reports the outcome in the migration's own status."""
        vmi = self.store.raw(kv.VMI, mig["metadata"]["namespace"],
                             (mig.get("spec") or {}).get("vmiName"))
        ms = ((vmi or {}).get("status") or {}).get("migrationState")
        if ms:
            self._set(mig, lambda st, o: st.__setitem__("migrationState", ms))

    def _abort(self, mig):
        ns = mig["metadata"]["namespace"]
        vmi = self.store.raw(kv.VMI, ns, (mig.get("spec") or {}).get("vmiName"))
        ms = ((vmi or {}).get("status") or {}).get("migrationState") or {}
        if vmi is not None and ms.get("migrationUid") == mig["metadata"]["uid"]:
            self._vmi_state(mig, lambda m, o: m.update(abortRequested=True,
                                                       abortStatus="Succeeded", failed=True,
                                                       failureReason="Migration aborted",
                                                       endTimestamp=meta.now()))
            self._drop_target(ns, ms.get("targetPod"))

    def _drop_target(self, ns, tname):
        if tname:
            try:
                self.store.delete(kv.POD, ns, tname)
            except errors.ApiError:
                pass


def _add_finalizer(obj):
    obj["metadata"].setdefault("finalizers", []).append(kv.MIGRATION_FINALIZER)
    return obj
