"""virt-controller's VirtualMachine loop: DataVolume templates, run strategies, state change
and volume requests, and the VM status (printableStatus, created, ready, conditions)."""
import copy

from .. import errors
from .. import kubevirt as kv
from .. import meta
from ..virtapi import add_volume_to_spec, remove_volume_from_spec


def _start_expected(vm):
    requests = (vm.get("status") or {}).get("stateChangeRequests") or []
    if requests:
        return requests[0].get("action") == "Start" or any(
            r.get("action") == "Start" for r in requests)
    strategy = kv.run_strategy(vm)
    return strategy in ("Always", "RerunOnFailure") or (
        strategy == "Once" and not (vm.get("status") or {}).get("created"))


def _stop_expected(vm, vmi):
    requests = (vm.get("status") or {}).get("stateChangeRequests") or []
    if requests and requests[0].get("action") == "Stop":
        return True
    return kv.run_strategy(vm) == "Halted" and not any(
        r.get("action") == "Start" for r in requests)


def _synchronized_reason(vmi):
    cond = meta.get_condition(vmi or {}, "Synchronized")
    return cond.get("reason") if cond and cond.get("status") == "False" else None


def printable_status(vm, vmi, dvs):
    """virt-controller's printableStatus: the first matching state in upstream's order."""
    final = kv.is_final(vmi)
    if vm["metadata"].get("deletionTimestamp"):
        return "Terminating"
    if vmi is not None and not final and (vmi["metadata"].get("deletionTimestamp")
                                          or _stop_expected(vm, vmi)):
        return "Stopping"
    if vmi is not None:
        mig = (vmi.get("status") or {}).get("migrationState")
        if mig and not mig.get("completed") and not mig.get("failed"):
            return "Migrating"
        if kv.phase(vmi) == "Running":
            return "Paused" if kv.is_paused(vmi) else "Running"
    if _synchronized_reason(vmi) == "FailedPvcNotFound":
        return "ErrorPvcNotFound"
    if any((dv.get("status") or {}).get("phase") == "Failed" for dv in dvs):
        return "DataVolumeError"
    cond = meta.get_condition(vmi or {}, "PodScheduled")
    if cond and cond.get("status") == "False" and cond.get("reason") == "Unschedulable":
        return "ErrorUnschedulable"
    if any((dv.get("status") or {}).get("phase") not in ("Succeeded", "Failed") for dv in dvs):
        return "Provisioning"
    if _synchronized_reason(vmi) in ("ErrImagePull", "ImagePullBackOff"):
        return _synchronized_reason(vmi)
    if vmi is None and _start_expected(vm):
        return "Starting"
    if vmi is not None and kv.phase(vmi) in ("", "Pending", "Scheduling", "Scheduled"):
        return "Starting"
    if (vm.get("status") or {}).get("startFailure") and \
            kv.run_strategy(vm) in ("Always", "RerunOnFailure", "Once"):
        return "CrashLoopBackOff"
    if (vmi is not None and final) or (vmi is None and not _start_expected(vm)):
        return "Stopped"
    return "Unknown"


