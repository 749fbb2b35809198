"""What kubelets, guests and the CDI export server would provide: nodes, plain pods, console
logs, guest-agent answers, export downloads. Mixed into KubeSim."""
import base64
import gzip
import itertools

from . import errors
from . import kubevirt as kv
from . import meta


class ClusterMixin:
    def _init_cluster(self):
        self.console_logs = {}          # (ns, pod, container) -> text
        self.export_data = {}           # (ns, pvc) -> bytes served by export links
        self.reboots = []               # (ns, vmi name, "soft"|"hard") as the guest saw them
        self.forced_unschedulable = set()
        self.forced_image_errors = set()
        self.no_agent = set()
        self.shutting_down = set()      # VMI uids whose guests were asked to shut down
        self._ips = itertools.count(2)
        self._macs = itertools.count(1)

    # -- nodes and pods --------------------------------------------------------------------
    def add_node(self, name, cpu="16", memory="64Gi", labels=None, *, pods="110",
                 schedulable=True, cpu_manager=False, allocatable=None, capacity=None,
                 cpu_models=("Skylake-Client-IBRS",), cpu_features=("vmx", "avx2"),
                 host_model="Skylake-Client-IBRS"):
        """A Ready node labelled as virt-handler labels it (schedulable, CPU models and
        features); `allocatable` adds or overrides entries such as hugepages-2Mi or
        devices.kubevirt.io/* and nvidia.com/* device-plugin resources."""
        lbl = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
               "kubernetes.io/arch": "amd64"}
        lbl.update({f"cpu-model.node.kubevirt.io/{m}": "true" for m in cpu_models})
        lbl.update({f"cpu-feature.node.kubevirt.io/{f}": "true" for f in cpu_features})
        if host_model:
            lbl[f"host-model-cpu.node.kubevirt.io/{host_model}"] = "true"
        if schedulable:
            lbl["kubevirt.io/schedulable"] = "true"
        if cpu_manager:
            # virt-handler's label is "cpumanager"; the prefixed one is what some tooling reads
            lbl["cpumanager"] = "true"
            lbl["kubevirt.io/cpumanager"] = "true"
        lbl.update(labels or {})
        alloc = {"cpu": str(cpu), "memory": str(memory), "pods": str(pods),
                 "ephemeral-storage": "100Gi", "devices.kubevirt.io/kvm": "1k",
                 "devices.kubevirt.io/tun": "1k", "devices.kubevirt.io/vhost-net": "1k"}
        alloc.update(allocatable or {})
        cap = dict(alloc)
        cap.update(capacity or {})
        node = {"metadata": {"name": name, "labels": lbl},
                "spec": {"podCIDR": "10.244.0.0/24"},
                "status": {"capacity": cap, "allocatable": alloc,
                           "conditions": [{"type": "Ready", "status": "True",
                                           "reason": "KubeletReady",
                                           "message": "kubelet is posting ready status",
                                           "lastHeartbeatTime": meta.now(),
                                           "lastTransitionTime": meta.now()}],
                           "addresses": [{"type": "InternalIP", "address": self.next_ip()},
                                         {"type": "Hostname", "address": name}],
                           "nodeInfo": {"kubeletVersion": "v1.34.0", "kubeProxyVersion": "",
                                        "architecture": "amd64", "operatingSystem": "linux",
                                        "osImage": "Fedora CoreOS 41", "bootID": meta.new_uid(),
                                        "kernelVersion": "6.11.4-301.fc41.x86_64",
                                        "containerRuntimeVersion": "containerd://2.0.0",
                                        "machineID": meta.new_uid().replace("-", ""),
                                        "systemUUID": meta.new_uid()}}}
        return self.store.create(kv.NODE, None, node, internal=True)

    def set_node_ready(self, name, ready=True):
        """A node (and its virt-handler) going away or coming back: unready nodes are not
        scheduled to and their VMIs fail with reason NodeUnresponsive at the next step."""
        def apply(n):
            meta.set_condition(n, "Ready", "True" if ready else "Unknown",
                               "KubeletReady" if ready else "NodeStatusUnknown",
                               "" if ready else "Kubelet stopped posting node status.")
            n["metadata"].setdefault("labels", {})["kubevirt.io/schedulable"] = \
                "true" if ready else "false"
            return n
        self.store.mutate(kv.NODE, "", name, apply)

    def add_pod(self, name, node, cpu="1", memory="1Gi", namespace="default", labels=None):
        """A running pod that is not a VM, consuming node capacity (Placement's `reserved`)."""
        pod = {"metadata": {"name": name, "labels": dict(labels or {})},
               "spec": {"nodeName": node, "containers": [
                   {"name": "main", "image": "registry.k8s.io/pause:3.10",
                    "resources": {"requests": {"cpu": str(cpu), "memory": str(memory)}}}]},
               "status": {"phase": "Running", "podIP": self.next_ip()}}
        return self.store.create(kv.POD, namespace, pod, internal=True)

    def create_namespace(self, name):
        return self.store.create(kv.NAMESPACE, None, {"metadata": {"name": name}})

    def next_ip(self):
        n = next(self._ips)
        return f"10.244.{n // 250}.{n % 250 + 2}"

    def next_mac(self):
        n = next(self._macs)
        return "02:00:00:%02x:%02x:%02x" % ((n >> 16) & 255, (n >> 8) & 255, n & 255)

    def launcher_pods(self, vmi):
        if vmi is None:
            return []
        ns = vmi["metadata"]["namespace"]
        return [p for p in self.store.by_label(kv.POD, kv.CREATED_BY, vmi["metadata"]["uid"])
                if p["metadata"].get("namespace") == ns
                and not p["metadata"].get("deletionTimestamp")]

    # -- events ----------------------------------------------------------------------------
    def record_event(self, obj, type_, reason, message, component):
        md = obj["metadata"]
        ns = md.get("namespace") or "default"
        ev = {"metadata": {"name": f"{md['name']}.{meta.random_suffix(8)}"},
              "involvedObject": {"kind": obj.get("kind"), "apiVersion": obj.get("apiVersion"),
                                 "name": md["name"], "namespace": md.get("namespace"),
                                 "uid": md.get("uid")},
              "reason": reason, "message": message, "type": type_, "count": 1,
              "source": {"component": component}, "reportingComponent": component,
              "firstTimestamp": meta.now(), "lastTimestamp": meta.now()}
        try:
            self.store.create(kv.EVENT, ns, ev, internal=True)
        except errors.ApiError:
            pass

    # -- guests ----------------------------------------------------------------------------
    def guest_os_info(self, vmi):
        name = vmi["metadata"]["name"]
        return {"guestAgentVersion": "8.2.0", "hostname": name, "timezone": "UTC, 0",
                "os": {"name": "Fedora Linux", "id": "fedora", "version": "41",
                       "versionId": "41", "prettyName": "Fedora Linux 41",
                       "kernelRelease": "6.11.4-301.fc41.x86_64", "machine": "x86_64",
                       "kernelVersion": "#1 SMP PREEMPT_DYNAMIC"}}

    def _current_pod(self, vmi):
        pods = self.launcher_pods(vmi)
        active = (vmi.get("status") or {}).get("activePods") or {}
        for p in pods:
            if p["metadata"]["uid"] in active:
                return p
        return pods[0] if pods else None

    def append_console_for_pod(self, ns, pod_name, text):
        key = (ns, pod_name, "guest-console-log")
        self.console_logs[key] = self.console_logs.get(key, "") + text

    def append_console(self, namespace, vmi_name, text):
        """Write to the serial console of a VMI, as the guest would."""
        vmi = self.store.raw(kv.VMI, namespace, vmi_name)
        pod = self._current_pod(vmi) if vmi else None
        if pod is None:
            raise KeyError(f"no launcher pod for {namespace}/{vmi_name}")
        self.append_console_for_pod(namespace, pod["metadata"]["name"], text)

    def guest_rebooted(self, vmi, soft):
        ns, name = kv.ns_name(vmi)
        self.reboots.append((ns, name, "soft" if soft else "hard"))
        pod = self._current_pod(vmi)
        if pod is not None:
            self.append_console_for_pod(ns, pod["metadata"]["name"],
                                        "\nreboot: Restarting system\n"
                                        f"{name} login: ")

    def _end_guest(self, namespace, name, phase):
        def apply(o):
            o["status"]["phase"] = phase
            meta.set_condition(o, "Ready", "False", "PodCompleted" if phase == "Succeeded"
                               else "PodFailed")
            return o
        vmi = self.store.mutate(kv.VMI, namespace, name, apply)
        for pod in self.launcher_pods(vmi):
            self.store.mutate(kv.POD, namespace, pod["metadata"]["name"],
                              lambda p: (p["status"].__setitem__("phase", phase), p)[1])

    def guest_shutdown(self, namespace, name):
        """The guest powered itself off: the VMI ends Succeeded (runStrategy Manual keeps it)."""
        self._end_guest(namespace, name, "Succeeded")

    def crash_vmi(self, namespace, name):
        """QEMU died or the node lost the guest: the VMI ends Failed."""
        self._end_guest(namespace, name, "Failed")

    # -- served extras ---------------------------------------------------------------------
    def serve_pod_log(self, req, ns, name):
        pod = self.store.get(kv.POD, ns, name)
        names = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
        container = req.query.get("container")
        if not container:
            if len(names) != 1:
                raise errors.bad_request(f"a container name must be specified for pod {name}, "
                                         f"choose one of: [{' '.join(names)}]")
            container = names[0]
        if container not in names:
            raise errors.bad_request(f"container {container} is not valid for pod {name}")
        if (pod.get("status") or {}).get("phase") == "Pending":
            raise errors.bad_request(f'container "{container}" in pod "{name}" is waiting to '
                                     "start: ContainerCreating")
        text = self.console_logs.get((ns, name, container), "")
        if req.query.get("tailLines"):
            n = int(req.query["tailLines"])
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-n:]) if n else ""
        data = text.encode()
        if req.query.get("limitBytes"):
            data = data[:int(req.query["limitBytes"])]
        req.handler.send_bytes(200, data, "text/plain")

    def serve_export(self, req, parts):
        # /kubesim/export/{ns}/{export}/volumes/{volume}/disk.img[.gz]
        if len(parts) != 7 or parts[4] != "volumes" or parts[6] not in ("disk.img",
                                                                          "disk.img.gz"):
            raise errors.ApiError(404, "NotFound", "no such export link")
        ns, name, vol = parts[2], parts[3], parts[5]
        exp = self.store.get(kv.EXPORT, ns, name)
        if (exp.get("status") or {}).get("phase") != "Ready":
            raise errors.ApiError(404, "NotFound", f"export {name} is not ready")
        secret = self.store.raw(kv.SECRET, ns, exp["status"].get("tokenSecretRef"))
        want = base64.b64decode(((secret or {}).get("data") or {}).get("token", "")).decode()
        if not want or req.headers.get("x-kubevirt-export-token") != want:
            raise errors.ApiError(401, "Unauthorized", "missing or wrong x-kubevirt-export-token")
        data = self.export_data.get((ns, vol), f"KUBESIM-DISK {ns}/{vol}\n".encode())
        if parts[6].endswith(".gz"):
            data = gzip.compress(data)
        req.handler.send_bytes(200, data, "application/octet-stream")

    # -- admission (what KubeVirt's validating webhooks refuse) ---------------------------
    def admit(self, rt, ns, body):
        if rt is kv.VMIM or rt.storage == kv.VMIM.storage:
            self.admit_migration(ns, body.get("spec") or {})
        elif rt.storage == kv.VM.storage:
            spec = body.get("spec") or {}
            if "running" in spec and "runStrategy" in spec:
                raise _denied("vm", "Running and RunStrategy are mutually exclusive. Note "
                              "that Running is deprecated, please use RunStrategy instead")
            if not isinstance(spec.get("template"), dict):
                raise _denied("vm", "spec.template: Required value: missing template")
            allowed = ("Always", "RerunOnFailure", "Manual", "Halted", "Once",
                       "WaitAsReceiver")
            if "runStrategy" in spec and spec["runStrategy"] not in allowed:
                raise _denied("vm", f"spec.runStrategy: Unsupported value: "
                              f"\"{spec['runStrategy']}\": supported values: "
                              + ", ".join(f'"{a}"' for a in allowed))

    def admit_migration(self, ns, spec):
        name = spec.get("vmiName")
        vmi = self.store.raw(kv.VMI, ns, name) if name else None
        if vmi is None:
            raise _denied("migration-create", f"the VMI \"{ns}/{name}\" does not exist")
        if kv.is_final(vmi):
            raise _denied("migration-create", "Cannot migrate VMI in finalized state.")
        if kv.phase(vmi) != "Running":
            raise _denied("migration-create", "Cannot migrate VMI which is not running.")
        cond = meta.get_condition(vmi, "LiveMigratable")
        if cond and cond.get("status") == "False":
            raise _denied("migration-create", f"Cannot migrate VMI, Reason: {cond.get('reason')}"
                          f", Message: {cond.get('message')}")
        items, _ = self.store.items(kv.VMIM, ns)
        for m in items:
            if (m.get("spec") or {}).get("vmiName") == name and \
                    (m.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                raise _denied("migration-create", f"in-flight migration detected. Active "
                              f"migration job ({m['metadata']['uid']}) is currently already "
                              f"in progress for VMI {name}.")


def _denied(webhook, message):
    return errors.ApiError(400, "BadRequest", f'admission webhook "{webhook}-validator.'
                           f'kubevirt.io" denied the request: {message}')

