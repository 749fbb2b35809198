"""Assisted volume snapshots on the compute host: the driver snapshots
(or merges away) the file of a volume the guest holds open. A driver
without it raises NotImplementedError (an expected failure of the cast,
as Nova's); a guest that went away meanwhile is only logged."""
from oslo_log import log as logging

from keel import exception

LOG = logging.getLogger(__name__)


def volume_snapshot_create(mgr, context, instance, volume_id, create_info):
    try:
        mgr.driver.volume_snapshot_create(context, instance, volume_id,
                                          create_info)
    except exception.InstanceNotRunning:
        LOG.debug("Instance disappeared during volume snapshot create",
                  instance=instance)


def volume_snapshot_delete(mgr, context, instance, volume_id, snapshot_id,
                           delete_info):
    try:
        mgr.driver.volume_snapshot_delete(context, instance, volume_id,
                                          snapshot_id, delete_info)
    except exception.InstanceNotRunning:
        LOG.debug("Instance disappeared during volume snapshot delete",
                  instance=instance)
