"""Cinder volumes as hotplugged disks (design note sections 1 and 5).

Each attachment is a static PersistentVolume describing the Cinder volume's
export (from the attachment's ``connection_info``), ``Retain`` so deleting it
never touches the data, and a PVC pre-bound to it (``spec.volumeName``, no
storage class).  The PVC is hotplugged with ``addvolume`` as a SCSI disk
whose serial is the volume id (so the guest's /dev/disk/by-id names it, as
with libvirt) and is ready when the VMI's ``volumeStatus`` says Ready.

connection_info -> PersistentVolume source:

=====================  ==================================================
driver_volume_type     PV source
=====================  ==================================================
``rbd``                ``csi`` (``[kubevirt]`` has no option yet, so the
                       ceph-csi driver ``rbd.csi.ceph.com``), handle =
                       ``data.name`` (pool/image), attributes pool,
                       imageName, clusterID = ``data.cluster_name``
``iscsi``              ``iscsi``: targetPortal, iqn, lun from
                       ``data.target_portal/target_iqn/target_lun``
``fibre_channel``      ``fc``: targetWWNs, lun
``nfs``                ``nfs``: server and path split from ``data.export``
``csi`` / ``kubernetes``  ``csi`` as given in ``data.driver``,
                       ``data.volume_handle``, ``data.volume_attributes``
=====================  ==================================================

Names: PV ``keel-volume-<volume id>`` (cluster-scoped), PVC and VM volume
``volume-<volume id>``.  The size is ``data.size_gb`` / ``data.volume_size``
when Cinder sends it, else 1 GiB: the claim only has to fit the PV for the
static binding, the guest sees the real device.
"""
import logging

from keel import exception
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt.ops import waiting
from keel.virt.kubevirt.spec import field
from keel.virt.kubevirt.spec import labels

LOG = logging.getLogger(__name__)
VOLUME_LABEL = "keel.openstack.org/volume-id"


def volume_id(connection_info):
    data = connection_info.get("data") or {}
    vid = connection_info.get("serial") or data.get("volume_id")
    if not vid:
        raise exception.VolumeAttachFailed(
            volume_id="unknown", reason="connection_info names no volume")
    return vid


def claim_name(vid):
    return "volume-%s" % vid


def pv_name(vid):
    return "keel-volume-%s" % vid


def _source(connection_info, vid):
    kind = connection_info.get("driver_volume_type")
    data = connection_info.get("data") or {}
    if kind == "rbd":
        name = data.get("name") or ""
        pool, _sep, image = name.partition("/")
        return {"csi": {"driver": "rbd.csi.ceph.com", "volumeHandle": name,
                        "volumeAttributes": {
                            "pool": pool, "imageName": image,
                            "clusterID": str(data.get("cluster_name")
                                             or "ceph")}}}
    if kind == "iscsi":
        return {"iscsi": {"targetPortal": data.get("target_portal"),
                          "iqn": data.get("target_iqn"),
                          "lun": int(data.get("target_lun") or 0)}}
    if kind == "fibre_channel":
        wwns = data.get("target_wwn") or []
        return {"fc": {"targetWWNs": wwns if isinstance(wwns, list)
                       else [wwns], "lun": int(data.get("target_lun") or 0)}}
    if kind == "nfs":
        server, _sep, path = (data.get("export") or "").partition(":")
        return {"nfs": {"server": server, "path": path or "/"}}
    if kind in ("csi", "kubernetes"):
        return {"csi": {"driver": data.get("driver"),
                        "volumeHandle": data.get("volume_handle") or vid,
                        "volumeAttributes": {
                            k: str(v) for k, v in
                            (data.get("volume_attributes") or {}).items()}}}
    raise exception.VolumeAttachFailed(
        volume_id=vid, reason="driver_volume_type %r cannot be expressed as a "
                              "Kubernetes PersistentVolume" % kind)


def _size(connection_info):
    data = connection_info.get("data") or {}
    gib = data.get("size_gb") or data.get("volume_size") or 1
    return "%dGi" % int(gib)


def render(instance, connection_info, host):
    """``(pv, pvc)`` bodies for one attachment."""
    vid = volume_id(connection_info)
    obj_labels = dict(labels.instance_labels(instance.uuid, host,
                                             field(instance, "node", "")),
                      **{VOLUME_LABEL: vid})
    # Network block devices reach every node: RWX lets the guest migrate.
    modes = ["ReadWriteMany"]
    if (connection_info.get("data") or {}).get("access_mode") == "ro":
        modes = ["ReadOnlyMany"]
    size = _size(connection_info)
    pv = {"apiVersion": "v1", "kind": "PersistentVolume",
          "metadata": {"name": pv_name(vid), "labels": obj_labels},
          "spec": dict(_source(connection_info, vid),
                       capacity={"storage": size}, accessModes=modes,
                       volumeMode="Block",
                       persistentVolumeReclaimPolicy="Retain",
                       storageClassName="")}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": claim_name(vid), "labels": obj_labels},
           "spec": {"volumeName": pv_name(vid), "storageClassName": "",
                    "accessModes": modes, "volumeMode": "Block",
                    "resources": {"requests": {"storage": size}}}}
    return pv, pvc


