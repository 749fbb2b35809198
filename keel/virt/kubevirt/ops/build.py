"""spawn and destroy.

spawn: golden image (imported once per image), then the VirtualMachine
(its DataVolumes are templates the VM owns), the config drive Secret(s)
owned by the VM, then ``start``; the build is done when the watch shows the
VMI Running.  A guest that cannot come up raises: RescheduledException when
another node may do better (unschedulable here), InstanceDeployFailure
otherwise; either way what was created is deleted again.

destroy: delete the VM (foreground: KubeVirt and the garbage collector take
its VMI, DataVolumes and Secrets), delete what it owns by name as well (a
cluster without a garbage collector, or objects from an interrupted build)
and wait for the watch to see it gone.  Already gone is success.
"""
import logging

from keel import exception
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt.spec import cloudinit
from keel.virt.kubevirt.spec import disks
from keel.virt.kubevirt.spec import field
from keel.virt.kubevirt.spec import labels
from keel.virt.kubevirt.spec import vm as vm_spec

LOG = logging.getLogger(__name__)

_RESCHEDULE = ("ErrorUnschedulable",)


def _create_or_replace(client, kind, body, namespace=None):
    try:
        return client.create(kind, body, namespace)
    except kube.KubeError as err:
        if err.status != 409:
            raise

    def replace(current):
        fresh = dict(body)
        fresh["metadata"] = dict(body["metadata"],
                                 resourceVersion=current["metadata"]
                                 ["resourceVersion"])
        return fresh
    return client.update(kind, body["metadata"]["name"], replace, namespace)


def ensure_image(drv, context, instance, image_meta, image_id=None):
    """The golden PVC of the instance's image (or of ``image_id``: a rescue
    image), imported once; waits for the import (through the DataVolume
    watch)."""
    client, opts = drv.kube, drv.conf.kubevirt
    image_id = image_id or instance.image_ref
    name = disks.golden_name(image_id)
    ns = client.image_namespace
    cached = drv.guests.images.get(name)
    if cached is not None and (
            cached["metadata"].get("deletionTimestamp") or
            (cached.get("status") or {}).get("phase") == "Failed"):
        # A failed import (ours or another build's) is imported afresh.
        client.delete(kube.DATAVOLUME, name, ns)
        drv.guests.wait(lambda: drv.guests.images.get(name) is None,
                        opts.delete_timeout)
        cached = None
    if cached is None and client.get(kube.DATAVOLUME, name, ns) is None:
        token = field(context, "auth_token", None)
        _create_or_replace(client, kube.SECRET, disks.token_secret(
            image_id, token, drv.host), ns)
        url = opts.glance_image_url.format(image_id=image_id)
        try:
            client.create(kube.DATAVOLUME, disks.golden_datavolume(
                image_id, image_meta, instance.flavor, url, opts, drv.host),
                ns)
        except kube.KubeError as err:
            if err.status != 409:   # another build started the import
                raise

    def done():
        dv = drv.guests.images.get(name)
        phase = ((dv or {}).get("status") or {}).get("phase")
        return phase if phase in ("Succeeded", "Failed") else None
    phase = drv.guests.wait(done, opts.spawn_timeout)
    if phase == "Succeeded":
        return
    dv = drv.guests.images.get(name) or {}
    reason = status.build_error(None, [dv]) if phase else \
        "image import did not finish in %ss" % opts.spawn_timeout
    if phase == "Failed":
        # Let the next build import it again.
        client.delete(kube.DATAVOLUME, name, ns)
    raise exception.InstanceDeployFailure(instance_uuid=instance.uuid,
                                       reason="image %s: %s"
                                       % (image_id, reason))


