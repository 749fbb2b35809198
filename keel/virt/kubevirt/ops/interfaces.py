"""Neutron port attach/detach as KubeVirt interface hotplug.

KubeVirt dropped the ``addinterface``/``removeinterface`` subresources
(v1.1): interfaces are hotplugged by editing the VirtualMachine template, and
with the ``LiveUpdate`` rollout strategy virt-controller carries the change
to the running VMI (migrating the guest itself when the binding needs it).

attach: add ``{name, bridge: {}, macAddress, model}`` to the template's
interfaces and ``{name, multus: {networkName: neutron-<net>}}`` to its
networks (the same names spawn uses); done when the VMI reports the
interface in ``status.interfaces`` with the port's MAC.  A VM condition
``RestartRequired`` means the change cannot go live: it is undone and
InterfaceAttachFailed raised.  A stopped guest only needs the template.

detach: mark the interface ``state: absent``; once the VMI no longer
reports it, remove it and its network from the template.
"""
import logging

from keel import exception
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt.spec import networks as networks_mod
from keel.virt.kubevirt.spec import vm as vm_spec

LOG = logging.getLogger(__name__)


def iface_name(vif):
    return "port-%s" % (vif.get("id") or "")[:8]


def _tspec(vm):
    return vm["spec"]["template"]["spec"]


def _devices(vm):
    return _tspec(vm).setdefault("domain", {}).setdefault("devices", {})


def _template_iface(vm, name):
    for iface in _devices(vm).get("interfaces") or []:
        if iface.get("name") == name:
            return iface
    return None


def _live(drv, instance, name):
    vmi = drv.guests.vmi(instance.uuid)
    for entry in ((vmi or {}).get("status") or {}).get("interfaces") or []:
        if entry.get("name") == name:
            return entry
    return None


def _running(drv, instance):
    return status.vmi_phase(drv.guests.vmi(instance.uuid)) == "Running"


def _restart_required(drv, instance):
    vm = drv.guests.vm(instance.uuid)
    cond = status.condition(vm, "RestartRequired")
    if cond is not None and cond.get("status") == "True":
        return cond.get("message") or "RestartRequired"
    return None


def _update(drv, instance, mutate):
    vm = drv.kube.update(kube.VM, instance.uuid, mutate)
    if vm is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    return vm


def attach(drv, instance, image_meta, vif):
    name = iface_name(vif)
    props = vm_spec.image_props(image_meta)
    model = networks_mod.nic_model(props)
    net_id = (vif.get("network") or {}).get("id")
    iface = {"name": name, "bridge": {}, "model": model}
    if vif.get("address"):
        iface["macAddress"] = vif["address"]
    network = {"name": name, "multus": {
        "networkName": networks_mod.attachment_name(net_id)}}

    def add(vm):
        current = _template_iface(vm, name)
        if current is not None and current.get("state") != "absent":
            return None                 # attached already (a retry)
        devices = _devices(vm)
        devices["interfaces"] = [i for i in devices.get("interfaces") or []
                                 if i.get("name") != name] + [iface]
        spec = _tspec(vm)
        spec["networks"] = [n for n in spec.get("networks") or []
                            if n.get("name") != name] + [network]
        return vm
    if _running(drv, instance) and _restart_required(drv, instance):
        # KubeVirt applies no live update while a restart is pending.
        LOG.warning("Cannot hotplug port %s into %s: %s", vif.get("id"),
                    instance.uuid, _restart_required(drv, instance))
        raise exception.InterfaceAttachFailed(instance_uuid=instance.uuid)
    _update(drv, instance, add)
    if not _running(drv, instance):
        return
    mac = vif.get("address")

    def outcome():
        live = _live(drv, instance, name)
        if live is not None and (not mac or live.get("mac") == mac):
            return ("ok", None)
        why = _restart_required(drv, instance)
        if why:
            return ("failed", why)
        if not _running(drv, instance):
            return ("failed", "the guest stopped")
        return None
    timeout = drv.conf.kubevirt.power_timeout
    result = drv.guests.wait(outcome, timeout)
    if result is not None and result[0] == "ok":
        return
    reason = result[1] if result else "not live after %ss" % timeout
    LOG.warning("Attaching port %s to %s failed: %s", vif.get("id"),
                instance.uuid, reason)
    _drop(drv, instance, name)
    # With the template back as it was, KubeVirt clears RestartRequired;
    # a later attach must not mistake the stale condition for its own.
    drv.guests.wait(lambda: not _restart_required(drv, instance),
                    drv.conf.kubevirt.power_timeout)
    raise exception.InterfaceAttachFailed(instance_uuid=instance.uuid)


def _drop(drv, instance, name):
    """Remove the interface and its network from the template."""
    def drop(vm):
        if _template_iface(vm, name) is None:
            return None
        devices = _devices(vm)
        devices["interfaces"] = [i for i in devices.get("interfaces") or []
                                 if i.get("name") != name]
        spec = _tspec(vm)
        spec["networks"] = [n for n in spec.get("networks") or []
                            if n.get("name") != name]
        return vm
    _update(drv, instance, drop)


def detach(drv, instance, vif):
    name = iface_name(vif)
    vm = drv.guests.vm(instance.uuid)
    if vm is None:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    if _template_iface(vm, name) is None:
        LOG.info("Port %s is not attached to %s", vif.get("id"),
                 instance.uuid)
        return
    if _running(drv, instance) and _live(drv, instance, name) is not None:
        def absent(obj):
            iface = _template_iface(obj, name)
            if iface is None or iface.get("state") == "absent":
                return None
            iface["state"] = "absent"
            return obj
        _update(drv, instance, absent)

        def unplugged():
            if _live(drv, instance, name) is None:
                return "ok"
            return "failed" if _restart_required(drv, instance) else None
        if drv.guests.wait(unplugged, drv.conf.kubevirt.power_timeout) != \
                "ok":
            raise exception.InterfaceDetachFailed(instance_uuid=instance.uuid)
    _drop(drv, instance, name)
