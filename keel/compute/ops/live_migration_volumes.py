"""Cinder attachments of a live migration (Nova's volume part of
pre_live_migration, _post_live_migration and _rollback_live_migration).

The guest keeps its volumes while it moves, so each volume BDM on the 3.44
attachment flow gets a second attachment, for the destination host:

* destination, pre_live_migration: ``attachment_create`` with the
  destination's connector (Cinder updates it with the connector itself;
  it allows a second attachment of a non-multiattach volume to the same
  instance for this), the BDM switched to it with the new connection
  info, and once the driver's preparation succeeded the attachments are
  completed. A failure there deletes the new attachments and puts the
  BDMs back before the error goes to the source.
* source, success: the source attachments (read before the migration
  began) are deleted; the BDMs already name the destination's.
* source, rollback: unless pre_live_migration failed (the destination
  then undid its part itself), the destination is first asked to
  disconnect each volume and delete its attachment
  (``remove_volume_connection`` with ``delete_attachment=True``, as Nova
  since RPC 6.3: the host that was connected deletes the attachment only
  after disconnecting, while the BDMs still hold its connection info);
  then every BDM whose attachment differs from the source's gets the
  source's attachment and connection info back. The source deletes a
  destination attachment itself only where the destination did not (it
  failed or never answered, or an older one was not asked to).
"""
from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.compute.ops import volumes
from keel import objects

LOG = logging.getLogger(__name__)


def volume_bdms(context, instance):
    """The instance's volume BDMs (attachments to carry along)."""
    return [b for b in objects.BlockDeviceMappingList.get_by_instance_uuid(
        context, instance.uuid) if volumes.is_volume(b) and b.volume_id]


def _attached(bdms):
    return [b for b in bdms if b.attachment_id]


def block_device_info(bdms):
    """The driver's view of the volumes (connection info as saved)."""
    mapping = [volumes.driver_bdm(
        b, jsonutils.loads(b.connection_info) if b.connection_info else {})
        for b in bdms]
    return {"block_device_mapping": mapping} if mapping else None


def _connector(driver, instance, migrate_data):
    # A driver whose one compute service spans several nodes (KubeVirt)
    # names the destination node from the migration's data.
    hook = getattr(driver, "get_live_migration_volume_connector", None)
    if hook is not None:
        return hook(instance, migrate_data)
    return driver.get_volume_connector(instance)


def create_destination_attachments(mgr, context, instance, bdms,
                                   migrate_data=None):
    """Destination side: a new attachment per volume for this host, the
    BDMs switched to it. Returns what undo_destination_attachments needs
    (``{volume_id: (source attachment id, connection info)}``); on
    failure the new attachments go and the BDMs are restored."""
    attached = _attached(bdms)
    if not attached:
        return {}
    api = volumes.volume_api()
    if api is None:
        return {}
    previous = {}
    try:
        connector = _connector(mgr.driver, instance, migrate_data)
        for bdm in attached:
            attachment = api.attachment_create(
                context, bdm.volume_id, instance.uuid, connector=connector,
                mountpoint=bdm.device_name)
            previous[bdm.volume_id] = (bdm.attachment_id,
                                       bdm.connection_info)
            bdm.attachment_id = attachment["id"]
            bdm.connection_info = jsonutils.dumps(
                attachment["connection_info"])
            bdm.save()
    except Exception:
        undo_destination_attachments(context, bdms, previous)
        raise
    return previous


def undo_destination_attachments(context, bdms, previous):
    """Destination side: delete the attachments made for this host and
    point the BDMs at the source's again. ``previous``:
    ``{volume_id: (attachment id, connection info)}``."""
    api = volumes.volume_api()
    for bdm in bdms:
        if bdm.volume_id not in previous:
            continue
        old_id, old_info = previous[bdm.volume_id]
        _switch_back(api, context, bdm, old_id, old_info)


def complete_attachments(context, bdms):
    """Destination side: the volumes are connected here (after the
    driver's pre_live_migration)."""
    api = volumes.volume_api()
    if api is None:
        return
    for bdm in _attached(bdms):
        api.attachment_complete(context, bdm.attachment_id)


