"""Kubernetes nodes -> compute nodes and Placement inventory (design note
section 6).

One compute node and resource provider per schedulable Kubernetes node
(or, with ``[kubevirt]/cluster_provider``, one for the whole cluster).
Capacity Placement never hands out -- pods that are not our guests, and
each virt-launcher's own overhead -- is reported as ``reserved``, refreshed
every time the resource tracker asks.
"""
import collections
import datetime
import json
import logging
import math
import re
import uuid as uuid_lib

import os_resource_classes as orc
import os_traits

from keel import exception
from keel.virt import driver as virt_driver
from keel.virt.kubevirt import kube
from keel.virt.kubevirt.spec import labels as labels_mod

LOG = logging.getLogger(__name__)

SCHEDULABLE = "kubevirt.io/schedulable=true"
CPU_MANAGER_LABELS = ("cpumanager", "kubevirt.io/cpumanager")
CPU_MODEL = "cpu-model.node.kubevirt.io/"
CPU_FEATURE = "cpu-feature.node.kubevirt.io/"
HOST_MODEL = "host-model-cpu.node.kubevirt.io/"
OUR_TRAIT_PREFIXES = ("CUSTOM_KUBEVIRT_", "HW_CPU_X86_")
MIB = 1024 ** 2
GIB = 1024 ** 3

_SUFFIX = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
           "P": 1e15, "E": 1e18, "Ki": 2 ** 10, "Mi": 2 ** 20,
           "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$")
_CUSTOM = re.compile(r"[^A-Z0-9_]")
_STD_CPU_TRAITS = frozenset(os_traits.get_traits("HW_CPU_X86_"))

NodeInfo = collections.namedtuple(
    "NodeInfo", "name uuid vcpus memory_mb disk_gb reserved_cpus "
                "reserved_mb pcpu traits cpu_info version ready_since")


def quantity(value):
    """A Kubernetes quantity ("500m", "4Gi") as a float."""
    if value in (None, ""):
        return 0.0
    match = _QUANTITY.match(str(value).strip())
    if not match or match.group(2) not in _SUFFIX:
        raise ValueError("invalid quantity %r" % value)
    return float(match.group(1)) * _SUFFIX[match.group(2)]


def pod_requests(pod):
    cpu = mem = 0.0
    for container in (pod.get("spec") or {}).get("containers") or []:
        req = (container.get("resources") or {}).get("requests") or {}
        cpu += quantity(req.get("cpu"))
        mem += quantity(req.get("memory"))
    return cpu, mem


def guest_size(vm):
    """(vcpus, memory bytes, disk GiB) a guest's flavor gave it."""
    spec = ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}
    domain = spec.get("domain") or {}
    cpu = domain.get("cpu") or {}
    vcpus = ((cpu.get("sockets") or 1) * (cpu.get("cores") or 1) *
             (cpu.get("threads") or 1))
    mem = quantity((domain.get("memory") or {}).get("guest"))
    disk = 0.0
    for tmpl in (vm.get("spec") or {}).get("dataVolumeTemplates") or []:
        storage = (tmpl.get("spec") or {}).get("storage") or {}
        disk += quantity(((storage.get("resources") or {}).get("requests")
                          or {}).get("storage"))
    return vcpus, mem, int(math.ceil(disk / GIB))


def custom_trait(prefix, name):
    return "CUSTOM_KUBEVIRT_%s_%s" % (prefix, _CUSTOM.sub("_", name.upper()))


def node_traits(labels):
    traits = set()
    for key, value in (labels or {}).items():
        if value != "true":
            continue
        if key.startswith(CPU_MODEL):
            traits.add(custom_trait("CPU_MODEL", key[len(CPU_MODEL):]))
        elif key.startswith(HOST_MODEL):
            traits.add(custom_trait("HOST_MODEL", key[len(HOST_MODEL):]))
        elif key.startswith(CPU_FEATURE):
            feature = key[len(CPU_FEATURE):]
            traits.add(custom_trait("CPU_FEATURE", feature))
            std = "HW_CPU_X86_" + _CUSTOM.sub("_", feature.upper())
            if std in _STD_CPU_TRAITS:
                traits.add(std)
    return traits


def version_int(version):
    """Nova's integer form of "v1.34.2": 1034002."""
    parts = re.findall(r"\d+", version or "")[:3]
    parts += ["0"] * (3 - len(parts))
    return int(parts[0]) * 1000000 + int(parts[1]) * 1000 + int(parts[2])


