"""os-hypervisors bodies: a compute node with its service, per microversion.

2.28 turns ``cpu_info`` into an object, 2.53 uses uuids for ids, 2.75
always shows ``servers`` when asked for, 2.88 drops the resource figures
and shows ``uptime`` in the detailed view.
"""
import json

from keel.compute_api import host_api

_STATS = ("vcpus", "memory_mb", "local_gb", "vcpus_used", "memory_mb_used",
          "local_gb_used", "free_ram_mb", "free_disk_gb", "current_workload",
          "running_vms", "disk_available_least")


def _cpu_info(req, node):
    if not req.version_matches("2.28"):
        return node.cpu_info
    if not node.cpu_info:
        return {}
    try:
        return json.loads(node.cpu_info)
    except ValueError:
        return {}


def hypervisor(req, node, service, detail, servers=None, with_servers=False,
               **extra):
    uuid_ids = req.version_matches("2.53")
    body = {
        "id": node.uuid if uuid_ids else node.id,
        "hypervisor_hostname": node.hypervisor_hostname,
        "state": "up" if host_api.is_up(service) else "down",
        "status": "disabled" if service.disabled else "enabled",
    }
    if detail:
        body["hypervisor_type"] = node.hypervisor_type
        body["hypervisor_version"] = node.hypervisor_version
        body["host_ip"] = None if node.host_ip is None else str(node.host_ip)
        body["service"] = {
            "id": service.uuid if uuid_ids else service.id,
            "host": node.host,
            "disabled_reason": service.disabled_reason,
        }
        if not req.version_matches("2.88"):
            for field in _STATS:
                body[field] = getattr(node, field)
            body["cpu_info"] = _cpu_info(req, node)
    if servers:
        body["servers"] = [{"name": s["name"], "uuid": s["uuid"]}
                           for s in servers]
    elif with_servers and req.version_matches("2.75"):
        body["servers"] = []
    body.update(extra)
    return body


def statistics(totals):
    return {"hypervisor_statistics": dict(totals)}
