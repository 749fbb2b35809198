"""Root, ephemeral and swap disks (design note section 4).

The root disk is a DataVolume cloned from a per-image golden PVC in the
image cache namespace, imported once from Glance over HTTP with the token
in a Secret (CDI's ``secretExtraHeaders``).  An image carrying the property
``kubevirt_container_disk=<OCI image>`` boots from that containerDisk
instead (ephemeral: reset on every start).  Ephemeral and swap disks are
blank DataVolumes so they survive stop/start, as Nova's do.
"""
import math

from keel.virt.kubevirt.spec import KubeVirtUnsupported
from keel.virt.kubevirt.spec import field
from keel.virt.kubevirt.spec import labels as labels_mod

CONTAINER_DISK_PROPERTY = "kubevirt_container_disk"
GIB = 1024 ** 3


def golden_name(image_id):
    return "keel-image-%s" % image_id


def token_secret_name(image_id):
    return "keel-image-%s-token" % image_id


def root_dv_name(instance):
    return "%s-root" % instance.uuid


def container_disk_image(image_meta, instance):
    """The containerDisk image reference, or None for a DataVolume root.

    The marker is a free-form Glance property, which ImageMetaProps does
    not keep, so it is read from the instance's image system metadata (Nova
    copies every image property there) or a raw image dict."""
    sysmeta = field(instance, "system_metadata", None) or {}
    ref = sysmeta.get("image_" + CONTAINER_DISK_PROPERTY)
    if not ref and isinstance(image_meta, dict):
        ref = (image_meta.get("properties") or {}).get(
            CONTAINER_DISK_PROPERTY)
    return ref or None


def _storage(size, opts):
    storage = {"resources": {"requests": {"storage": size}},
               "accessModes": list(opts.volume_access_modes)}
    if opts.storage_class:
        storage["storageClassName"] = opts.storage_class
    return storage


def image_size_gib(image_meta, flavor):
    """Size of the golden PVC: the image's virtual size (or file size) in
    whole GiB, at least 1, never more than the flavor's root disk needs."""
    size = 0
    for attr in ("virtual_size", "size"):
        value = _attr(image_meta, attr)
        if value:
            size = int(value)
            break
    gib = int(math.ceil(size / float(GIB))) if size else 0
    if not gib:
        gib = int(field(flavor, "root_gb", 0) or 0) or 1
    return max(gib, 1)


def _attr(image_meta, attr):
    if isinstance(image_meta, dict):
        return image_meta.get(attr)
    try:
        if image_meta is not None and image_meta.obj_attr_is_set(attr):
            return getattr(image_meta, attr)
    except AttributeError:
        return getattr(image_meta, attr, None)
    return None


def golden_datavolume(image_id, image_meta, flavor, url, opts, host_label):
    """The DataVolume that imports ``image_id`` once into the cache."""
    return {
        "apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolume",
        "metadata": {"name": golden_name(image_id),
                     "labels": labels_mod.image_labels(image_id, host_label),
                     # CDI would otherwise delete the DataVolume object
                     # after success; we look it up to know the import ran.
                     "annotations": {"cdi.kubevirt.io/storage.deleteAfter"
                                     "Completion": "false"}},
        "spec": {"source": {"http": {
                     "url": url,
                     "secretExtraHeaders": [token_secret_name(image_id)]}},
                 "storage": _storage("%dGi" % image_size_gib(image_meta,
                                                             flavor), opts)},
    }


def token_secret(image_id, token, host_label):
    """CDI reads each value of this Secret as one extra HTTP header line."""
    import base64
    header = "X-Auth-Token: %s" % (token or "")
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": token_secret_name(image_id),
                         "labels": labels_mod.image_labels(image_id,
                                                           host_label)},
            "type": "Opaque",
            "data": {"token": base64.b64encode(
                header.encode()).decode()}}


def render_disks(instance, flavor, image_meta, bus, opts, image_namespace):
    """``(dataVolumeTemplates, volumes, disks)`` for the VM."""
    templates, volumes, disks = [], [], []
    container = container_disk_image(image_meta, instance)
    image_id = field(instance, "image_ref", None)
    if container:
        volumes.append({"name": "root",
                        "containerDisk": {"image": container}})
    elif image_id:
        root_gb = int(field(flavor, "root_gb", 0) or 0) or \
            image_size_gib(image_meta, flavor)
        templates.append({
            "metadata": {"name": root_dv_name(instance)},
            "spec": {"source": {"pvc": {"namespace": image_namespace,
                                        "name": golden_name(image_id)}},
                     "storage": _storage("%dGi" % root_gb, opts)}})
        volumes.append({"name": "root",
                        "dataVolume": {"name": root_dv_name(instance)}})
    else:
        raise KubeVirtUnsupported(
            prop="image_ref", value="",
            reason="booting from a volume is not supported yet")
    disks.append({"name": "root", "disk": {"bus": bus}, "bootOrder": 1})
    ephemeral = int(field(flavor, "ephemeral_gb", 0) or 0)
    if ephemeral:
        _blank(templates, volumes, disks, instance, "ephemeral0",
               "%dGi" % ephemeral, bus, opts)
    swap = int(field(flavor, "swap", 0) or 0)
    if swap:
        _blank(templates, volumes, disks, instance, "swap", "%dMi" % swap,
               bus, opts)
    return templates, volumes, disks


def _blank(templates, volumes, disks, instance, name, size, bus, opts):
    dv = "%s-%s" % (instance.uuid, name)
    templates.append({"metadata": {"name": dv},
                      "spec": {"source": {"blank": {}},
                               "storage": _storage(size, opts)}})
    volumes.append({"name": name, "dataVolume": {"name": dv}})
    disks.append({"name": name, "disk": {"bus": bus}})