class VMController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def step(self):
        items, _ = self.store.items(kv.VM)
        for vm in items:
            try:
                self._sync(vm)
            except errors.ApiError:
                pass  # a racing client write; the next step sees the new state

    def _sync(self, vm):
        ns, name = kv.ns_name(vm)
        md = vm["metadata"]
        vmi = self.store.raw(kv.VMI, ns, name)
        if vmi is not None and not _owned_by(vmi, vm):
            vmi = None  # a VMI of that name that this VM did not create is not ours
        if md.get("deletionTimestamp"):
            if vmi is not None and not vmi["metadata"].get("deletionTimestamp"):
                self.store.delete(kv.VMI, ns, name)
            elif vmi is None and kv.VMI_FINALIZER in (md.get("finalizers") or []):
                self.store.finalize(kv.VM, ns, name, kv.VMI_FINALIZER)
            self._status(ns, name)
            return
        if kv.VMI_FINALIZER not in (md.get("finalizers") or []):
            self.store.mutate(kv.VM, ns, name, _add_finalizer)
        dvs = self._ensure_datavolumes(vm)
        self._apply_volume_requests(vm, vmi)
        if vmi is not None and kv.phase(vmi) == "Running":
            self._live_update_interfaces(self.store.raw(kv.VM, ns, name), vmi)
        vm = self.store.raw(kv.VM, ns, name)
        self._run(vm, vmi, dvs)
        # status is written by the VMStatusController pass at the end of the step

    # -- DataVolume templates --------------------------------------------------------------
    def _ensure_datavolumes(self, vm):
        ns = vm["metadata"]["namespace"]
        out = []
        for tmpl in (vm.get("spec") or {}).get("dataVolumeTemplates") or []:
            dv_name = (tmpl.get("metadata") or {}).get("name")
            if not dv_name:
                continue
            dv = self.store.raw(kv.DV, ns, dv_name)
            if dv is None:
                body = {"metadata": copy.deepcopy(tmpl.get("metadata") or {}),
                        "spec": copy.deepcopy(tmpl.get("spec") or {})}
                body["metadata"]["ownerReferences"] = [meta.owner_ref(vm)]
                body["metadata"].pop("namespace", None)
                dv = self.store.create(kv.DV, ns, body, internal=True)
            out.append(dv)
        return out

    # -- volume requests (addvolume/removevolume on the VM) --------------------------------
    def _apply_volume_requests(self, vm, vmi):
        requests = (vm.get("status") or {}).get("volumeRequests") or []
        if not requests:
            return
        ns, name = kv.ns_name(vm)

        def apply_all(spec):
            for r in requests:
                if r.get("addVolumeOptions"):
                    opts = r["addVolumeOptions"]
                    if opts["name"] not in {v.get("name") for v in spec.get("volumes") or []}:
                        add_volume_to_spec(spec, opts)
                elif r.get("removeVolumeOptions"):
                    remove_volume_from_spec(spec, r["removeVolumeOptions"]["name"])

        def on_vm(obj):
            apply_all(obj["spec"].setdefault("template", {}).setdefault("spec", {}))
            obj["status"].pop("volumeRequests", None)
            return obj
        self.store.mutate(kv.VM, ns, name, on_vm)
        if vmi is not None and not kv.is_final(vmi):
            def on_vmi(obj):
                apply_all(obj.setdefault("spec", {}))
                return obj
            self.store.mutate(kv.VMI, ns, name, on_vmi)

    # -- interface hotplug (LiveUpdate of the template's interfaces and networks) ----------
    def _live_update_interfaces(self, vm, vmi):
        """Bring a running VMI's secondary interfaces in line with the VM template: bridge
        interfaces on Multus networks are added or marked absent in place; anything else
        (another binding, a changed pod network, an injected fault) only sets the VM's
        RestartRequired condition, as virt-controller does."""
        ns, name = kv.ns_name(vm)
        tspec = ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}
        want_ifs = _devices(tspec).get("interfaces") or []
        want_nets = {n.get("name"): n for n in tspec.get("networks") or []}
        have_ifs = {i.get("name"): i for i in _devices(vmi.get("spec") or {}).get("interfaces")
                    or []}
        live = {i.get("name") for i in (vmi.get("status") or {}).get("interfaces") or []}
        if [i.get("name") for i in want_ifs] == list(have_ifs) and all(
                have_ifs[i.get("name")] == i for i in want_ifs):
            if meta.get_condition(vm, "RestartRequired"):
                # The template was put back: nothing is pending any more.
                self.store.mutate(kv.VM, ns, name, lambda o: (
                    meta.remove_condition(o, "RestartRequired"), o)[1])
            return
        if meta.get_condition(vm, "RestartRequired"):
            # As virt-controller: while a restart is pending no live update
            # is applied, even one that would now succeed.
            return
        restart = None
        for iface in want_ifs:
            iname = iface.get("name")
            if have_ifs.get(iname) == iface:
                continue
            net = want_nets.get(iname) or {}
            if "bridge" not in iface or "multus" not in net:
                restart = f"interface {iname} cannot be hotplugged"
            elif self.sim.kv_faults.take("iface_hotplug", iname):
                restart = f"interface {iname}: hotplug failed (injected)"
        for iname in have_ifs:
            if iname not in {i.get("name") for i in want_ifs} and iname in live:
                restart = f"interface {iname} removed without being set absent"
        if restart:
            self.store.mutate(kv.VM, ns, name, lambda o: (meta.set_condition(
                o, "RestartRequired", "True", "RestartRequired",
                f"a non-live-updatable field was changed in the template spec: {restart}"),
                o)[1])
            return

        def on_vmi(o):
            spec = o.setdefault("spec", {})
            _devices(spec)["interfaces"] = copy.deepcopy(want_ifs)
            spec["networks"] = [copy.deepcopy(want_nets[i["name"]]) for i in want_ifs
                                if i.get("name") in want_nets]
            return o
        self.store.mutate(kv.VMI, ns, name, on_vmi)

    # -- run strategy ----------------------------------------------------------------------
    def _run(self, vm, vmi, dvs):
        ns, name = kv.ns_name(vm)
        requests = (vm.get("status") or {}).get("stateChangeRequests") or []
        if requests:
            req = requests[0]
            if req.get("action") == "Stop":
                if vmi is not None and (not req.get("uid") or req["uid"] == vmi["metadata"]["uid"]):
                    if not vmi["metadata"].get("deletionTimestamp"):
                        self._delete_vmi(vm, vmi)
                    return  # the request stays until the VMI is gone
                self._pop_request(ns, name)
                return
            if req.get("action") == "Start":
                if vmi is not None:
                    if kv.is_final(vmi) and not vmi["metadata"].get("deletionTimestamp"):
                        self._delete_vmi(vm, vmi)
                    return
                if kv.run_strategy(vm) == "Halted":
                    self._set_strategy(ns, name, "Always")
                if self._create_vmi(vm, dvs, paused=(req.get("data") or {}).get("paused")):
                    self._pop_request(ns, name)
                return
        strategy = kv.run_strategy(vm)
        if strategy == "Halted":
            if vmi is not None and not vmi["metadata"].get("deletionTimestamp"):
                self._delete_vmi(vm, vmi)
        elif strategy in ("Always", "RerunOnFailure", "Once"):
            if vmi is None:
                if strategy != "Once" or not (vm.get("status") or {}).get("created"):
                    self._create_vmi(vm, dvs)
            elif not vmi["metadata"].get("deletionTimestamp"):
                restart = (kv.is_final(vmi) if strategy == "Always"
                           else kv.phase(vmi) == "Failed" if strategy == "RerunOnFailure"
                           else False)
                if restart:
                    self._delete_vmi(vm, vmi)

    def _pop_request(self, ns, name):
        def pop(obj):
            reqs = obj["status"].get("stateChangeRequests") or []
            if reqs[1:]:
                obj["status"]["stateChangeRequests"] = reqs[1:]
            else:
                obj["status"].pop("stateChangeRequests", None)
            return obj
        self.store.mutate(kv.VM, ns, name, pop)

    def _set_strategy(self, ns, name, strategy):
        def apply(obj):
            if "running" in obj["spec"] and "runStrategy" not in obj["spec"]:
                obj["spec"]["running"] = strategy == "Always"
            else:
                obj["spec"]["runStrategy"] = strategy
            return obj
        self.store.mutate(kv.VM, ns, name, apply)

    def _create_vmi(self, vm, dvs, paused=False):
        # virt-controller waits for the VM's DataVolumes before creating the VMI.
        if any((dv.get("status") or {}).get("phase") != "Succeeded" for dv in dvs):
            return False
        ns, name = kv.ns_name(vm)
        tmpl = (vm.get("spec") or {}).get("template") or {}
        tmd = tmpl.get("metadata") or {}
        body = {"metadata": {"name": name, "labels": copy.deepcopy(tmd.get("labels") or {}),
                             "annotations": copy.deepcopy(tmd.get("annotations") or {}),
                             "ownerReferences": [meta.owner_ref(vm)],
                             "finalizers": [kv.VMI_FINALIZER]},
                "spec": copy.deepcopy(tmpl.get("spec") or {}),
                "status": {"phase": "Pending",
                           "phaseTransitionTimestamps": [{"phase": "Pending",
                                                          "phaseTransitionTimestamp": meta.now()}]}}
        if paused:
            body["spec"]["startStrategy"] = "Paused"
        body["metadata"]["labels"]["vm.kubevirt.io/name"] = name
        ifaces = _devices(body["spec"]).get("interfaces")
        if ifaces:
            # Interfaces already unplugged are not part of a new guest.
            absent = {i.get("name") for i in ifaces if i.get("state") == "absent"}
            _devices(body["spec"])["interfaces"] = [i for i in ifaces
                                                   if i.get("name") not in absent]
            body["spec"]["networks"] = [n for n in body["spec"].get("networks") or []
                                        if n.get("name") not in absent]
        self.store.mutate(kv.VM, ns, name, lambda o: (
            meta.remove_condition(o, "RestartRequired"), o)[1])
        try:
            self.store.create(kv.VMI, ns, body, internal=True)
        except errors.ApiError as exc:
            if exc.code != 409:
                raise
            return True
        self.sim.record_event(vm, "Normal", "SuccessfulCreate", "Started the virtual machine "
                              f"by creating the new virtual machine instance {name}",
                              "virtualmachine-controller")
        return True

    def _delete_vmi(self, vm, vmi):
        ns, name = kv.ns_name(vm)
        self.store.delete(kv.VMI, ns, name)
        self.sim.record_event(vm, "Normal", "SuccessfulDelete", "Stopped the virtual machine "
                              f"by deleting the virtual machine instance "
                              f"{vmi['metadata']['uid']}", "virtualmachine-controller")

    # -- status ----------------------------------------------------------------------------
    def _status(self, ns, name):
        vm = self.store.raw(kv.VM, ns, name)
        if vm is None:
            return
        vmi = self.store.raw(kv.VMI, ns, name)
        if vmi is not None and not _owned_by(vmi, vm):
            vmi = None
        dvs = [d for d in (self.store.raw(kv.DV, ns, (t.get("metadata") or {}).get("name"))
                           for t in (vm.get("spec") or {}).get("dataVolumeTemplates") or [])
               if d is not None]

        def apply(obj):
            st = obj.setdefault("status", {})
            st["printableStatus"] = printable_status(obj, vmi, dvs)
            st["created"] = vmi is not None
            ready = (vmi is not None and kv.phase(vmi) == "Running" and
                     (meta.get_condition(vmi, "Ready") or {}).get("status") == "True")
            st["ready"] = ready
            st["runStrategy"] = kv.run_strategy(obj)
            st["desiredGeneration"] = obj["metadata"].get("generation", 1)
            if vmi is not None:
                st["observedGeneration"] = obj["metadata"].get("generation", 1)
            meta.set_condition(obj, "Ready", "True" if ready else "False",
                               "" if ready else ("VMINotExists" if vmi is None else "PodNotReady"))
            if kv.is_paused(vmi):
                meta.set_condition(obj, "Paused", "True", "PausedByUser", "VMI was paused by user")
            else:
                meta.remove_condition(obj, "Paused")
            failed_dv = next((d for d in dvs if (d.get("status") or {}).get("phase") == "Failed"),
                             None)
            if failed_dv is not None:
                meta.set_condition(obj, "Failure", "True", "DataVolumeError",
                                   f"DataVolume {failed_dv['metadata']['name']} failed")
            elif st["printableStatus"] == "ErrorUnschedulable":
                why = (meta.get_condition(vmi, "PodScheduled") or {}).get("message", "")
                meta.set_condition(obj, "Failure", "True", "Unschedulable", why)
            else:
                meta.remove_condition(obj, "Failure")
            if vmi is not None and (vmi.get("status") or {}).get("volumeStatus"):
                st["volumeSnapshotStatuses"] = [{"name": v["name"], "enabled": False}
                                                for v in vmi["status"]["volumeStatus"]]
            return obj
        self.store.mutate(kv.VM, ns, name, apply)


def _devices(spec):
    return spec.setdefault("domain", {}).setdefault("devices", {})


def _owned_by(vmi, vm):
    refs = vmi["metadata"].get("ownerReferences") or []
    return any(r.get("uid") == vm["metadata"]["uid"] for r in refs)


def _add_finalizer(obj):
    obj["metadata"].setdefault("finalizers", []).append(kv.VMI_FINALIZER)
    return obj


class VMStatusController(VMController):
    def step(self):
        items, _ = self.store.items(kv.VM)
        for vm in items:
            try:
                self._status(*kv.ns_name(vm))
            except errors.ApiError:
                pass
