"""Resize and cold migration between nodes of the cluster.

The VirtualMachine stays the same object (one compute service per cluster,
every node a compute node), so Nova's source/destination halves become:

- migrate_disk_and_power_off: refuse shrinking disks, stop the guest, and
  keep the template's domain and node pinning in an annotation for a revert;
- finish_migration: re-render the domain from the new flavor (instance.flavor
  is the new one by then) keeping the template's disks and NICs, pin to the
  destination node, grow the root/ephemeral PVCs when the flavor grew (wait
  for ``status.capacity``), start if asked;
- confirm_migration: forget the annotation;
- finish_revert_migration: stop, restore the saved domain and pinning (a
  grown disk stays grown: PVCs cannot shrink), start if asked.

Moving to another node only works when the disks are reachable there (RWX
or network block storage); KubeVirt reports a pod it cannot place as
ErrorUnschedulable, which fails the start.  New ephemeral or swap disks a
bigger flavor asks for are not added (only existing ones grow).
"""
import json
import logging

from keel import exception
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt.ops import power
from keel.virt.kubevirt.ops import waiting
from keel.virt.kubevirt.spec import domain as domain_mod
from keel.virt.kubevirt.spec import field
from keel.virt.kubevirt.spec import labels
from keel.virt.kubevirt.spec import vm as vm_spec

LOG = logging.getLogger(__name__)

REVERT_ANNOTATION = "keel.openstack.org/resize-revert"
GIB = 1024 ** 3


def resizing(vm):
    return REVERT_ANNOTATION in (((vm or {}).get("metadata") or {})
                                 .get("annotations") or {})


def _gb(flavor, attr):
    return int(field(flavor, attr, 0) or 0)


def migrate_disk_and_power_off(drv, instance, flavor, timeout):
    old = instance.flavor
    for attr in ("root_gb", "ephemeral_gb"):
        if _gb(flavor, attr) < _gb(old, attr) and _gb(flavor, attr):
            raise exception.ResizeError(
                reason="Unable to resize disk down (%s %d -> %d GB)."
                % (attr, _gb(old, attr), _gb(flavor, attr)))
    vm_spec.validate(flavor, None)
    vm = drv.guests.vm(instance.uuid)
    if vm is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    power.power_off(drv, instance, timeout)

    def save(obj):
        annotations = obj["metadata"].setdefault("annotations", {})
        if REVERT_ANNOTATION in annotations:
            return None     # a retried resize keeps the first saved state
        tspec = obj["spec"]["template"]["spec"]
        annotations[REVERT_ANNOTATION] = json.dumps({
            "domain": tspec["domain"],
            "nodeSelector": tspec.get("nodeSelector"),
            "node": obj["metadata"].get("labels", {}).get(labels.NODE),
            "flavor": annotations.get("keel.openstack.org/flavor")},
            sort_keys=True)
        return obj
    drv.kube.update(kube.VM, instance.uuid, save)
    return json.dumps({})


def _pin(obj, node):
    if not node:
        return
    value = labels.label_value(node)
    obj["metadata"].setdefault("labels", {})[labels.NODE] = value
    template = obj["spec"]["template"]
    template.setdefault("metadata", {}).setdefault("labels", {})[
        labels.NODE] = value
    template["spec"]["nodeSelector"] = {vm_spec.HOSTNAME_LABEL: node}


def _grow(drv, instance, suffix, gib):
    """Grow ``<uuid>-<suffix>`` to ``gib`` GiB if smaller; the PVC name."""
    name = "%s-%s" % (instance.uuid, suffix)
    pvc = drv.kube.get(kube.PVC, name)
    if pvc is None or not gib:
        return None
    want = "%dGi" % gib
    have = (((pvc.get("spec") or {}).get("resources") or {})
            .get("requests") or {}).get("storage") or "0"
    if _bytes(have) >= gib * GIB:
        return None
    drv.kube.patch(kube.PVC, name, {"spec": {"resources": {"requests": {
        "storage": want}}}})
    return name


def _bytes(quantity):
    units = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40,
             "K": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12}
    for unit in sorted(units, key=len, reverse=True):
        if quantity.endswith(unit):
            return float(quantity[:-len(unit)]) * units[unit]
    return float(quantity or 0)


