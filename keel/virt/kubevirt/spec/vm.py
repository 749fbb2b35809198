"""The VirtualMachine of one instance (and the Secrets it refers to)."""
from keel.virt.kubevirt.spec import cloudinit
from keel.virt.kubevirt.spec import disks as disks_mod
from keel.virt.kubevirt.spec import domain as domain_mod
from keel.virt.kubevirt.spec import field
from keel.virt.kubevirt.spec import labels as labels_mod
from keel.virt.kubevirt.spec import networks as networks_mod

HOSTNAME_LABEL = "kubernetes.io/hostname"


def image_props(image_meta):
    if image_meta is None:
        return None
    if isinstance(image_meta, dict):
        return image_meta.get("properties") or {}
    if image_meta.obj_attr_is_set("properties"):
        return image_meta.properties
    return None


def render_vm(instance, image_meta, network_info, host, node, opts,
              image_namespace):
    """The VirtualMachine body: named after the instance, runStrategy
    Manual (a guest that shuts itself down stays down, as under libvirt),
    pinned to ``node``.  Raises KubeVirtUnsupported for what cannot be
    expressed, before anything is created."""
    flavor = instance.flavor
    props = image_props(image_meta)
    bus = domain_mod.disk_bus(props)
    templates, volumes, disks = disks_mod.render_disks(
        instance, flavor, image_meta, bus, opts, image_namespace)
    volumes.append(cloudinit.volume(instance, network_info))
    disks.append({"name": "configdrive", "disk": {"bus": bus}})
    interfaces, networks = networks_mod.render_networks(
        network_info, props, opts.network_name)
    domain, _dedicated = domain_mod.render_domain(instance, flavor, props,
                                                  disks, interfaces)
    labels = labels_mod.instance_labels(instance.uuid, host, node)
    template_spec = {"domain": domain, "networks": networks,
                     "volumes": volumes,
                     "nodeSelector": {HOSTNAME_LABEL: node},
                     "terminationGracePeriodSeconds": 60}
    hostname = field(instance, "hostname", None)
    if hostname:
        template_spec["hostname"] = hostname[:63]
    creds = cloudinit.access_credentials(instance)
    if creds:
        template_spec["accessCredentials"] = creds
    return {
        "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
        "metadata": {"name": instance.uuid, "labels": labels,
                     "annotations": {
                         "keel.openstack.org/display-name":
                             field(instance, "display_name", None) or "",
                         "keel.openstack.org/flavor": flavor.name or ""}},
        "spec": {"runStrategy": "Manual",
                 "dataVolumeTemplates": templates,
                 "template": {"metadata": {"labels": dict(labels)},
                              "spec": template_spec}},
    }


def owned_by(body, vm):
    """Make ``body`` owned by the VM so deleting the VM collects it."""
    body["metadata"]["ownerReferences"] = [{
        "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
        "name": vm["metadata"]["name"], "uid": vm["metadata"]["uid"],
        "blockOwnerDeletion": False}]
    return body


def validate(flavor, image_meta):
    """Raise KubeVirtUnsupported (an Invalid: HTTP 400 naming the property)
    if a guest of ``flavor`` booted from ``image_meta`` cannot be expressed
    in KubeVirt.  Needs no instance and no cluster, so the API can call it
    when a server is created or resized."""
    props = image_props(image_meta)
    bus = domain_mod.disk_bus(props)
    interfaces, _networks = networks_mod.render_networks([], props, "default")
    probe = _Probe(flavor)
    domain_mod.render_domain(probe, flavor, props,
                             [{"name": "root", "disk": {"bus": bus}}],
                             interfaces)


class _Probe(object):
    """Stands in for the instance: only its uuid feeds the domain."""
    uuid = "00000000-0000-0000-0000-000000000000"

    def __init__(self, flavor):
        self.flavor = flavor
