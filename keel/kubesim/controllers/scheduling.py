"""A small kube-scheduler: node selector, readiness and cpu/memory requests that fit."""
from .. import kubevirt as kv
from .. import quantity


def pod_requests(pod):
    cpu = mem = 0.0
    for c in (pod.get("spec") or {}).get("containers") or []:
        req = ((c.get("resources") or {}).get("requests")) or {}
        cpu += quantity.parse(req.get("cpu"))
        mem += quantity.parse(req.get("memory"))
    return cpu, mem


def node_usage(store, exclude_uid=None):
    """{node name: (cpu, memory)} requested by pods bound there and not finished."""
    usage = {}
    pods, _ = store.items(kv.POD)
    for p in pods:
        node = (p.get("spec") or {}).get("nodeName")
        if not node or p["metadata"]["uid"] == exclude_uid:
            continue
        if (p.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        c, m = pod_requests(p)
        used = usage.get(node, (0.0, 0.0))
        usage[node] = (used[0] + c, used[1] + m)
    return usage


def node_ready(node):
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def pick_node(store, pod, exclude_nodes=()):
    """Returns (node_name, None) or (None, scheduler-style explanation)."""
    nodes, _ = store.items(kv.NODE)
    selector = (pod.get("spec") or {}).get("nodeSelector") or {}
    cpu, mem = pod_requests(pod)
    reasons = {}

    def note(why):
        reasons[why] = reasons.get(why, 0) + 1

    candidates = []
    usage = node_usage(store, pod["metadata"].get("uid"))
    for node in nodes:
        name = node["metadata"]["name"]
        labels = node["metadata"].get("labels") or {}
        if name in exclude_nodes:
            note("node(s) were excluded (migration source)")
            continue
        if (node.get("spec") or {}).get("unschedulable"):
            note("node(s) were unschedulable")
            continue
        if not node_ready(node):
            note("node(s) had untolerated taint {node.kubernetes.io/not-ready: }")
            continue
        if any(labels.get(k) != v for k, v in selector.items()):
            note("node(s) didn't match Pod's node affinity/selector")
            continue
        alloc = (node.get("status") or {}).get("allocatable") or {}
        used_cpu, used_mem = usage.get(name, (0.0, 0.0))
        if used_cpu + cpu > quantity.parse(alloc.get("cpu")) + 1e-9:
            note("Insufficient cpu")
            continue
        if used_mem + mem > quantity.parse(alloc.get("memory")):
            note("Insufficient memory")
            continue
        candidates.append((used_cpu / max(quantity.parse(alloc.get("cpu")), 1e-9), name))
    if candidates:
        return sorted(candidates)[0][1], None   # least allocated first, like the default score
    detail = ", ".join(f"{n} {why}" for why, n in sorted(reasons.items()))
    return None, f"0/{len(nodes)} nodes are available: {detail or 'no nodes registered'}."
