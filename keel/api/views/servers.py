"""Server bodies by microversion: the list entry, the full server (show,
detail, update), and the minimal record of a server whose cell is down
(2.69+)."""
import hashlib

from oslo_utils import timeutils

from keel.api.views import links
from keel.compute_api import server_status
from keel.network import model as network_model

COLLECTION = "servers"


class Extras:
    """What a page of servers needs beyond the instances themselves, read
    once per request (no query per server)."""

    def __init__(self, show_extended=False, show_host_status=False,
                 show_extra_specs=False, volumes=None, server_groups=None,
                 pinned_az=None, host_status=None, scheduler_hints=None):
        self.show_extended = show_extended
        self.show_host_status = show_host_status
        self.show_extra_specs = show_extra_specs
        self.volumes = volumes or {}
        self.server_groups = server_groups or {}
        self.pinned_az = pinned_az or {}
        self.host_status = host_status or {}
        self.scheduler_hints = scheduler_hints or {}


def _time(value):
    if value is None:
        return None
    return timeutils.normalize_time(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def _usage_time(value):
    if value is None:
        return None
    return timeutils.normalize_time(value).isoformat()


def _get(inst, name, default=None):
    if name in inst.fields and inst.obj_attr_is_set(name):
        value = getattr(inst, name)
        return default if value is None else value
    return default


def host_id(inst):
    host = _get(inst, "host")
    if not host:
        return ""
    return hashlib.sha224(
        (str(inst.project_id) + str(host)).encode()).hexdigest()


def addresses(inst):
    """``{network label: [{version, addr, OS-EXT-IPS:type,
    OS-EXT-IPS-MAC:mac_addr}]}`` from the network info cache: per network,
    its fixed addresses then its floating ones (Nova's order)."""
    cache = _get(inst, "info_cache")
    network_info = network_model.NetworkInfo.hydrate(
        getattr(cache, "network_info", None) or [])
    networks = {}
    for vif in network_info:
        label = (vif.get("network") or {}).get("label")
        if label is None:
            continue
        fixed, floating = networks.setdefault(label, ([], []))
        fixed.extend((ip, vif) for ip in vif.fixed_ips())
        floating.extend((ip, vif) for ip in vif.floating_ips())
    out = {}
    for label, (fixed, floating) in networks.items():
        out[label] = [{"version": ip.get("version") or (
                           6 if ":" in ip["address"] else 4),
                       "addr": ip["address"],
                       "OS-EXT-IPS:type": ip.get("type") or "fixed",
                       "OS-EXT-IPS-MAC:mac_addr": vif.get("address")}
                      for ip, vif in fixed + floating if ip.get("address")]
    return out


def _image(req, inst, with_properties):
    image_ref = _get(inst, "image_ref")
    if not image_ref:
        return ""
    body = {"id": image_ref,
            "links": [{"rel": "bookmark",
                       "href": links.bookmark(req, "images", image_ref)}]}
    if with_properties:
        sysmeta = _get(inst, "system_metadata", {}) or {}
        body["properties"] = {
            k[len("image_"):]: v for k, v in sysmeta.items()
            if k.startswith("image_") and v is not None and
            k not in ("image_base_image_ref",)}
    return body


def _flavor(req, inst, extras):
    flavor = _get(inst, "flavor")
    if not req.version_matches("2.47"):
        flavor_id = flavor.flavorid if flavor is not None else ""
        return {"id": flavor_id,
                "links": [{"rel": "bookmark",
                           "href": links.bookmark(req, "flavors",
                                                  flavor_id)}]}
    if flavor is None:
        return {}
    body = {"vcpus": flavor.vcpus, "ram": flavor.memory_mb,
            "disk": flavor.root_gb, "ephemeral": flavor.ephemeral_gb,
            "swap": flavor.swap, "original_name": flavor.name}
    if extras.show_extra_specs:
        body["extra_specs"] = dict(flavor.extra_specs or {}) \
            if flavor.obj_attr_is_set("extra_specs") else {}
    return body


def basic(req, inst):
    """The list entry: id, name, links."""
    return {"id": inst.uuid, "name": _get(inst, "display_name", ""),
            "links": links.resource_links(req, COLLECTION, inst.uuid)}


def is_minimal(inst):
    return not inst.obj_attr_is_set("display_name")


def minimal(req, inst, detail=False, show=False):
    """A server in a down cell (2.69+): what the API database knows."""
    body = {"id": inst.uuid, "status": "UNKNOWN",
            "links": links.resource_links(req, COLLECTION, inst.uuid)}
    if detail or show:
        body["tenant_id"] = inst.project_id
        body["created"] = _time(_get(inst, "created_at"))
    if show:
        body["user_id"] = _get(inst, "user_id")
        body["OS-EXT-AZ:availability_zone"] = _get(
            inst, "availability_zone", "UNKNOWN")
        body["OS-EXT-STS:power_state"] = 0
        flavor = _get(inst, "flavor")
        body["flavor"] = {} if flavor is None else {
            "vcpus": flavor.vcpus, "ram": flavor.memory_mb,
            "disk": flavor.root_gb, "ephemeral": flavor.ephemeral_gb,
            "swap": flavor.swap, "original_name": flavor.name} \
            if req.version_matches("2.47") else \
            {"id": flavor.flavorid, "links": [{
                "rel": "bookmark",
                "href": links.bookmark(req, "flavors", flavor.flavorid)}]}
        body["image"] = _image(req, inst, False)
        if req.version_matches("2.71"):
            body["server_groups"] = []
    return body


def _fault(req, inst, status):
    fault = _get(inst, "fault")
    if fault is None or status not in ("ERROR", "DELETED"):
        return None
    body = {"code": fault.code, "created": _time(fault.created_at),
            "message": fault.message}
    if fault.details and (req.context.is_admin or fault.code != 500):
        body["details"] = fault.details
    return body


def server(req, inst, extras, for_show=False):
    """The full server body (detail, show, update and rebuild answers)."""
    status = server_status.server_status(inst)
    body = basic(req, inst)
    body.update({
        "status": status,
        "tenant_id": inst.project_id,
        "user_id": _get(inst, "user_id"),
        "metadata": dict(_get(inst, "metadata", {}) or {}),
        "hostId": host_id(inst),
        "image": _image(req, inst, req.version_matches("2.98")),
        "flavor": _flavor(req, inst, extras),
        "created": _time(_get(inst, "created_at")),
        "updated": _time(_get(inst, "updated_at")),
        "addresses": addresses(inst),
        "accessIPv4": str(_get(inst, "access_ip_v4", "") or ""),
        "accessIPv6": str(_get(inst, "access_ip_v6", "") or ""),
        "OS-DCF:diskConfig": "AUTO" if _get(inst, "auto_disk_config")
        else "MANUAL",
        "OS-EXT-AZ:availability_zone": _get(inst, "availability_zone", ""),
        "config_drive": _get(inst, "config_drive", ""),
        "key_name": _get(inst, "key_name"),
        "OS-EXT-STS:task_state": _get(inst, "task_state"),
        "OS-EXT-STS:vm_state": _get(inst, "vm_state"),
        "OS-EXT-STS:power_state": _get(inst, "power_state", 0),
        "OS-SRV-USG:launched_at": _usage_time(_get(inst, "launched_at")),
        "OS-SRV-USG:terminated_at": _usage_time(_get(inst,
                                                     "terminated_at")),
        "os-extended-volumes:volumes_attached": [
            dict(v) if req.version_matches("2.3") else {"id": v["id"]}
            for v in extras.volumes.get(inst.uuid, [])],
    })
    if status in server_status.PROGRESS_STATUSES:
        body["progress"] = _get(inst, "progress", 0)
    groups = _get(inst, "security_groups")
    names = sorted({g.name for g in groups}) if groups else ["default"]
    body["security_groups"] = [{"name": n} for n in names]
    fault = _fault(req, inst, status)
    if fault is not None:
        body["fault"] = fault
    if extras.show_extended:
        body.update({
            "OS-EXT-SRV-ATTR:host": _get(inst, "host"),
            "OS-EXT-SRV-ATTR:hypervisor_hostname": _get(inst, "node"),
            "OS-EXT-SRV-ATTR:instance_name": _instance_name(inst),
        })
        if req.version_matches("2.3"):
            body.update({
                "OS-EXT-SRV-ATTR:reservation_id": _get(inst,
                                                       "reservation_id"),
                "OS-EXT-SRV-ATTR:launch_index": _get(inst, "launch_index"),
                "OS-EXT-SRV-ATTR:kernel_id": _get(inst, "kernel_id", ""),
                "OS-EXT-SRV-ATTR:ramdisk_id": _get(inst, "ramdisk_id", ""),
                "OS-EXT-SRV-ATTR:hostname": _get(inst, "hostname"),
                "OS-EXT-SRV-ATTR:root_device_name": _get(
                    inst, "root_device_name"),
                "OS-EXT-SRV-ATTR:user_data": _get(inst, "user_data"),
            })
    if req.version_matches("2.90"):
        body["OS-EXT-SRV-ATTR:hostname"] = _get(inst, "hostname")
    if req.version_matches("2.9"):
        body["locked"] = bool(_get(inst, "locked", False))
    if req.version_matches("2.73"):
        body["locked_reason"] = (_get(inst, "system_metadata", {}) or
                                 {}).get("locked_reason")
    if req.version_matches("2.16") and extras.show_host_status:
        body["host_status"] = extras.host_status.get(inst.uuid, "")
    if req.version_matches("2.19"):
        body["description"] = _get(inst, "display_description")
    if req.version_matches("2.26"):
        tags = _get(inst, "tags")
        body["tags"] = [t.tag for t in tags] if tags else []
    if req.version_matches("2.63"):
        certs = _get(inst, "trusted_certs")
        body["trusted_image_certificates"] = list(certs.ids) \
            if certs is not None and certs.obj_attr_is_set("ids") else None
    if for_show and req.version_matches("2.71"):
        body["server_groups"] = extras.server_groups.get(inst.uuid, [])
    if req.version_matches("2.96"):
        body["pinned_availability_zone"] = extras.pinned_az.get(inst.uuid)
    if req.version_matches("2.100"):
        body["scheduler_hints"] = extras.scheduler_hints.get(inst.uuid, {})
    return body


def _instance_name(inst):
    try:
        return inst.name
    except Exception:  # an instance without an id yet (building)
        return ""


def page_links(req, instances, limit):
    """``servers_links`` with the next marker when the page is full."""
    if not instances or limit is None or len(instances) != limit:
        return None
    collection = "servers/detail" if req.path_info.rstrip("/").endswith(
        "/detail") else COLLECTION
    return [{"rel": "next", "href": links.next_link(
        req, collection, instances[-1].uuid)}]


# Before 2.75 the update answer left these out of the server body.
_NOT_IN_OLD_UPDATE = ("OS-EXT-AZ:", "OS-EXT-SRV-ATTR:", "OS-EXT-STS:",
                      "OS-SRV-USG:", "os-extended-volumes:")
_NOT_IN_OLD_UPDATE_KEYS = ("security_groups", "key_name", "config_drive",
                           "host_status")


def updated(req, inst, extras):
    """The ``PUT /servers/{id}`` answer: the full server from 2.75, a
    shorter body before."""
    body = server(req, inst, extras, for_show=req.version_matches("2.71"))
    if req.version_matches("2.75"):
        return body
    return {k: v for k, v in body.items()
            if not k.startswith(_NOT_IN_OLD_UPDATE) and
            k not in _NOT_IN_OLD_UPDATE_KEYS}
