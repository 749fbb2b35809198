"""Evacuation on the compute hosts (Nova's semantics).

On the destination (rebuild_instance with recreate=True, see rebuild.py):
``check`` makes sure the driver can evacuate, that no guest of the
instance is here already and finds where its disk is (shared storage or
not); ``move_here`` binds the instance's ports to this host and moves the
instance's host and node here;
``finish`` marks the migration done; ``fail`` marks it failed and drops
the destination's allocations.

On the source, when its compute service starts again
(``destroy_evacuated_instances``, Nova's _destroy_evacuated_instances):
the guests of instances evacuated away from it are destroyed (disks kept
when on shared storage), the instances' allocations on this host's nodes
removed, and the migrations completed.
"""
import copy

from oslo_log import log as logging

from keel.compute.ops import cleanup
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

_LEFT_BEHIND = ["accepted", "pre-migrating", "done"]


# -- destination --------------------------------------------------------------

def image_meta(instance):
    """The image the instance runs (evacuate does not change it)."""
    return objects.ImageMeta.from_instance(instance)


def scheduled_node(mgr, context, node):
    if node:
        return node
    if mgr.rt is not None:
        return mgr.rt.default_nodename()
    nodes = objects.ComputeNodeList.get_all_by_host(context, mgr.host)
    return nodes[0].hypervisor_hostname if nodes else None


def _instance_on_disk(driver, instance):
    check = getattr(driver, "instance_on_disk", None)
    return bool(check(instance)) if check is not None else False


def check(mgr, instance, on_shared_storage):
    """The driver can evacuate, no guest of the instance is here yet;
    returns whether the disk is on shared storage."""
    caps = getattr(mgr.driver, "capabilities", {}) or {}
    if not caps.get("supports_evacuate", False):
        raise exception.InstanceEvacuateNotSupported()
    if mgr.driver.instance_exists(instance):
        raise exception.InstanceExists(name=instance.uuid)
    on_disk = _instance_on_disk(mgr.driver, instance)
    if on_shared_storage is None:
        on_shared_storage = on_disk
    elif on_shared_storage != on_disk:
        raise exception.InvalidSharedStorage(
            "Invalid state of instance files on shared storage")
    if on_shared_storage:
        LOG.info("Disk of %s on shared storage, evacuating using the "
                 "existing disk", instance.uuid)
    elif instance.image_ref:
        LOG.info("Disk of %s not on shared storage, evacuating from image "
                 "'%s'", instance.uuid, instance.image_ref)
    else:
        LOG.info("Disk of %s on a volume, evacuating using the existing "
                 "volume", instance.uuid)
    return on_shared_storage


def move_here(mgr, context, instance, migration, node):
    """The instance's host and node are this host's (saved by the caller's
    next compare-and-swap), its ports bound here."""
    instance.host = mgr.host
    instance.node = node
    api = mgr.network_api
    setup = getattr(api, "setup_instance_network_on_host", None)
    if setup is not None:
        setup(context, instance, mgr.host, migration)


def finish(migration):
    if migration is not None:
        migration.status = "done"
        migration.save()


def fail(mgr, context, instance, migration, node):
    """A failed evacuation: the migration failed, this host's claim
    dropped (the instance keeps the source's)."""
    if migration is not None:
        try:
            migration.status = "failed"
            migration.save()
        except Exception:  # noqa: BLE001 - report the original failure
            LOG.exception("Could not mark migration %s failed",
                          migration.uuid)
    try:
        cn = objects.ComputeNode.get_by_host_and_nodename(context, mgr.host,
                                                          node)
        remove_node_allocations(mgr.placement_client, context,
                                instance.uuid, cn.uuid)
    except Exception:  # noqa: BLE001 - report the original failure
        LOG.exception("Could not remove the destination allocations of %s",
                      instance.uuid)


def remove_node_allocations(report, context, instance_uuid, node_uuid):
    """The consumer's allocations without those against ``node_uuid``;
    False when it had none there."""
    current = report.get_allocs_for_consumer(context, instance_uuid) or {}
    allocs = copy.deepcopy(current.get("allocations") or {})
    if node_uuid not in allocs:
        return False
    del allocs[node_uuid]
    if not allocs:
        return report.delete_allocation_for_instance(context, instance_uuid)
    project_id = current.get("project_id")
    user_id = current.get("user_id")
    if project_id is None or user_id is None:
        inst = objects.Instance.get_by_uuid(context, instance_uuid)
        project_id, user_id = inst.project_id, inst.user_id
    return report.put_allocations(context, instance_uuid, allocs,
                                  project_id, user_id,
                                  current.get("consumer_generation"))


# -- source, at start ---------------------------------------------------------

def destroy_evacuated_instances(mgr, context):
    """Clean up after evacuations away from this host; never raises (a
    compute must start). Returns the evacuated instance uuids."""
    try:
        return _destroy_evacuated_instances(mgr, context)
    except Exception:  # noqa: BLE001 - see docstring
        LOG.exception("Could not clean up evacuated instances of %s",
                      mgr.host)
        return set()


def _destroy_evacuated_instances(mgr, context):
    ctx = copy.copy(context)
    ctx.read_deleted = "yes"
    evacuations = objects.MigrationList.get_by_filters(ctx, {
        "source_compute": mgr.host, "status": _LEFT_BEHIND,
        "migration_type": "evacuation"})
    if not evacuations or mgr.driver is None:
        return set()
    by_uuid = {m.instance_uuid: m for m in evacuations}
    local = set(mgr.driver.list_instance_uuids())
    for uuid in sorted(local & set(by_uuid)):
        _destroy_guest(mgr, context, uuid, by_uuid[uuid])
    nodes = {cn.hypervisor_hostname: cn.uuid for cn in
             objects.ComputeNodeList.get_all_by_host(context, mgr.host)}
    for uuid, migration in by_uuid.items():
        try:
            instance = objects.Instance.get_by_uuid(ctx, uuid)
        except exception.InstanceNotFound:
            continue
        LOG.info("Cleaning up allocations of %s as it has been evacuated "
                 "from this host", uuid)
        node_uuid = nodes.get(migration.source_node)
        if node_uuid is None:
            LOG.error("Failed to clean allocation of evacuated instance %s "
                      "as the source node %s is not found", uuid,
                      migration.source_node)
            continue
        if not instance.deleted:
            try:
                remove_node_allocations(mgr.placement_client, context, uuid,
                                        node_uuid)
            except Exception:  # noqa: BLE001 - the next one still goes
                LOG.exception("Failed to clean allocation of evacuated "
                              "instance %s on the source node %s", uuid,
                              node_uuid)
        migration.status = "completed"
        migration.save()
    return set(by_uuid)


def _destroy_guest(mgr, context, uuid, migration):
    LOG.info("Destroying instance %s as it has been evacuated from this "
             "host but still exists in the hypervisor", uuid)
    try:
        instance = objects.Instance.get_by_uuid(
            context, uuid, expected_attrs=["info_cache", "system_metadata",
                                           "flavor"])
        network_info = cleanup.network_info_of(instance)
        destroy_disks = not _instance_on_disk(mgr.driver, instance)
    except exception.InstanceNotFound:
        instance = objects.Instance(uuid=uuid)
        network_info = []
        destroy_disks = True
    try:
        mgr.driver.destroy(context, instance, network_info, None,
                           destroy_disks=destroy_disks)
    except exception.InstanceNotFound:
        pass
