"""Allocations left behind by deleted instances.

A delete that lost Placement half-way (it was down, the compute died)
soft-deletes nothing, so such leftovers are rare; but when a row is gone
and its allocation is not, the node's capacity leaks for ever. Each
refresh compares the node provider's consumers with this cell's deleted
instances: one Placement read and one query per node, whatever the number
of instances. Consumers with no row here (builds not yet in a cell,
migrations, other cells) are never touched.
"""
import logging

from keel import objects

LOG = logging.getLogger(__name__)


def remove_deleted_instances_allocations(context, reportclient, cn,
                                         consumers=None):
    """``consumers``: the node provider's allocations when the caller has
    just read them (the start-up recovery), so they are not read twice."""
    if consumers is None:
        try:
            consumers = reportclient.placement.get_provider_allocations(
                context, cn.uuid)
        except Exception as exc:  # noqa: BLE001 - next refresh tries again
            LOG.debug("Could not read allocations of %s: %s", cn.uuid, exc)
            return []
    if not consumers:
        return []
    deleted = objects.InstanceList.get_by_filters(
        context, {"uuid": sorted(consumers), "deleted": True},
        expected_attrs=[])
    removed = []
    for instance in deleted:
        LOG.info("Instance %s has been deleted but still holds allocations "
                 "against node %s; deleting them", instance.uuid,
                 cn.hypervisor_hostname)
        try:
            reportclient.delete_allocation_for_instance(
                context, instance.uuid, force=True)
            removed.append(instance.uuid)
        except Exception as exc:  # noqa: BLE001 - next refresh tries again
            LOG.warning("Could not delete allocations of deleted instance "
                        "%s: %s", instance.uuid, exc)
    return removed
