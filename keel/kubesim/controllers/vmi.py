"""virt-controller, kube-scheduler, kubelet and virt-handler for VirtualMachineInstances.

One phase per step: "" -> Pending -> Scheduling (launcher pod created) -> Scheduled (pod
bound and running) -> Running (guest booted). Deletion: Running -> Succeeded (guest shut
down) -> finalizer removed and launcher pod deleted. Hotplugged volumes move
Pending -> Bound (once their PVC is Bound) -> AttachedToNode -> Ready (or Failed on an
injected fault); unplugged ones Detaching -> gone. Hotplugged bridge interfaces appear in
``status.interfaces`` one step after they reach the VMI spec and leave it one step after
being marked ``state: absent``.
"""
import copy

from .. import errors
from .. import kubevirt as kv
from .. import meta
from .. import quantity
from .scheduling import node_ready, pick_node

LAUNCHER_IMAGE = "quay.io/kubevirt/virt-launcher:v1.7.0"
OVERHEAD_MEMORY = 200 * 2 ** 20   # virt-launcher's own memory, added to the pod request
CPU_ALLOCATION_RATIO = 10


def launcher_resources(vmi):
    domain = (vmi.get("spec") or {}).get("domain") or {}
    req = dict(((domain.get("resources") or {}).get("requests")) or {})
    cpu = domain.get("cpu") or {}
    vcpus = (cpu.get("sockets") or 1) * (cpu.get("cores") or 1) * (cpu.get("threads") or 1)
    if "cpu" not in req:
        req["cpu"] = quantity.cpu_str(vcpus if cpu.get("dedicatedCpuPlacement")
                                      else vcpus / CPU_ALLOCATION_RATIO)
    guest = quantity.parse(req.get("memory") or (domain.get("memory") or {}).get("guest") or
                           "0")
    req["memory"] = quantity.mem_str(guest + OVERHEAD_MEMORY)
    return req


