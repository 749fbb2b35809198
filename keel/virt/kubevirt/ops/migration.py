"""Live migration through VirtualMachineInstanceMigration objects.

The destination is a Kubernetes node of the same cluster (so the same
compute service): the migration adds ``kubernetes.io/hostname=<dest>`` to
the target pod's node selector.  Progress comes from the VMI's
``status.migrationState`` through the VMI watch; abort deletes the
migration object.  Once the guest runs on the destination, the VM template
is re-pinned there so a later restart stays on the node Nova accounts it to.

Cinder volumes need nothing from the driver: their static PV and the PVC
bound to it are cluster-wide and ReadWriteMany, so KubeVirt's target pod
mounts the same claim on the destination node.  The compute manager still
gives the destination its own Cinder attachment (as Nova), made with the
destination node's connector (``get_live_migration_volume_connector``) so
the export reaches that node.  The PV keeps the connection info of the
first attachment: a backend exporting a volume under a different target
per host would need the PV re-created, which a claim in use does not
allow (not handled).
"""
import logging

from keel import exception
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt.spec import labels
from keel.virt.kubevirt.spec import vm as vm_spec

LOG = logging.getLogger(__name__)

MIGRATION = kube.MIGRATION


def dest_node(migrate_data, dest):
    if isinstance(migrate_data, dict) and migrate_data.get("dest_node"):
        return migrate_data["dest_node"]
    return getattr(migrate_data, "dest_node", None) or dest


def check_destination(dst_compute_info, block_migration):
    info = dst_compute_info or {}
    node = info.get("hypervisor_hostname") if isinstance(info, dict) else \
        getattr(info, "hypervisor_hostname", None)
    return {"dest_node": node, "block_migration": block_migration}


def check_source(drv, instance, dest_check_data):
    """KubeVirt's own verdict: the VMI's LiveMigratable condition (RWX
    disks, a migratable network binding, ...)."""
    vmi = drv.guests.vmi(instance.uuid)
    if vmi is None or status.vmi_phase(vmi) != "Running":
        raise exception.MigrationPreCheckError(
            reason="instance %s is not running" % instance.uuid)
    cond = status.condition(vmi, "LiveMigratable")
    if cond is not None and cond.get("status") != "True":
        raise exception.MigrationPreCheckError(
            reason="%s: %s" % (cond.get("reason"), cond.get("message")))
    node = (vmi.get("status") or {}).get("nodeName")
    dest = (dest_check_data or {}).get("dest_node")
    if dest and dest == node:
        raise exception.MigrationPreCheckError(
            reason="instance %s already runs on %s" % (instance.uuid, node))
    return dest_check_data


def migrate(drv, context, instance, dest, post_method, recover_method,
            block_migration, migrate_data):
    node = dest_node(migrate_data, dest)
    body = {"apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachineInstanceMigration",
            "metadata": {"generateName": "%s-migration-" % instance.uuid,
                         "labels": labels.instance_labels(
                             instance.uuid, drv.host, node)},
            "spec": {"vmiName": instance.uuid}}
    if node:
        body["spec"]["addedNodeSelector"] = {vm_spec.HOSTNAME_LABEL: node}
    try:
        mig = drv.kube.create(MIGRATION, body)
    except kube.KubeError as err:
        LOG.error("Live migration of %s refused: %s", instance.uuid,
                  err.message)
        recover_method(context, instance, dest, migrate_data)
        return
    uid = mig["metadata"]["uid"]

    def outcome():
        vmi = drv.guests.vmi(instance.uuid)
        state = ((vmi or {}).get("status") or {}).get("migrationState") or {}
        if vmi is None:
            return "failed"
        if state.get("migrationUid") != uid:
            return None
        if state.get("failed") or state.get("abortStatus") == "Succeeded":
            return "failed"
        if state.get("completed"):
            return "completed"
        return None
    result = drv.guests.wait(outcome, drv.conf.kubevirt.migration_timeout)
    if result != "completed":
        if result is None:
            LOG.error("Live migration of %s timed out; aborting",
                      instance.uuid)
            drv.kube.delete(MIGRATION, mig["metadata"]["name"])
        recover_method(context, instance, dest, migrate_data)
        return
    vmi = drv.guests.vmi(instance.uuid)
    _repin(drv, instance, (vmi.get("status") or {}).get("nodeName") or node)
    post_method(context, instance, dest, block_migration, migrate_data)


def _repin(drv, instance, node):
    value = labels.label_value(node)
    drv.kube.patch(kube.VM, instance.uuid, {
        "metadata": {"labels": {labels.NODE: value}},
        "spec": {"template": {
            "metadata": {"labels": {labels.NODE: value}},
            "spec": {"nodeSelector": {vm_spec.HOSTNAME_LABEL: node}}}}})

    def seen():
        vm = drv.guests.vm(instance.uuid) or {}
        return (vm.get("metadata", {}).get("labels") or {}).get(
            labels.NODE) == value
    # The watch cache must show the move before the post-migration steps
    # update both nodes' resources from it.
    drv.guests.wait(seen, drv.conf.kubevirt.power_timeout)


def abort(drv, instance):
    """Delete the guest's unfinished migrations (KubeVirt aborts them)."""
    items, _rv = drv.kube.list(
        MIGRATION, label_selector="%s=%s" % (labels.INSTANCE, instance.uuid))
    for mig in items:
        phase = (mig.get("status") or {}).get("phase")
        if phase not in ("Succeeded", "Failed"):
            drv.kube.delete(MIGRATION, mig["metadata"]["name"])