def _create(client, kind, body):
    try:
        client.create(kind, body)
    except kube.KubeError as err:
        if err.status != 409:       # a retried attach: already there
            raise


def _spec_volumes(vm):
    spec = (((vm or {}).get("spec") or {}).get("template") or {}).get(
        "spec") or {}
    return {v.get("name") for v in spec.get("volumes") or []}


def _volume_status(drv, instance, name):
    vmi = drv.guests.vmi(instance.uuid)
    for entry in ((vmi or {}).get("status") or {}).get("volumeStatus") or []:
        if entry.get("name") == name:
            return entry
    return None


def _running(drv, instance):
    vmi = drv.guests.vmi(instance.uuid)
    return vmi is not None and status.vmi_phase(vmi) == "Running"


def attach(drv, instance, connection_info, disk_bus=None):
    vid = volume_id(connection_info)
    name = claim_name(vid)
    pv, pvc = render(instance, connection_info, drv.host)
    client = drv.kube
    if drv.guests.vm(instance.uuid) is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    _create(client, kube.PV, pv)
    _create(client, kube.PVC, pvc)
    bus = disk_bus if disk_bus in ("scsi", "virtio", "sata") else "scsi"
    body = {"name": name,
            "disk": {"disk": {"bus": bus}, "serial": vid[:20]},
            "volumeSource": {"persistentVolumeClaim": {
                "claimName": name, "hotpluggable": True}}}
    if name not in _spec_volumes(drv.guests.vm(instance.uuid)):
        try:
            client.subresource("virtualmachines", instance.uuid, "addvolume",
                               body)
        except kube.KubeError as err:
            if err.status not in (400, 409) or "already exists" not in \
                    err.message:
                _release(drv, vid)
                raise exception.VolumeAttachFailed(volume_id=vid,
                                                   reason=err.message)
    timeout = drv.conf.kubevirt.power_timeout

    def outcome():
        if _running(drv, instance):
            entry = _volume_status(drv, instance, name) or {}
            if entry.get("phase") == "Ready":
                return ("ok", None)
            if entry.get("phase") == "Failed":
                return ("failed", entry.get("message") or "attach failed")
            return None
        # Stopped: attached once the VM's template holds it (next start).
        if name in _spec_volumes(drv.guests.vm(instance.uuid)):
            return ("ok", None)
        return None
    result = drv.guests.wait(outcome, timeout)
    if result is not None and result[0] == "ok":
        return
    reason = result[1] if result else "not attached after %ss" % timeout
    LOG.warning("Attaching volume %s to %s failed: %s", vid, instance.uuid,
                reason)
    try:
        _remove(drv, instance, name)
        _release(drv, vid)
    except Exception:  # noqa: BLE001 - the attach failure matters more
        LOG.exception("Rolling back the attachment of %s failed", vid)
    raise exception.VolumeAttachFailed(volume_id=vid, reason=reason)


def _remove(drv, instance, name):
    """removevolume and wait until the guest no longer has it."""
    if name in _spec_volumes(drv.guests.vm(instance.uuid)):
        try:
            drv.kube.subresource("virtualmachines", instance.uuid,
                                 "removevolume", {"name": name})
        except kube.KubeError as err:
            if err.status == 404:
                return
            if not (err.status == 409 and "already exists" in err.message):
                raise

    def gone():
        return name not in _spec_volumes(drv.guests.vm(instance.uuid)) and \
            _volume_status(drv, instance, name) is None
    return drv.guests.wait(gone, drv.conf.kubevirt.power_timeout)


def _release(drv, vid):
    """The claim and the volume object; Retain keeps Cinder's data."""
    drv.kube.delete(kube.PVC, claim_name(vid), propagation="Background")
    drv.kube.delete(kube.PV, pv_name(vid), propagation="Background")


def detach(drv, instance, connection_info):
    vid = volume_id(connection_info)
    name = claim_name(vid)
    if drv.guests.vm(instance.uuid) is not None and \
            not _remove(drv, instance, name):
        raise exception.VolumeDetachFailed(
            volume_id=vid, reason="still attached after %ss"
            % drv.conf.kubevirt.power_timeout)
    _release(drv, vid)
    # The claim must be gone before Cinder is told the volume is free.
    waiting.wait_for(drv.kube, kube.PVC, name, lambda obj: obj is None,
                     drv.conf.kubevirt.delete_timeout)


def connector(drv, instance, node=None):
    """What Cinder exports to: the Kubernetes node the guest runs on (or
    ``node``, a live migration's destination)."""
    vmi = drv.guests.vmi(instance.uuid)
    node = node or ((vmi or {}).get("status") or {}).get("nodeName") or \
        field(instance, "node", None) or drv.host
    return {"host": node, "ip": drv.conf.my_ip, "platform": "x86_64",
            "os_type": "linux", "multipath": False,
            "initiator": "iqn.2004-10.io.kubevirt:%s" % node}