class VMIController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def step(self):
        items, _ = self.store.items(kv.VMI)
        for vmi in items:
            try:
                self._sync(vmi)
            except errors.ApiError:
                pass

    def _mutate(self, vmi, fn):
        ns, name = kv.ns_name(vmi)

        def apply(obj):
            fn(obj)
            return obj
        return self.store.mutate(kv.VMI, ns, name, apply)

    def _set_phase(self, obj, phase):
        st = obj.setdefault("status", {})
        st["phase"] = phase
        st.setdefault("phaseTransitionTimestamps", []).append(
            {"phase": phase, "phaseTransitionTimestamp": meta.now()})

    def _sync(self, vmi):
        md = vmi["metadata"]
        phase = kv.phase(vmi)
        if md.get("deletionTimestamp"):
            return self._deleting(vmi)
        if kv.VMI_FINALIZER not in (md.get("finalizers") or []):
            self._mutate(vmi, lambda o: o["metadata"].setdefault("finalizers", []).append(
                kv.VMI_FINALIZER))
        if phase == "":
            self._mutate(vmi, lambda o: self._set_phase(o, "Pending"))
        elif phase == "Pending":
            if self._claims_present(vmi):
                self._create_pod(vmi)
        elif phase == "Scheduling":
            self._schedule(vmi)
        elif phase in ("Scheduled", "Running") and not self._node_ok(vmi):
            return
        elif phase == "Scheduled":
            self._boot(vmi)
        elif phase == "Running":
            self._hotplug(vmi)
            self._hotplug_interfaces(vmi)
            self._check_pod(vmi)

    # -- deletion --------------------------------------------------------------------------
    def _deleting(self, vmi):
        ns, name = kv.ns_name(vmi)
        if not kv.is_final(vmi):
            uid = vmi["metadata"]["uid"]
            if uid not in self.sim.shutting_down:
                # virt-handler first signals the guest (ACPI); it is down by the next step.
                self.sim.shutting_down.add(uid)
                return
            self.sim.shutting_down.discard(uid)

            def shut(o):
                self._set_phase(o, "Succeeded")
                meta.set_condition(o, "Ready", "False", "PodTerminating", "")
            self._mutate(vmi, shut)
            return
        for pod in self.sim.launcher_pods(vmi):
            try:
                self.store.delete(kv.POD, ns, pod["metadata"]["name"])
            except errors.ApiError:
                pass
        self.store.finalize(kv.VMI, ns, name, kv.VMI_FINALIZER)

    # -- start-up --------------------------------------------------------------------------
    def _claims_present(self, vmi):
        """virt-controller holds a VMI whose PVC is missing: Synchronized=False."""
        ns = vmi["metadata"]["namespace"]
        for vol in (vmi.get("spec") or {}).get("volumes") or []:
            claim = (vol.get("persistentVolumeClaim") or {}).get("claimName") or \
                (vol.get("dataVolume") or {}).get("name")
            if claim and self.store.raw(kv.PVC, ns, claim) is None:
                msg = f"PVC {ns}/{claim} does not exist, waiting for it to appear"
                self._mutate(vmi, lambda o: meta.set_condition(o, "Synchronized", "False",
                                                               "FailedPvcNotFound", msg))
                return False
        if meta.get_condition(vmi, "Synchronized"):
            self._mutate(vmi, lambda o: meta.remove_condition(o, "Synchronized"))
        return True

    def _create_pod(self, vmi):
        ns, name = kv.ns_name(vmi)
        spec = vmi.get("spec") or {}
        selector = dict(spec.get("nodeSelector") or {})
        selector["kubevirt.io/schedulable"] = "true"
        if (((spec.get("domain") or {}).get("cpu") or {}).get("dedicatedCpuPlacement")):
            selector["cpumanager"] = "true"     # only nodes with the static CPU manager
        pod = {"metadata": {"generateName": f"virt-launcher-{name}-",
                            "labels": {"kubevirt.io": "virt-launcher",
                                       kv.CREATED_BY: vmi["metadata"]["uid"],
                                       "vm.kubevirt.io/name": name},
                            "annotations": {"kubevirt.io/domain": name},
                            "ownerReferences": [meta.owner_ref(vmi)]},
               "spec": {"nodeSelector": selector, "restartPolicy": "Never",
                        "schedulerName": "default-scheduler",
                        "containers": [{"name": "compute", "image": LAUNCHER_IMAGE,
                                        "resources": {"requests": launcher_resources(vmi)}},
                                       {"name": "guest-console-log", "image": LAUNCHER_IMAGE,
                                        "resources": {}}]},
               "status": {"phase": "Pending", "qosClass": "Burstable"}}
        created = self.store.create(kv.POD, ns, pod, internal=True)
        self.sim.console_logs[(ns, created["metadata"]["name"], "compute")] = \
            f'{{"component":"virt-launcher","msg":"Starting domain {name}"}}\n'

        def apply(o):
            self._set_phase(o, "Scheduling")
            o["status"]["launcherContainerImageVersion"] = LAUNCHER_IMAGE
        self._mutate(vmi, apply)

    def _schedule(self, vmi):
        ns, name = kv.ns_name(vmi)
        pods = self.sim.launcher_pods(vmi)
        if not pods:
            return self._mutate(vmi, lambda o: self._set_phase(o, "Pending"))
        pod = pods[0]
        pname = pod["metadata"]["name"]
        uid = vmi["metadata"]["uid"]
        if not (pod.get("spec") or {}).get("nodeName"):
            forced = uid in self.sim.forced_unschedulable or \
                self.sim.kv_faults.take("unschedulable", name)
            if forced:
                self.sim.forced_unschedulable.add(uid)
                node, why = None, ("0/{n} nodes are available: {n} Insufficient devices."
                                   .format(n=len(self.store.items(kv.NODE)[0])))
            else:
                node, why = pick_node(self.store, pod)
            if node is None:
                self._unschedulable(vmi, pod, why)
                return
            self._bind(ns, pname, node)
            pod = self.store.raw(kv.POD, ns, pname)
        image_error = uid in self.sim.forced_image_errors or \
            self.sim.kv_faults.take("image_pull", name)
        if image_error:
            self.sim.forced_image_errors.add(uid)
            self._pull_failed(vmi, pod)
            return
        node = pod["spec"]["nodeName"]
        self._pod_running(ns, pname)

        def apply(o):
            self._set_phase(o, "Scheduled")
            st = o["status"]
            st["nodeName"] = node
            st["activePods"] = {pod["metadata"]["uid"]: node}
            o["metadata"].setdefault("labels", {})["kubevirt.io/nodeName"] = node
            meta.remove_condition(o, "PodScheduled")
        self._mutate(vmi, apply)

    def _bind(self, ns, pname, node):
        def bind(p):
            p["spec"]["nodeName"] = node
            meta.set_condition(p, "PodScheduled", "True")
            return p
        self.store.mutate(kv.POD, ns, pname, bind)

    def _unschedulable(self, vmi, pod, why):
        ns, _ = kv.ns_name(vmi)

        def on_pod(p):
            meta.set_condition(p, "PodScheduled", "False", "Unschedulable", why)
            return p
        self.store.mutate(kv.POD, ns, pod["metadata"]["name"], on_pod)
        before = meta.get_condition(vmi, "PodScheduled")
        self._mutate(vmi, lambda o: meta.set_condition(o, "PodScheduled", "False",
                                                       "Unschedulable", why))
        if not before:
            self.sim.record_event(pod, "Warning", "FailedScheduling", why, "default-scheduler")

    def _pull_failed(self, vmi, pod):
        ns, _ = kv.ns_name(vmi)
        images = [v["containerDisk"].get("image") for v in
                  (vmi.get("spec") or {}).get("volumes") or [] if v.get("containerDisk")]
        image = images[0] if images else LAUNCHER_IMAGE
        msg = f'Back-off pulling image "{image}": ErrImagePull: image not found'

        # kubelet alternates between a pull attempt and the back-off that follows it
        cur = ((((pod.get("status") or {}).get("containerStatuses") or [{}])[0].get("state")
                or {}).get("waiting") or {}).get("reason")
        reason = "ImagePullBackOff" if cur == "ErrImagePull" else "ErrImagePull"

        def on_pod(p):
            waiting = {"waiting": {"reason": reason, "message": msg}}
            p["status"]["containerStatuses"] = [
                {"name": c["name"], "ready": False, "restartCount": 0, "image": c["image"],
                 "imageID": "", "state": waiting} for c in p["spec"]["containers"]]
            return p
        had = (pod.get("status") or {}).get("containerStatuses")
        self.store.mutate(kv.POD, ns, pod["metadata"]["name"], on_pod)
        self._mutate(vmi, lambda o: meta.set_condition(o, "Synchronized", "False", reason, msg))
        if not had:
            self.sim.record_event(pod, "Warning", "Failed", msg, "kubelet")

    def _pod_running(self, ns, pname):
        def run(p):
            p["status"]["phase"] = "Running"
            p["status"]["podIP"] = self.sim.next_ip()
            p["status"]["containerStatuses"] = [
                {"name": c["name"], "ready": True, "restartCount": 0, "image": c["image"],
                 "imageID": c["image"], "state": {"running": {"startedAt": meta.now()}}}
                for c in p["spec"]["containers"]]
            meta.set_condition(p, "Ready", "True")
            return p
        self.store.mutate(kv.POD, ns, pname, run)

    def _boot(self, vmi):
        ns, name = kv.ns_name(vmi)
        pods = self.sim.launcher_pods(vmi)
        spec = vmi.get("spec") or {}
        no_agent = bool(self.sim.kv_faults.take("no_guest_agent", name)) or \
            vmi["metadata"]["uid"] in self.sim.no_agent
        if no_agent:
            self.sim.no_agent.add(vmi["metadata"]["uid"])
        migratable, why, detail = self._live_migratable(vmi)

        def apply(o):
            self._set_phase(o, "Running")
            st = o["status"]
            meta.set_condition(o, "Ready", "True")
            meta.set_condition(o, "LiveMigratable", "True" if migratable else "False", why,
                               detail)
            if not no_agent:
                meta.set_condition(o, "AgentConnected", "True")
                st["guestOSInfo"] = copy.deepcopy(self.sim.guest_os_info(o)["os"])
            if spec.get("startStrategy") == "Paused":
                meta.set_condition(o, "Paused", "True", "PausedByUser", "VMI was started paused")
            st["interfaces"] = [
                {"name": i.get("name"), "mac": i.get("macAddress") or self.sim.next_mac(),
                 "ipAddress": pods[0]["status"].get("podIP") if pods else None,
                 "interfaceName": f"eth{n}", "infoSource": "domain, guest-agent"}
                for n, i in enumerate(((spec.get("domain") or {}).get("devices") or {})
                                      .get("interfaces") or []) if i.get("state") != "absent"]
            st["volumeStatus"] = [self._volume_entry(v, n, "Ready")
                                  for n, v in enumerate(spec.get("volumes") or [])]
            st["qosClass"] = "Burstable"
            st["guestOSInfo"] = st.get("guestOSInfo", {})
        self._mutate(vmi, apply)
        if pods:
            self.sim.append_console_for_pod(ns, pods[0]["metadata"]["name"],
                                            f"[    0.000000] Linux version 6.1 ({name})\n"
                                            f"{name} login: ")

    def _volume_entry(self, volume, index, phase):
        entry = {"name": volume.get("name"), "target": "sd" + chr(ord("a") + index)
                 if _is_hotplug(volume) else "vd" + chr(ord("a") + index)}
        if _is_hotplug(volume):
            entry.update(phase=phase, reason="VolumeReady" if phase == "Ready" else phase,
                         message=f"Successfully attach hotplugged volume {volume['name']} to VM"
                         if phase == "Ready" else "",
                         hotplugVolume={"attachPodName": f"hp-volume-{meta.random_suffix()}"})
            src = volume.get("persistentVolumeClaim") or volume.get("dataVolume") or {}
            entry["persistentVolumeClaimInfo"] = {"claimName": src.get("claimName") or
                                                  src.get("name")}
        return entry

    def _live_migratable(self, vmi):
        spec = vmi.get("spec") or {}
        ns = vmi["metadata"]["namespace"]
        for v in spec.get("volumes") or []:
            claim = (v.get("persistentVolumeClaim") or {}).get("claimName") or \
                (v.get("dataVolume") or {}).get("name")
            if not claim:
                continue
            pvc = self.store.raw(kv.PVC, ns, claim)
            modes = ((pvc or {}).get("spec") or {}).get("accessModes") or []
            if pvc is not None and "ReadWriteMany" not in modes:
                return False, "DisksNotLiveMigratable", (
                    f"cannot migrate VMI: PVC {claim} is not shared, live migration requires "
                    "that all PVCs must be shared (using ReadWriteMany access mode)")
        for i in ((spec.get("domain") or {}).get("devices") or {}).get("interfaces") or []:
            net = next((n for n in spec.get("networks") or [] if n.get("name") == i.get("name")),
                       {})
            if "bridge" in i and "pod" in net:
                return False, "InterfaceNotLiveMigratable", (
                    "cannot migrate VMI which does not use masquerade, bridge with "
                    "kubevirt.io/allow-pod-bridge-network-live-migration VM annotation or a "
                    "migratable plugin to connect to the pod network")
        return True, "", ""

    # -- running ---------------------------------------------------------------------------
    def _hotplug(self, vmi):
        spec_vols = {v.get("name"): v for v in (vmi.get("spec") or {}).get("volumes") or []}
        statuses = (vmi.get("status") or {}).get("volumeStatus") or []
        known = {s["name"] for s in statuses}
        changed = False
        out = []
        order = ["Pending", "Bound", "AttachedToNode", "Ready"]
        for s in statuses:
            s = copy.deepcopy(s)
            if s["name"] not in spec_vols:
                if s.get("phase") == "Detaching":
                    changed = True
                    continue      # gone from status: detach complete
                s.update(phase="Detaching", reason="VolumeDetaching", message="")
                changed = True
            elif s.get("phase") in order[:-1]:
                hold = self._attach_blocked(vmi, spec_vols[s["name"]], s)
                if hold is not None:
                    if hold != s:
                        changed = True
                    out.append(hold)
                    continue
                nxt = order[order.index(s["phase"]) + 1]
                s = self._volume_entry(spec_vols[s["name"]], len(out), nxt) | {
                    "hotplugVolume": s.get("hotplugVolume")}
                if nxt != "Ready":
                    s["message"] = ""
                changed = True
            out.append(s)
        for name, v in spec_vols.items():
            if name not in known:
                out.append(self._volume_entry(v, len(out),
                                              "Pending" if _is_hotplug(v) else "Ready"))
                changed = True
        if changed:
            self._mutate(vmi, lambda o: o["status"].__setitem__("volumeStatus", out))

    def _hotplug_interfaces(self, vmi):
        spec = vmi.get("spec") or {}
        ifaces = ((spec.get("domain") or {}).get("devices") or {}).get("interfaces") or []
        status = (vmi.get("status") or {}).get("interfaces") or []
        live = {s.get("name") for s in status}
        absent = {i.get("name") for i in ifaces if i.get("state") == "absent"}
        new = [i for i in ifaces if i.get("name") not in live and i.get("name") not in absent]
        if not new and not (absent & live):
            return
        out = [s for s in status if s.get("name") not in absent]
        for i in new:
            out.append({"name": i.get("name"), "mac": i.get("macAddress") or self.sim.next_mac(),
                        "interfaceName": f"eth{len(out)}", "infoSource": "domain, multus-status",
                        "podInterfaceName": f"pod{meta.random_suffix(11)}",
                        "queueCount": 1})
        self._mutate(vmi, lambda o: o["status"].__setitem__("interfaces", out))

    def _attach_blocked(self, vmi, volume, entry):
        """The status entry to keep while a hotplug cannot advance: its claim is not Bound
        yet (the attachment pod cannot start), or an injected fault failed it."""
        if entry.get("phase") == "Pending":
            src = volume.get("persistentVolumeClaim") or volume.get("dataVolume") or {}
            claim = src.get("claimName") or src.get("name")
            pvc = self.store.raw(kv.PVC, vmi["metadata"]["namespace"], claim)
            if ((pvc or {}).get("status") or {}).get("phase") != "Bound":
                why = f"PVC {claim} is not bound" if pvc else f"PVC {claim} does not exist"
                return dict(entry, reason="PVCNotReady", message=why)
        if entry.get("phase") == "AttachedToNode":
            fault = self.sim.kv_faults.take("hotplug", entry["name"])
            if fault:
                return dict(entry, phase="Failed", reason="AttachFailed",
                            message=fault.get("message") or "failed to attach hotplugged "
                            f"volume {entry['name']}: device not found")
        return None

    def _node_ok(self, vmi):
        """virt-controller fails VMIs on a node whose virt-handler stopped heart-beating."""
        node = self.store.raw(kv.NODE, "", (vmi.get("status") or {}).get("nodeName") or "")
        if node is None or node_ready(node):
            return True

        def fail(o):
            self._set_phase(o, "Failed")
            o["status"]["reason"] = "NodeUnresponsive"
            meta.set_condition(o, "Ready", "False", "NodeUnresponsive",
                               "virt-handler on the node is unresponsive")
        self._mutate(vmi, fail)
        self.sim.record_event(vmi, "Warning", "NodeUnresponsive",
                              f"virt-handler on node {node['metadata']['name']} is "
                              "unresponsive, marking the VMI as failed", "virt-controller")
        return False

    def _check_pod(self, vmi):
        """A launcher pod deleted behind the VMI's back fails the VMI, as virt-handler sees."""
        if self.sim.launcher_pods(vmi):
            return
        mig = (vmi.get("status") or {}).get("migrationState") or {}
        if mig and not mig.get("completed") and not mig.get("failed"):
            return

        def fail(o):
            self._set_phase(o, "Failed")
            meta.set_condition(o, "Ready", "False", "PodTerminating", "launcher pod is gone")
        self._mutate(vmi, fail)


def _is_hotplug(volume):
    for key in ("persistentVolumeClaim", "dataVolume"):
        if (volume.get(key) or {}).get("hotpluggable"):
            return True
    return False