def delete_source_attachments(context, instance, source_bdms):
    """Source side, the guest runs on the destination: the source
    attachments go (the BDMs name the destination's)."""
    api = volumes.volume_api()
    if api is None:
        return
    for bdm in _attached(source_bdms):
        try:
            api.attachment_delete(context, bdm.attachment_id)
        except Exception:  # noqa: BLE001 - the guest has moved anyway
            LOG.exception("Could not delete the source attachment %s of "
                          "volume %s (instance %s)", bdm.attachment_id,
                          bdm.volume_id, instance.uuid)


def rollback_volumes(mgr, compute_rpc, context, instance, dest,
                     source_bdms, pre_live_migration=False):
    """Source side, the guest stayed: the destination disconnects the
    volumes (unless its failed pre_live_migration undid that itself), then
    the BDMs get the source's attachments back. Never raises: the
    rollback must still end the task."""
    if not source_bdms:
        return
    try:
        bdms = volume_bdms(context, instance)
        # A driver spanning several nodes with one service (KubeVirt)
        # migrates within this host: its "destination" connections are
        # the running guest's, which a detach would unplug.
        removed = ()
        if not pre_live_migration and dest != mgr.host:
            removed = remove_destination_connections(
                compute_rpc, context, instance, dest, bdms)
        restore_source_attachments(context, instance, source_bdms, bdms,
                                   deleted=removed)
    except Exception:  # noqa: BLE001 - see docstring
        LOG.exception("Could not roll back the volumes of %s",
                      instance.uuid)


def remove_destination_connections(compute_rpc, context, instance, dest,
                                   bdms):
    """Source side, the guest stayed: the destination disconnects the
    volumes its pre_live_migration connected and deletes its attachments.
    A failure there does not stop the rollback. Returns the attachment ids
    the destination deleted (none when it cannot be asked to: before 6.3
    the argument is dropped and the source deletes them)."""
    deletes = compute_rpc.can_send_version(context, "6.3")
    deleted = set()
    for bdm in bdms:
        try:
            compute_rpc.remove_volume_connection(context, instance,
                                                 bdm.volume_id, dest,
                                                 delete_attachment=True)
            if deletes and bdm.attachment_id:
                deleted.add(bdm.attachment_id)
        except Exception:  # noqa: BLE001 - the source state matters most
            LOG.warning("Ignoring exception while attempting to roll back "
                        "the connection of volume %s on host %s (instance "
                        "%s)", bdm.volume_id, dest, instance.uuid,
                        exc_info=True)
    return deleted


def restore_source_attachments(context, instance, source_bdms,
                               current=None, deleted=()):
    """Source side, the guest stayed: BDMs switched to a destination
    attachment get the source's back, the destination's is deleted unless
    it is in ``deleted`` (the destination deleted it already).
    ``current``: the instance's volume BDMs as they are now (read when
    not given)."""
    if not source_bdms:
        return
    api = volumes.volume_api()
    original = {b.volume_id: b for b in source_bdms}
    if current is None:
        current = volume_bdms(context, instance)
    for bdm in current:
        src = original.get(bdm.volume_id)
        if src is None or (bdm.attachment_id == src.attachment_id and
                           bdm.connection_info == src.connection_info):
            continue
        try:
            _switch_back(None if bdm.attachment_id in deleted else api,
                         context, bdm, src.attachment_id,
                         src.connection_info)
        except Exception:  # noqa: BLE001 - the rollback must finish
            LOG.exception("Could not restore the attachment of volume %s "
                          "(instance %s)", bdm.volume_id, instance.uuid)


def _switch_back(api, context, bdm, attachment_id, connection_info):
    if api is not None and bdm.attachment_id and \
            bdm.attachment_id != attachment_id:
        try:
            api.attachment_delete(context, bdm.attachment_id)
        except Exception:  # noqa: BLE001 - the BDM must be restored
            LOG.exception("Could not delete attachment %s of volume %s",
                          bdm.attachment_id, bdm.volume_id)
    bdm.attachment_id = attachment_id
    bdm.connection_info = connection_info
    bdm.save()
