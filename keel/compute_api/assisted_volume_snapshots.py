"""Assisted volume snapshots (Cinder asks Nova to snapshot a volume whose
file the hypervisor holds open): find the volume's block device mapping in
whichever cell has it, check the instance (a host, no task, launched) and
cast the compute's volume_snapshot_create / volume_snapshot_delete."""
from keel.compute import rpcapi as compute_rpcapi
from keel.compute_api import server_power
from keel import context as keel_context
from keel import exception
from keel import objects


def _instance_of_volume(ctx, volume_id):
    """(cell context, instance) of the volume's BDM, looked for cell by
    cell; VolumeBDMNotFound if no cell has it. The instance is read
    whatever its project (Nova joins it to the BDM row): the caller is a
    service, not the instance's owner."""
    for cell in objects.CellMappingList.get_all(ctx):
        with keel_context.target_cell(ctx, cell) as cctxt:
            try:
                bdm = objects.BlockDeviceMapping.get_by_volume(cctxt,
                                                               volume_id)
            except exception.NotFound:
                continue
            return cctxt, objects.Instance.get_by_uuid(cctxt.elevated(),
                                                       bdm.instance_uuid)
    raise exception.VolumeBDMNotFound(volume_id=volume_id)


def _checked_instance(ctx, volume_id, method):
    cctxt, instance = _instance_of_volume(ctx, volume_id)
    server_power.check_host(instance)
    server_power.check_state(instance, method)
    return cctxt, instance


def volume_snapshot_create(ctx, volume_id, create_info):
    cctxt, instance = _checked_instance(ctx, volume_id,
                                        "do_volume_snapshot_create")
    compute_rpcapi.ComputeAPI().volume_snapshot_create(
        cctxt, instance, volume_id, create_info)
    return {"snapshot": {"id": create_info.get("id"),
                         "volumeId": volume_id}}


def volume_snapshot_delete(ctx, volume_id, snapshot_id, delete_info):
    cctxt, instance = _checked_instance(ctx, volume_id,
                                        "do_volume_snapshot_delete")
    compute_rpcapi.ComputeAPI().volume_snapshot_delete(
        cctxt, instance, volume_id, snapshot_id, delete_info)
