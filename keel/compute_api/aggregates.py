"""Host aggregates (os-aggregates): API-database records, availability zone
rules, the scheduler's copy (fanout casts) and Placement's copy (every node
provider of a member host is in the aggregate of the same uuid).

Placement failures are logged and not returned to the caller, as Nova does:
``nova-manage placement sync_aggregates`` repairs the mirror later.
"""
import logging

from oslo_utils import timeutils

from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

AZ_KEY = "availability_zone"
ADD, DELETE, UPDATE, UPDATE_META = ("add", "delete", "update", "update_meta")
_INVALID = {
    ADD: exception.InvalidAggregateActionAdd,
    DELETE: exception.InvalidAggregateActionDelete,
    UPDATE: exception.InvalidAggregateActionUpdate,
    UPDATE_META: exception.InvalidAggregateActionUpdateMeta,
}


def _scheduler():
    from keel.scheduler import rpcapi as scheduler_rpcapi
    return scheduler_rpcapi.SchedulerAPI()


def _notify_scheduler(ctx, aggregate, deleted=False):
    # A cast the scheduler may miss (it re-reads aggregates periodically):
    # a messaging hiccup must not fail the API call.
    try:
        if deleted:
            _scheduler().delete_aggregate(ctx, aggregate)
        else:
            _scheduler().update_aggregates(ctx, [aggregate])
    except Exception:  # noqa: BLE001
        LOG.exception("Could not tell the schedulers about aggregate %s",
                      aggregate.id)


def get_all(ctx):
    return objects.AggregateList.get_all(ctx)


def get(ctx, aggregate_id):
    return objects.Aggregate.get_by_id(ctx, aggregate_id)


def get_by_host(ctx, host):
    return objects.AggregateList.get_by_host(ctx, host)


def create(ctx, name, availability_zone=None):
    aggregate = objects.Aggregate(context=ctx)
    aggregate.name = name
    if availability_zone:
        aggregate.metadata = {AZ_KEY: availability_zone}
    aggregate.create()
    _notify_scheduler(ctx, aggregate)
    return aggregate


def _raise(action, aggregate, reason):
    raise _INVALID[action](aggregate_id=aggregate.id, reason=reason)


def check_az_update(ctx, metadata, aggregate, hosts=None, action=ADD,
                    check_instances=False):
    """A host may be in one availability zone only, a zone needs a name,
    and a zone holding servers cannot be renamed under them."""
    if AZ_KEY not in metadata:
        return
    zone = metadata[AZ_KEY]
    if not zone:
        _raise(action, aggregate, "Aggregate %s does not support empty "
               "named availability zone" % aggregate.name)
    hosts = hosts or aggregate.hosts
    zoned = objects.AggregateList.get_by_metadata_key(ctx, AZ_KEY,
                                                      hosts=hosts)
    conflicting = [a.availability_zone for a in zoned
                   if a.availability_zone != zone and a.id != aggregate.id]
    if conflicting:
        _raise(action, aggregate, "One or more hosts already in "
               "availability zone(s) %s" % conflicting)
    if check_instances and hosts and aggregate.availability_zone != zone \
            and _hosts_have_instances(ctx, hosts):
        _raise(action, aggregate, "One or more hosts contain instances in "
               "this zone")


def _hosts_have_instances(ctx, hosts):
    from keel.db import cells as db_cells
    results = db_cells.scatter_gather_skip_cell0(
        ctx, objects.InstanceList.get_uuids_by_hosts, list(hosts))
    return any(isinstance(r, dict) and any(r.values())
               for r in results.values())


def update(ctx, aggregate_id, values):
    aggregate = objects.Aggregate.get_by_id(ctx, aggregate_id)
    values = dict(values)
    if "name" in values:
        aggregate.name = values.pop("name")
        aggregate.save()
    check_az_update(ctx, values, aggregate, action=UPDATE,
                    check_instances=True)
    if values:
        aggregate.update_metadata(values)
        aggregate.updated_at = timeutils.utcnow()
    _notify_scheduler(ctx, aggregate)
    return aggregate