def spawn(drv, context, instance, image_meta, network_info, power_on):
    client, opts = drv.kube, drv.conf.kubevirt
    node = drv.target_node(instance)
    body = vm_spec.render_vm(instance, image_meta, network_info, drv.host,
                             node, opts, client.image_namespace)
    if drv.inventory.cluster_mode:
        # Kubernetes places the guest anywhere in the cluster.
        body["spec"]["template"]["spec"].pop("nodeSelector", None)
    existing = drv.guests.vm(instance.uuid)     # the watch cache, no GET
    if existing is not None and \
            not existing["metadata"].get("deletionTimestamp"):
        raise exception.InstanceExists(name=instance.uuid)
    if existing is not None:
        # A reschedule back here while the old attempt is still going.
        _wait_gone(drv, instance.uuid, opts.delete_timeout)
    if disks.container_disk_image(image_meta, instance) is None:
        ensure_image(drv, context, instance, image_meta)
    try:
        vm = client.create(kube.VM, body)
    except kube.KubeError as err:
        if err.status == 409:
            raise exception.InstanceExists(name=instance.uuid) from err
        raise
    try:
        secret_labels = labels.instance_labels(instance.uuid, drv.host, node)
        secrets = [cloudinit.config_drive_secret(instance, network_info,
                                                 secret_labels),
                   cloudinit.keys_secret(instance, secret_labels)]
        for secret in secrets:
            if secret is not None:
                _create_or_replace(client, kube.SECRET,
                                   vm_spec.owned_by(secret, vm))
        if power_on:
            client.subresource("virtualmachines", instance.uuid, "start")
            wait_running(drv, instance, opts.spawn_timeout,
                         exception.InstanceDeployFailure)
    except Exception as exc:
        LOG.warning("Build of %s on %s failed; removing its objects",
                    instance.uuid, node)
        try:
            destroy(drv, instance)
        except Exception:  # noqa: BLE001 - the build error matters more
            LOG.exception("Clean-up of failed build %s failed",
                          instance.uuid)
        if isinstance(exc, kube.KubeError):
            # The fault recorded on the instance names the API's answer.
            raise exception.InstanceDeployFailure(
                instance_uuid=instance.uuid, reason=str(exc)) from exc
        raise


def wait_running(drv, instance, timeout, failure, old_uid=None):
    """Wait through the watch until the guest's VMI (a new one, when
    ``old_uid`` is given) runs; raise ``failure`` (or RescheduledException
    for an unschedulable build) if it cannot."""
    uuid = instance.uuid
    seen = []

    def outcome():
        vm, vmi = drv.guests.vm(uuid), drv.guests.vmi(uuid)
        if vm is None:
            # Our own create may not have reached the watch yet.
            return ("error", "the VirtualMachine was deleted") if seen \
                else None
        seen.append(True)
        fresh = vmi is not None and vmi["metadata"].get("uid") != old_uid
        if fresh and status.vmi_phase(vmi) == "Running":
            return ("ok", None)
        if fresh and status.vmi_phase(vmi) == "Failed":
            return ("error", "the guest failed: %s" % (
                (vmi.get("status") or {}).get("reason") or "unknown"))
        why = status.build_error(vm)
        if why and (fresh or vmi is None):
            return ("error", why)
        return None
    result = drv.guests.wait(outcome, timeout)
    if result is None:
        raise failure(instance_uuid=uuid,
                      reason="not running after %ss" % timeout)
    if result[0] == "error":
        if status.printable_status(drv.guests.vm(uuid)) in _RESCHEDULE:
            raise exception.RescheduledException(instance_uuid=uuid,
                                              reason=result[1])
        raise failure(instance_uuid=uuid, reason=result[1])


def _wait_gone(drv, uuid, timeout):
    return drv.guests.wait(
        lambda: drv.guests.vm(uuid) is None and drv.guests.vmi(uuid) is None,
        timeout)


def destroy(drv, instance):
    client = drv.kube
    uuid = instance.uuid
    client.delete(kube.VM, uuid)
    for name in (cloudinit.secret_name(instance),
                 cloudinit.keys_secret_name(instance)):
        client.delete(kube.SECRET, name)
    for suffix in ("root", "ephemeral0", "swap"):
        client.delete(kube.DATAVOLUME, "%s-%s" % (uuid, suffix))
    if not _wait_gone(drv, uuid, drv.conf.kubevirt.delete_timeout):
        # The node may be down (VMI stuck terminating); Kubernetes finishes
        # the deletion when it can, and the instance is deleted for Nova.
        LOG.warning("VirtualMachine %s still terminating after %ss", uuid,
                    drv.conf.kubevirt.delete_timeout)