def _capacity_reached(gib):
    def check(pvc):
        cap = (((pvc or {}).get("status") or {}).get("capacity") or {}).get(
            "storage") or "0"
        return _bytes(cap) >= gib * GIB
    return check


def finish_migration(drv, migration, instance, image_meta, power_on):
    flavor = instance.flavor
    node = field(migration, "dest_node", None) or field(instance, "node")
    props = vm_spec.image_props(image_meta)

    def apply(obj):
        tspec = obj["spec"]["template"]["spec"]
        devices = tspec["domain"].get("devices") or {}
        domain, _dedicated = domain_mod.render_domain(
            instance, flavor, props, devices.get("disks") or [],
            devices.get("interfaces") or [])
        # Devices beyond disks and NICs (watchdog, ...) follow the flavor.
        tspec["domain"] = domain
        _pin(obj, node)
        obj["metadata"].setdefault("annotations", {})[
            "keel.openstack.org/flavor"] = flavor.name or ""
        for tmpl in obj["spec"].get("dataVolumeTemplates") or []:
            suffix = tmpl["metadata"]["name"][len(instance.uuid) + 1:]
            gib = {"root": _gb(flavor, "root_gb"),
                   "ephemeral0": _gb(flavor, "ephemeral_gb")}.get(suffix)
            requests = tmpl["spec"].get("storage", {}).get(
                "resources", {}).get("requests", {})
            if gib and _bytes(requests.get("storage", "0")) < gib * GIB:
                requests["storage"] = "%dGi" % gib
        return obj
    if drv.kube.update(kube.VM, instance.uuid, apply) is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    for suffix, gib in (("root", _gb(flavor, "root_gb")),
                        ("ephemeral0", _gb(flavor, "ephemeral_gb"))):
        name = _grow(drv, instance, suffix, gib)
        if name and not waiting.wait_for(drv.kube, kube.PVC, name,
                                         _capacity_reached(gib),
                                         drv.conf.kubevirt.power_timeout):
            raise exception.ResizeError(
                reason="volume %s did not grow to %d GiB" % (name, gib))
    if power_on:
        power.power_on(drv, instance)


def confirm_migration(drv, instance):
    def forget(obj):
        annotations = obj["metadata"].get("annotations") or {}
        if REVERT_ANNOTATION not in annotations:
            return None
        del annotations[REVERT_ANNOTATION]
        return obj
    drv.kube.update(kube.VM, instance.uuid, forget)


def finish_revert_migration(drv, instance, power_on):
    vm = drv.guests.vm(instance.uuid)
    if vm is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    if drv.guests.vmi(instance.uuid) is not None and \
            status.vmi_phase(drv.guests.vmi(instance.uuid)) not in (
                "Succeeded", "Failed"):
        power.power_off(drv, instance, 0)

    def restore(obj):
        annotations = obj["metadata"].get("annotations") or {}
        if REVERT_ANNOTATION not in annotations:
            return None
        saved = json.loads(annotations.pop(REVERT_ANNOTATION))
        tspec = obj["spec"]["template"]["spec"]
        devices = tspec["domain"].get("devices") or {}
        tspec["domain"] = saved["domain"]
        # Disks and NICs as they are now (a grown disk stays grown).
        tspec["domain"].setdefault("devices", {}).update(
            disks=devices.get("disks") or [],
            interfaces=devices.get("interfaces") or [])
        if saved.get("nodeSelector") is not None:
            tspec["nodeSelector"] = saved["nodeSelector"]
        if saved.get("node"):
            obj["metadata"].setdefault("labels", {})[labels.NODE] = \
                saved["node"]
            obj["spec"]["template"].setdefault("metadata", {}).setdefault(
                "labels", {})[labels.NODE] = saved["node"]
        if saved.get("flavor") is not None:
            annotations["keel.openstack.org/flavor"] = saved["flavor"]
        return obj
    if not resizing(vm):
        LOG.warning("No resize of %s to revert", instance.uuid)
    else:
        drv.kube.update(kube.VM, instance.uuid, restore)
    if power_on:
        power.power_on(drv, instance)
