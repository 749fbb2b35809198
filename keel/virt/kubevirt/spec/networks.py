"""Guest NICs: the pod network (masquerade) for management, and one Multus
bridge interface per Neutron port carrying the port's MAC (design note
section 5).  The NetworkAttachmentDefinition of a Neutron network is
expected under the name ``neutron-<network id>``."""
from keel.virt.kubevirt.spec import KubeVirtUnsupported
from keel.virt.kubevirt.spec import image_prop

_MODELS = ("virtio", "e1000", "e1000e", "igb", "ne2k_pci", "pcnet",
           "rtl8139")


def nic_model(props):
    model = image_prop(props, "hw_vif_model", "virtio")
    model = {"ne2k-pci": "ne2k_pci"}.get(model, model)
    if model not in _MODELS:
        raise KubeVirtUnsupported(prop="hw_vif_model", value=model,
                                  reason="use one of %s" % ", ".join(_MODELS))
    return model


def attachment_name(network_id):
    return "neutron-%s" % network_id


def render_networks(network_info, props, pod_network_name):
    """``(interfaces, networks)`` of the VM template."""
    model = nic_model(props)
    interfaces = [{"name": pod_network_name, "masquerade": {},
                   "model": model}]
    networks = [{"name": pod_network_name, "pod": {}}]
    for vif in network_info or []:
        name = "port-%s" % (vif.get("id") or "")[:8]
        net_id = (vif.get("network") or {}).get("id")
        iface = {"name": name, "bridge": {}, "model": model}
        if vif.get("address"):
            iface["macAddress"] = vif["address"]
        interfaces.append(iface)
        networks.append({"name": name, "multus": {
            "networkName": attachment_name(net_id)}})
    return interfaces, networks
