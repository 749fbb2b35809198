"""rescue / unrescue: boot from a rescue disk with the root disk second.

rescue: stop the guest; keep the template's volumes, disks and DataVolume
templates in an annotation; add a ``rescue`` disk first in boot order (a
DataVolume cloned from the rescue image's golden PVC, or its containerDisk
for images so marked; ``hw_rescue_bus``/``hw_rescue_device`` pick bus and
cdrom) with the original root second; start.  unrescue: stop, restore the
saved template, delete the rescue DataVolume, start.

A rescued guest runs, so its power state is RUNNING (Nova's vm_state says
RESCUED); the annotation is what survives a compute restart.
"""
import json
import logging

from keel import exception
from keel.virt.kubevirt import kube
from keel.virt.kubevirt.ops import build
from keel.virt.kubevirt.ops import power
from keel.virt.kubevirt.spec import disks as disks_mod
from keel.virt.kubevirt.spec import field
from keel.virt.kubevirt.spec import image_prop
from keel.virt.kubevirt.spec import vm as vm_spec

LOG = logging.getLogger(__name__)

RESCUE_ANNOTATION = "keel.openstack.org/unrescue"
RESCUE = "rescue"


def rescue_dv_name(instance):
    return "%s-rescue" % instance.uuid


def in_rescue(vm):
    return RESCUE_ANNOTATION in (((vm or {}).get("metadata") or {})
                                 .get("annotations") or {})


def _image_id(image_meta, instance):
    if isinstance(image_meta, dict):
        return image_meta.get("id") or instance.image_ref
    return field(image_meta, "id", None) or instance.image_ref


def _rescue_disk(drv, instance, image_meta):
    """``(dataVolumeTemplate or None, volume, disk)`` of the rescue disk."""
    props = vm_spec.image_props(image_meta)
    bus = image_prop(props, "hw_rescue_bus") or \
        image_prop(props, "hw_disk_bus") or "virtio"
    if bus not in ("virtio", "scsi", "sata", "usb"):
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid,
            reason="hw_rescue_bus=%s cannot be expressed" % bus)
    device = image_prop(props, "hw_rescue_device") or "disk"
    if device not in ("disk", "cdrom"):
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid,
            reason="hw_rescue_device=%s cannot be expressed" % device)
    disk = {"name": RESCUE, device: {"bus": "sata" if device == "cdrom"
                                     and bus == "virtio" else bus},
            "bootOrder": 1}
    ref = (props or {}).get(disks_mod.CONTAINER_DISK_PROPERTY) if \
        isinstance(props, dict) else None
    if ref:
        return None, {"name": RESCUE, "containerDisk": {"image": ref}}, disk
    image_id = _image_id(image_meta, instance)
    opts = drv.conf.kubevirt
    template = {"metadata": {"name": rescue_dv_name(instance)},
                "spec": {"source": {"pvc": {
                             "namespace": drv.kube.image_namespace,
                             "name": disks_mod.golden_name(image_id)}},
                         "storage": disks_mod._storage(
                             "%dGi" % disks_mod.image_size_gib(
                                 image_meta, instance.flavor), opts)}}
    volume = {"name": RESCUE,
              "dataVolume": {"name": rescue_dv_name(instance)}}
    return template, volume, disk


def rescue(drv, context, instance, image_meta):
    vm = drv.guests.vm(instance.uuid)
    if vm is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    if in_rescue(vm):
        raise exception.InstanceNotRescuable(
            instance_id=instance.uuid, reason="it is already in rescue")
    template, volume, disk = _rescue_disk(drv, instance, image_meta)
    if template is not None:
        build.ensure_image(drv, context, instance, image_meta,
                           image_id=_image_id(image_meta, instance))
    power.power_off(drv, instance, 0)

    def to_rescue(obj):
        tspec = obj["spec"]["template"]["spec"]
        devices = tspec["domain"]["devices"]
        saved = {"volumes": tspec.get("volumes") or [],
                 "disks": devices.get("disks") or [],
                 "dataVolumeTemplates":
                     obj["spec"].get("dataVolumeTemplates") or []}
        obj["metadata"].setdefault("annotations", {})[RESCUE_ANNOTATION] = \
            json.dumps(saved, sort_keys=True)
        disks = []
        for d in saved["disks"]:
            d = dict(d)
            if d.get("name") == "root":
                d["bootOrder"] = 2
            disks.append(d)
        devices["disks"] = [disk] + disks
        tspec["volumes"] = [volume] + list(saved["volumes"])
        if template is not None:
            obj["spec"]["dataVolumeTemplates"] = \
                list(saved["dataVolumeTemplates"]) + [template]
        return obj
    drv.kube.update(kube.VM, instance.uuid, to_rescue)
    try:
        power.power_on(drv, instance)
    except Exception as exc:
        LOG.warning("Rescue boot of %s failed (%s); restoring its disks",
                    instance.uuid, exc)
        # A start still pending (its rescue disk failed) goes ahead with the
        # restored disks, so the guest comes back as it was.
        _restore(drv, instance)
        raise exception.InstanceRescueFailure(reason=str(exc)) from exc


def _restore(drv, instance):
    """Stop, put the saved template back, drop the rescue disk."""
    if drv.guests.vmi(instance.uuid) is not None:
        power.power_off(drv, instance, 0)

    def restore(obj):
        annotations = obj["metadata"].get("annotations") or {}
        if RESCUE_ANNOTATION not in annotations:
            return None
        saved = json.loads(annotations.pop(RESCUE_ANNOTATION))
        tspec = obj["spec"]["template"]["spec"]
        tspec["volumes"] = saved["volumes"]
        tspec["domain"]["devices"]["disks"] = saved["disks"]
        obj["spec"]["dataVolumeTemplates"] = saved["dataVolumeTemplates"]
        return obj
    drv.kube.update(kube.VM, instance.uuid, restore)
    drv.kube.delete(kube.DATAVOLUME, rescue_dv_name(instance),
                    propagation="Background")


def unrescue(drv, instance):
    vm = drv.guests.vm(instance.uuid)
    if vm is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    if not in_rescue(vm):
        LOG.info("Instance %s is not in rescue; nothing to undo",
                 instance.uuid)
        return
    try:
        _restore(drv, instance)
        power.power_on(drv, instance)
    except exception.NovaException as exc:
        raise exception.InstanceUnRescueFailure(reason=str(exc)) from exc
