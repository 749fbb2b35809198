"""Cluster inventory the tests arrange: nodes, plain pods, namespaces, events, and the
per-VMI state the simulated KubeVirt keeps. Mixed into KubeSim."""
import itertools

from . import errors
from . import kubevirt as kv
from . import meta


class ClusterMixin:
    def _init_cluster(self):
        self.console_logs = {}          # (ns, pod, container) -> text
        self.export_data = {}           # (ns, pvc) -> bytes served by export links
        self.export_sources = {}        # (ns, export, volume) -> export_data key
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