def update_metadata(ctx, aggregate_id, metadata):
    aggregate = objects.Aggregate.get_by_id(ctx, aggregate_id)
    check_az_update(ctx, metadata, aggregate, action=UPDATE_META,
                    check_instances=True)
    aggregate.update_metadata(metadata)
    _notify_scheduler(ctx, aggregate)
    aggregate.updated_at = timeutils.utcnow()
    return aggregate


def delete(ctx, aggregate_id):
    aggregate = objects.Aggregate.get_by_id(ctx, aggregate_id)
    if aggregate.hosts:
        raise exception.InvalidAggregateActionDelete(
            aggregate_id=aggregate_id, reason="Host aggregate is not empty")
    aggregate.destroy()
    _notify_scheduler(ctx, aggregate, deleted=True)


def _compute_service(ctx, host):
    """(service, cell ctx) of a compute host; ComputeHostNotFound or
    HostMappingNotFound when there is none."""
    from keel.compute_api import host_api
    mapping = objects.HostMapping.get_by_host(ctx, host)
    cctxt = host_api._targeted(ctx, mapping.cell_mapping)
    service = objects.Service.get_by_compute_host(cctxt, host)
    if service.host != host:  # a case-insensitive database matched
        raise exception.ComputeHostNotFound(host=host)
    return service, cctxt


def add_host(ctx, aggregate_id, host):
    _service, cctxt = _compute_service(ctx, host)
    aggregate = objects.Aggregate.get_by_id(ctx, aggregate_id)
    check_az_update(ctx, aggregate.metadata, aggregate, hosts=[host])
    aggregate.add_host(host)
    _notify_scheduler(ctx, aggregate)
    mirror_membership(cctxt, aggregate.uuid, host, member=True)
    return aggregate


def remove_host(ctx, aggregate_id, host):
    _service, cctxt = _compute_service(ctx, host)
    aggregate = objects.Aggregate.get_by_id(ctx, aggregate_id)
    aggregate.delete_host(host)
    _notify_scheduler(ctx, aggregate)
    mirror_membership(cctxt, aggregate.uuid, host, member=False)
    return aggregate


def mirror_membership(cctxt, aggregate_uuid, host, member):
    """Put every node provider of ``host`` into (or out of) the Placement
    aggregate ``aggregate_uuid``; failures are logged only."""
    try:
        nodes = objects.ComputeNodeList.get_all_by_host(cctxt, host)
    except exception.ComputeHostNotFound:
        return
    for node in nodes:
        try:
            _set_membership(cctxt, node.uuid, aggregate_uuid, member)
        except Exception as exc:  # noqa: BLE001 - see module docstring
            LOG.warning("Could not %s provider %s %s Placement aggregate "
                        "%s: %s", "add" if member else "remove", node.uuid,
                        "to" if member else "from", aggregate_uuid, exc)


def _set_membership(cctxt, rp_uuid, aggregate_uuid, member):
    from keel.clients import placement as pl
    from keel.compute_api import host_api
    client = host_api.placement()
    for _attempt in range(4):
        have, generation = client.get_aggregates(cctxt, rp_uuid)
        wanted = set(have) | {aggregate_uuid} if member \
            else set(have) - {aggregate_uuid}
        if wanted == set(have):
            return
        try:
            client.put_aggregates(cctxt, rp_uuid, wanted, generation)
            return
        except pl.GenerationConflict:
            continue
    raise exception.ResourceProviderUpdateConflict(
        uuid=rp_uuid, generation=generation, error="aggregates")


def request_image_cache(ctx, aggregate_id, image_ids):
    """2.81: ask the conductor to pre-cache images on the members."""
    aggregate = objects.Aggregate.get_by_id(ctx, aggregate_id)
    from keel.conductor import rpcapi as conductor_rpcapi
    conductor_rpcapi.ComputeTaskAPI().cache_images(ctx, aggregate, image_ids)
    return aggregate
