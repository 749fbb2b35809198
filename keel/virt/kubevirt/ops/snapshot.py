"""snapshot: VirtualMachineSnapshot + VirtualMachineExport streamed into the
image service.

Nova's contract: ``update_task_state(task_state=IMAGE_PENDING_UPLOAD)``
while the guest's disks are captured, then ``IMAGE_UPLOADING`` (expected
IMAGE_PENDING_UPLOAD) while the bytes go to the image, whose record the
API already created (queued).

1. a Secret holding a fresh export token, then a VirtualMachineSnapshot of
   the VM (online: KubeVirt freezes the guest file systems through the
   agent); wait (watch) for ``status.readyToUse`` or ``phase=Failed``;
2. a VirtualMachineExport of that snapshot using our token; wait for
   ``phase=Ready``;
3. stream the root volume's raw link (``links.external`` when the cluster
   publishes one, else ``links.internal``) with the ``x-kubevirt-export-
   token`` header into ``image_api.update(..., data=<iterator>)`` as a raw,
   bare image;
4. always delete the export, the snapshot (its content goes with it) and
   the token Secret.

A containerDisk root has no PVC and cannot be snapshotted.
"""
import base64
import logging
import secrets

from keel import exception
from keel.virt.kubevirt import errors
from keel.virt.kubevirt import kube
from keel.virt.kubevirt.ops import waiting
from keel.virt.kubevirt.spec import disks as disks_mod
from keel.virt.kubevirt.spec import field
from keel.virt.kubevirt.spec import labels

LOG = logging.getLogger(__name__)

IMAGE_PENDING_UPLOAD = "image_pending_upload"
IMAGE_UPLOADING = "image_uploading"


def names(image_id):
    """(snapshot and export name, token Secret name)."""
    return "keel-snapshot-%s" % image_id, "keel-snapshot-%s-token" % image_id


def _root_claim(vm, instance):
    spec = ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}
    for volume in spec.get("volumes") or []:
        if volume.get("name") == "root":
            return (volume.get("dataVolume") or {}).get("name") or \
                (volume.get("persistentVolumeClaim") or {}).get("claimName")
    return None


def _link(export, claim):
    """``(url, ca_cert)`` of the claim's raw download, or (None, None)."""
    links = (export.get("status") or {}).get("links") or {}
    for side in ("external", "internal"):
        link = links.get(side) or {}
        for volume in link.get("volumes") or []:
            if volume.get("name") != claim:
                continue
            for fmt in volume.get("formats") or []:
                if fmt.get("format") == "raw":
                    return fmt.get("url"), link.get("cert") or None
    return None, None


def _snapshot_done(snap):
    st = (snap or {}).get("status") or {}
    if snap is None:
        return ("failed", "the snapshot was deleted")
    if st.get("readyToUse"):
        return ("ok", None)
    if st.get("phase") == "Failed":
        return ("failed", (st.get("error") or {}).get("message") or "failed")
    return None


def _export_ready(export):
    if export is None:
        return ("failed", "the export was deleted")
    if ((export.get("status") or {}).get("phase")) == "Ready":
        return ("ok", None)
    return None


def snapshot(drv, context, instance, image_id, update_task_state, image_api):
    client, opts = drv.kube, drv.conf.kubevirt
    uuid = instance.uuid
    vm = drv.guests.vm(uuid)
    if vm is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    claim = _root_claim(vm, instance)
    if not claim:
        raise errors.SnapshotFailed(
            instance_uuid=uuid, reason="its root disk is a containerDisk (%s), "
            "which has no volume to snapshot" % disks_mod.
            CONTAINER_DISK_PROPERTY)
    update_task_state(task_state=IMAGE_PENDING_UPLOAD)
    name, secret_name = names(image_id)
    obj_labels = labels.instance_labels(uuid, drv.host,
                                        field(instance, "node", ""))
    token = secrets.token_urlsafe(32)
    try:
        client.create(kube.SECRET, {
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": secret_name, "labels": obj_labels},
            "type": "Opaque",
            "data": {"token": base64.b64encode(token.encode()).decode()}})
        client.create(kube.SNAPSHOT, {
            "apiVersion": "snapshot.kubevirt.io/v1beta1",
            "kind": "VirtualMachineSnapshot",
            "metadata": {"name": name, "labels": obj_labels},
            "spec": {"source": {"apiGroup": "kubevirt.io",
                                "kind": "VirtualMachine", "name": uuid}}})
        result = waiting.wait_for(client, kube.SNAPSHOT, name, _snapshot_done,
                                  opts.spawn_timeout)
        if not result or result[0] != "ok":
            raise errors.SnapshotFailed(
                instance_uuid=uuid, reason=result[1] if result else
                "not ready after %ss" % opts.spawn_timeout)
        update_task_state(task_state=IMAGE_UPLOADING,
                          expected_state=IMAGE_PENDING_UPLOAD)
        client.create(kube.EXPORT, {
            "apiVersion": "export.kubevirt.io/v1beta1",
            "kind": "VirtualMachineExport",
            "metadata": {"name": name, "labels": obj_labels},
            "spec": {"tokenSecretRef": secret_name,
                     "source": {"apiGroup": "snapshot.kubevirt.io",
                                "kind": "VirtualMachineSnapshot",
                                "name": name}}})
        result = waiting.wait_for(client, kube.EXPORT, name, _export_ready,
                                  opts.spawn_timeout)
        if not result or result[0] != "ok":
            raise errors.SnapshotFailed(
                instance_uuid=uuid, reason=result[1] if result else
                "export not ready after %ss" % opts.spawn_timeout)
        url, cert = _link(client.get(kube.EXPORT, name), claim)
        if url is None:
            raise errors.SnapshotFailed(
                instance_uuid=uuid, reason="the export has no raw link for "
                                           "volume %s" % claim)
        _upload(client, context, image_api, image_id, instance, url, cert,
                token)
    except kube.KubeError as err:
        # The fault recorded on the instance names the cluster's answer.
        raise errors.SnapshotFailed(instance_uuid=uuid,
                                    reason=str(err)) from err
    finally:
        for kind, obj_name in ((kube.EXPORT, name), (kube.SNAPSHOT, name),
                               (kube.SECRET, secret_name)):
            try:
                client.delete(kind, obj_name, propagation="Background")
            except kube.KubeError as err:
                LOG.warning("Could not delete %s %s: %s", kind.plural,
                            obj_name, err)


def _upload(client, context, image_api, image_id, instance, url, cert,
            token):
    image = image_api.get(context, image_id)
    properties = {k: v for k, v in (image.get("properties") or {}).items()
                  if v is not None}
    # As Nova's snapshot metadata: where the image came from.
    properties.update(image_location="snapshot", image_state="available",
                      owner_id=field(instance, "project_id", None))
    metadata = {"name": image.get("name"), "disk_format": "raw",
                "container_format": "bare", "properties": properties}
    data = client.download(url, {"x-kubevirt-export-token": token}, cert)
    image_api.update(context, image_id, metadata, data=data,
                     purge_props=False)
