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
    """Check, before anything is created, that KubeVirt can express a guest
    of ``flavor`` booted from ``image_meta``; the API calls this when a
    server is created, rebuilt or resized on a KubeVirt cloud.

    ``flavor``: a Flavor object or a dict with vcpus, memory_mb, root_gb,
    ephemeral_gb, swap and extra_specs (as the API holds it).
    ``image_meta``: an ImageMeta, Nova's image dict (properties nested under
    ``properties``, as keel.image.api returns it) or None (volume-backed or
    unknown image: only the flavor is checked).

    Raises ``KubeVirtUnsupported``, a ``keel.exception.Invalid``: HTTP 400
    whose ``format_message()`` names the flavor extra spec or image
    property at fault and why, e.g. "The KubeVirt driver cannot honour
    hw:numa_nodes=2: KubeVirt cannot split a guest into chosen NUMA nodes".
    Needs no instance, no cluster and no configuration.
    """
    if isinstance(flavor, dict):
        flavor = _FlavorView(flavor)
    props = image_props(image_meta)
    bus = domain_mod.disk_bus(props)
    interfaces, _networks = networks_mod.render_networks([], props, "default")
    probe = _Probe(flavor)
    domain_mod.render_domain(probe, flavor, props,
                             [{"name": "root", "disk": {"bus": bus}}],
                             interfaces)


class _FlavorView(object):
    """Attribute access over a flavor dict (the renderers read attributes)."""

    def __init__(self, values):
        self.__dict__.update(values)
        self.extra_specs = dict(values.get("extra_specs") or {})
        self.vcpus = int(values.get("vcpus") or 1)
        self.memory_mb = int(values.get("memory_mb") or values.get("ram")
                             or 0)


class _Probe(object):
    """Stands in for the instance: only its uuid feeds the domain."""
    uuid = "00000000-0000-0000-0000-000000000000"

    def __init__(self, flavor):
        self.flavor = flavor