def _ready_since(node):
    for cond in (node.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Ready" and cond.get("status") == "True":
            return cond.get("lastTransitionTime")
    return None


class Inventory(object):
    """The cluster's nodes as the resource tracker sees them."""

    def __init__(self, kube_client, conf, host, guests):
        self.kube = kube_client
        self.conf = conf
        self.host = host
        # callable -> our VirtualMachines (the watch cache)
        self.guests = guests
        self._nodes = None

    # -- refresh --------------------------------------------------------------
    def refresh(self):
        nodes, _rv = self.kube.list(kube.NODE, label_selector=SCHEDULABLE)
        pods, _rv = self.kube.list(kube.POD, all_namespaces=True)
        ours = {vm["metadata"]["name"]: vm for vm in self.guests()}
        by_node = collections.defaultdict(list)
        for pod in pods:
            phase = (pod.get("status") or {}).get("phase")
            node = (pod.get("spec") or {}).get("nodeName")
            if node and phase not in ("Succeeded", "Failed"):
                by_node[node].append(pod)
        infos = {}
        for node in nodes:
            if (node.get("spec") or {}).get("unschedulable"):
                continue  # cordoned: nothing new may land there
            info = self._node_info(node, by_node[node["metadata"]["name"]],
                                   ours)
            infos[info.name] = info
        self._nodes = infos
        return infos

    def _reserved(self, pods, ours):
        """(cpus, MiB) requested on a node by what Placement does not see:
        other pods in full, our launchers beyond their guest's size."""
        cpu = mem = 0.0
        for pod in pods:
            pcpu, pmem = pod_requests(pod)
            labels = pod["metadata"].get("labels") or {}
            vm = ours.get(labels.get("vm.kubevirt.io/name")) \
                if labels.get("kubevirt.io") == "virt-launcher" else None
            if vm is not None:
                vcpus, guest_mem, _disk = guest_size(vm)
                cpu += max(0.0, pcpu - vcpus)
                mem += max(0.0, pmem - guest_mem)
            else:
                cpu += pcpu
                mem += pmem
        return int(math.ceil(cpu - 1e-9)), int(math.ceil(mem / MIB - 1e-9))

    def _node_info(self, node, pods, ours):
        name = node["metadata"]["name"]
        labels = node["metadata"].get("labels") or {}
        alloc = (node.get("status") or {}).get("allocatable") or {}
        disk = self.conf.kubevirt.disk_gb or int(
            quantity(alloc.get("ephemeral-storage")) // GIB)
        reserved_cpus, reserved_mb = self._reserved(pods, ours)
        traits = node_traits(labels)
        host_model = next((k[len(HOST_MODEL):] for k in labels
                           if k.startswith(HOST_MODEL)), "")
        node_info = (node.get("status") or {}).get("nodeInfo") or {}
        vcpus = int(quantity(alloc.get("cpu")))
        cpu_info = {"arch": node_info.get("architecture", "x86_64")
                    .replace("amd64", "x86_64"),
                    "model": host_model, "vendor": "",
                    "topology": {"sockets": 1, "cores": vcpus,
                                 "threads": 1},
                    "features": sorted(k[len(CPU_FEATURE):] for k in labels
                                       if k.startswith(CPU_FEATURE))}
        return NodeInfo(
            name=name,
            uuid=str(uuid_lib.uuid5(uuid_lib.NAMESPACE_URL,
                                    "keel-kubevirt:%s:%s" % (self.host,
                                                             name))),
            vcpus=vcpus,
            memory_mb=int(quantity(alloc.get("memory")) // MIB),
            disk_gb=disk, reserved_cpus=reserved_cpus,
            reserved_mb=reserved_mb,
            pcpu=any(labels.get(k) == "true" for k in CPU_MANAGER_LABELS),
            traits=traits, cpu_info=cpu_info,
            version=version_int(node_info.get("kubeletVersion")),
            ready_since=_ready_since(node))

    def nodes(self, refresh=False):
        if refresh or self._nodes is None:
            try:
                self.refresh()
            except kube.KubeError as err:
                if self._nodes is None:
                    raise
                # Keep reporting what we knew: dropping every node because
                # the API blinked would make Nova delete its compute nodes.
                LOG.warning("Cannot list Kubernetes nodes (%s); keeping the "
                            "last known inventory", err)
        return self._nodes

    # -- what the driver reports ------------------------------------------
    @property
    def cluster_mode(self):
        return self.conf.kubevirt.cluster_provider

    def nodenames(self, refresh=False):
        nodes = self.nodes(refresh)
        if self.cluster_mode:
            return [self.conf.kubevirt.cluster_node_name]
        return sorted(nodes)

    def node_uuid(self, nodename):
        if self.cluster_mode:
            return str(uuid_lib.uuid5(
                uuid_lib.NAMESPACE_URL,
                "keel-kubevirt:%s:%s" % (self.host, nodename)))
        return self._get(nodename).uuid

    def _get(self, nodename):
        nodes = self.nodes()
        if nodename not in nodes:
            nodes = self.nodes(refresh=True)
        if nodename not in nodes:
            raise exception.ComputeHostNotFound(host=nodename)
        return nodes[nodename]

    def _members(self, nodename):
        """The Kubernetes nodes behind a compute node."""
        if self.cluster_mode:
            if nodename != self.conf.kubevirt.cluster_node_name:
                raise exception.ComputeHostNotFound(host=nodename)
            return list(self.nodes().values())
        return [self._get(nodename)]

    def _used(self, nodename):
        vcpus = mem = disk = 0
        for vm in self.guests():
            node = (vm["metadata"].get("labels") or {}).get(labels_mod.NODE)
            if self.cluster_mode or node == labels_mod.label_value(nodename):
                c, m, d = guest_size(vm)
                vcpus, mem, disk = vcpus + c, mem + m, disk + d
        return vcpus, int(mem // MIB), disk

    def resources(self, nodename):
        members = self._members(nodename)
        vcpus_used, mem_used, disk_used = self._used(nodename)
        vcpus = sum(n.vcpus for n in members)
        disk = sum(n.disk_gb for n in members)
        first = members[0] if members else None
        return {
            "uuid": self.node_uuid(nodename),
            "vcpus": vcpus,
            "memory_mb": sum(n.memory_mb for n in members),
            "local_gb": disk,
            "vcpus_used": vcpus_used,
            "memory_mb_used": mem_used,
            "local_gb_used": disk_used,
            "hypervisor_type": "kubevirt",
            "hypervisor_version": first.version if first else 0,
            "hypervisor_hostname": nodename,
            "cpu_info": json.dumps(first.cpu_info if first else {}),
            "disk_available_least": disk - disk_used,
            "supported_instances": [["x86_64", "kvm", "hvm"]],
            "numa_topology": None,
        }

    def update_provider_tree(self, provider_tree, nodename):
        members = self._members(nodename)
        current = provider_tree.data(nodename).inventory
        pcpu = bool(members) and not self.cluster_mode and members[0].pcpu
        cpu_rc = orc.PCPU if pcpu else orc.VCPU
        totals = {orc.VCPU: sum(n.vcpus for n in members),
                  orc.MEMORY_MB: sum(n.memory_mb for n in members),
                  orc.DISK_GB: sum(n.disk_gb for n in members)}
        inventory = virt_driver.standard_inventory(self.conf, totals,
                                                   current)
        pods = {orc.VCPU: sum(n.reserved_cpus for n in members),
                orc.MEMORY_MB: sum(n.reserved_mb for n in members)}
        biggest = {orc.VCPU: max([n.vcpus for n in members] or [0]),
                   orc.MEMORY_MB: max([n.memory_mb for n in members] or [0]),
                   orc.DISK_GB: max([n.disk_gb for n in members] or [0])}
        for rc, record in inventory.items():
            record["reserved"] = min(record["total"],
                                     record["reserved"] + pods.get(rc, 0))
            # One guest never spans nodes (VMware's max_unit rule).
            record["max_unit"] = max(1, biggest[rc])
        if pcpu and orc.VCPU in inventory:
            record = inventory.pop(orc.VCPU)
            record["allocation_ratio"] = 1.0  # dedicated CPUs never overcommit
            inventory[orc.PCPU] = record
        provider_tree.update_inventory(nodename, inventory)
        traits = set.intersection(*[n.traits for n in members]) \
            if members else set()
        kept = {t for t in provider_tree.data(nodename).traits
                if not t.startswith(OUR_TRAIT_PREFIXES)}
        provider_tree.update_traits(nodename, kept | traits)
        return cpu_rc

    def uptime(self):
        """Seconds since the longest-ready node became Ready (there is no
        Kubernetes uptime API; this is the closest observable)."""
        stamps = [n.ready_since for n in self.nodes(refresh=True).values()
                  if n.ready_since]
        if not stamps:
            return 0
        first = min(datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
                    .replace(tzinfo=datetime.timezone.utc) for s in stamps)
        now = datetime.datetime.now(datetime.timezone.utc)
        return max(0, int((now - first).total_seconds()))
