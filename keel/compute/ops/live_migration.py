"""Live migration on the compute hosts (Nova's compute manager part of it),
through the virt driver contract.

The conductor has already moved the source's allocations to the migration
consumer and claimed the destination for the instance. Then:

* destination: check_can_live_migrate_destination (asks the source's
  check in turn), later pre_live_migration and, once the guest runs there,
  post_live_migration_at_destination which makes it the instance's host;
* source: live_migration hands the guest to driver.live_migration with two
  callbacks: ``post`` (success: clean the source, finish on the
  destination, drop the migration's allocations) and ``rollback`` (the
  guest stays here: the destination is cleaned and the allocations go
  back to the instance).

Every instance write ends the "migrating" task with a compare-and-swap.
"""
from oslo_log import log as logging

from keel.compute.ops import cleanup
from keel.compute.ops import live_migration_volumes as lm_volumes
from keel.compute.ops import move_allocs
from keel.compute.ops import notify
from keel import exception
from keel.virt import power_state

LOG = logging.getLogger(__name__)

MIGRATING = "migrating"


# -- bookkeeping --------------------------------------------------------------

# versioned action -> Nova's legacy compute.instance.<name> prefix
_LEGACY = {"live_migration_pre": "live_migration.pre",
           "live_migration_post": "live_migration._post",
           "live_migration_post_dest": "live_migration.post.dest",
           "live_migration_rollback": "live_migration._rollback"}


def _notify(context, instance, host, action, phase):
    """Nova's pair: legacy ``compute.instance.<legacy>.<phase>`` and
    versioned ``instance.<action>.<phase>``."""
    legacy = _LEGACY.get(action)
    if legacy:
        notify.usage(context, instance, "%s.%s" % (legacy, phase), host)
    notify.action(context, instance, host, action, phase)


def _aborted(mgr):
    """Instances whose running live migration a user aborted."""
    return mgr.__dict__.setdefault("aborted_live_migrations", set())


def _running(mgr):
    """{instance uuid: Migration} of the live migrations this host runs."""
    return mgr.__dict__.setdefault("running_live_migrations", {})


def _set_migration(migration, status):
    migration.status = status
    migration.save()


# -- destination-side checks --------------------------------------------------

def _node_info(context, host):
    from keel import objects
    nodes = objects.ComputeNodeList.get_all_by_host(context, host)
    return nodes[0] if nodes else None


def check_can_live_migrate_destination(mgr, context, instance,
                                       block_migration, disk_over_commit,
                                       migration, limits):
    src = _node_info(context, instance.host)
    dst = _node_info(context, mgr.host)
    try:
        dest_check = mgr.driver.check_can_live_migrate_destination(
            context, instance, src, dst, block_migration, disk_over_commit)
    except exception.NovaException as exc:
        raise exception.MigrationPreCheckError(reason=exc.format_message())
    try:
        from keel.compute import rpcapi
        return rpcapi.ComputeAPI().check_can_live_migrate_source(
            context, instance, dest_check)
    finally:
        mgr.driver.cleanup_live_migration_destination_check(context,
                                                            dest_check)


def check_can_live_migrate_source(mgr, context, instance, dest_check_data):
    try:
        return mgr.driver.check_can_live_migrate_source(
            context, instance, dest_check_data, block_device_info=None)
    except exception.NovaException as exc:
        raise exception.MigrationPreCheckError(reason=exc.format_message())


def pre_live_migration(mgr, context, instance, block_migration, disk,
                       migrate_data):
    network_info = cleanup.network_info_of(instance)
    _notify(context, instance, mgr.host, "live_migration_pre", "start")
    bdms = lm_volumes.volume_bdms(context, instance)
    previous = lm_volumes.create_destination_attachments(
        mgr, context, instance, bdms, migrate_data)
    try:
        migrate_data = mgr.driver.pre_live_migration(
            context, instance, lm_volumes.block_device_info(bdms),
            network_info, disk, migrate_data)
        if mgr.network_api is not None:
            mgr.network_api.setup_networks_on_host(context, instance,
                                                   mgr.host)
    except Exception:
        # The source never learns of the new attachments from a failure.
        lm_volumes.undo_destination_attachments(context, bdms, previous)
        raise
    lm_volumes.complete_attachments(context, bdms)
    _notify(context, instance, mgr.host, "live_migration_pre", "end")
    return migrate_data


# -- source: the migration itself ---------------------------------------------

def live_migration(mgr, context, dest, instance, block_migration, migration,
                   migrate_data):
    from keel.compute import rpcapi
    compute_rpc = rpcapi.ComputeAPI()
    _set_migration(migration, "preparing")
    # The attachments as they are here: deleted after success, restored
    # by a rollback (the destination switches the BDMs to its own).
    source_bdms = lm_volumes.volume_bdms(context, instance)
    try:
        migrate_data = compute_rpc.pre_live_migration(
            context, instance, block_migration, None, dest, migrate_data)
    except Exception as exc:
        LOG.exception("Pre live migration failed at %s", dest)
        rollback(mgr, context, instance, dest, migrate_data,
                 migration=migration, exc=exc, source_bdms=source_bdms,
                 pre_live_migration=True)
        return
    _set_migration(migration, "running")
    _running(mgr)[instance.uuid] = migration

    def post(ctxt, inst, dest_host, block_mig, data):
        post_live_migration(mgr, ctxt, inst, dest_host, block_mig, data,
                            migration, source_bdms)

    def recover(ctxt, inst, dest_host, data):
        # An abort the user asked for ends "cancelled", not "error".
        cancelled = inst.uuid in _aborted(mgr)
        rollback(mgr, ctxt, inst, dest_host, data, migration=migration,
                 status="cancelled" if cancelled else "error",
                 source_bdms=source_bdms)

    try:
        mgr.driver.live_migration(context, instance, dest, post, recover,
                                  block_migration, migrate_data)
    except Exception as exc:
        LOG.exception("Live migration of %s failed", instance.uuid)
        rollback(mgr, context, instance, dest, migrate_data,
                 migration=migration, exc=exc, source_bdms=source_bdms)
    finally:
        _running(mgr).pop(instance.uuid, None)
        _aborted(mgr).discard(instance.uuid)


def post_live_migration(mgr, context, instance, dest, block_migration,
                        migrate_data, migration, source_bdms=()):
    from keel.compute import rpcapi
    _notify(context, instance, mgr.host, "live_migration_post", "start")
    network_info = cleanup.network_info_of(instance)
    mgr.driver.post_live_migration(
        context, instance, lm_volumes.block_device_info(source_bdms),
        migrate_data)
    lm_volumes.delete_source_attachments(context, instance, source_bdms)
    if mgr.network_api is not None:
        mgr.network_api.migrate_instance_start(context, instance, migration)
    mgr.driver.post_live_migration_at_source(context, instance, network_info)
    rpcapi.ComputeAPI().post_live_migration_at_destination(
        context, instance, block_migration, dest)
    _set_migration(migration, "completed")
    # The source is free now: the migration's hold on it goes.
    try:
        move_allocs.delete_allocations(mgr.placement_client, context,
                                       migration.uuid)
    except Exception:  # noqa: BLE001 - the periodic clean-up retries
        LOG.exception("Could not free the source allocations of %s",
                      instance.uuid)
    _notify(context, instance, mgr.host, "live_migration_post", "end")
    LOG.info("Migrating instance %s to %s finished successfully.",
             instance.uuid, dest)


def post_live_migration_at_destination(mgr, context, instance,
                                       block_migration):
    network_info = cleanup.network_info_of(instance)
    _notify(context, instance, mgr.host, "live_migration_post_dest",
                "start")
    if mgr.network_api is not None:
        mgr.network_api.setup_instance_network_on_host(context, instance,
                                                       mgr.host)
    mgr.driver.post_live_migration_at_destination(
        context, instance, network_info, block_migration,
        block_device_info=lm_volumes.block_device_info(
            lm_volumes.volume_bdms(context, instance)))
    node = _node_info(context, mgr.host)
    instance.host = mgr.host
    if node is not None:
        instance.node = node.hypervisor_hostname
    try:
        instance.power_state = mgr.driver.get_info(instance).state
    except exception.InstanceNotFound:
        instance.power_state = power_state.NOSTATE
    instance.task_state = None
    instance.progress = 0
    instance.save(expected_task_state=MIGRATING)
    _notify(context, instance, mgr.host, "live_migration_post_dest",
                "end")


def rollback(mgr, context, instance, dest, migrate_data, migration=None,
             exc=None, status="error", source_bdms=(),
             pre_live_migration=False):
    """The guest stays on this host, in Nova's order: the allocations go
    back to the instance, the volumes leave the destination and get their
    source attachments back (before the rollback's start notification),
    the destination is cleaned, and only then does the task end and the
    migration get its final status. Until then the API shows the instance
    migrating: no new move can start on allocations not yet given back.
    ``pre_live_migration``: the destination's preparation failed and undid
    its own part."""
    from keel.compute import rpcapi
    if migration is not None:
        move_allocs.give_back(mgr.placement_client, context,
                              instance.uuid, migration.uuid)
    lm_volumes.rollback_volumes(mgr, rpcapi.ComputeAPI(), context,
                                instance, dest, source_bdms,
                                pre_live_migration)
    _notify(context, instance, mgr.host, "live_migration_rollback",
                "start")
    try:
        rpcapi.ComputeAPI().rollback_live_migration_at_destination(
            context, instance, dest, destroy_disks=True,
            migrate_data=migrate_data)
    except Exception:  # noqa: BLE001 - the source state matters most
        LOG.exception("Could not clean up %s after the failed migration",
                      dest)
    if exc is not None:
        _record_fault(mgr, context, instance, exc)
    _notify(context, instance, mgr.host, "live_migration_rollback",
                "end")
    instance.task_state = None
    instance.progress = 0
    try:
        instance.save(expected_task_state=MIGRATING)
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        LOG.warning("Instance %s changed during the rollback of its live "
                    "migration", instance.uuid)
    if migration is not None:
        _set_migration(migration, status)


def rollback_live_migration_at_destination(mgr, context, instance,
                                           destroy_disks, migrate_data):
    network_info = cleanup.network_info_of(instance)
    notify.action(context, instance, mgr.host,
                  "live_migration_rollback_dest", "start")
    mgr.driver.rollback_live_migration_at_destination(
        context, instance, network_info, None, destroy_disks=destroy_disks,
        migrate_data=migrate_data)
    notify.action(context, instance, mgr.host,
                  "live_migration_rollback_dest", "end")


def _record_fault(mgr, context, instance, exc):
    from keel.compute import faults
    try:
        faults.add_instance_fault_from_exc(context, instance, exc,
                                           (type(exc), exc, None),
                                           host=mgr.host)
    except Exception:  # noqa: BLE001 - the rollback outcome matters more
        LOG.exception("Could not record the fault of %s", instance.uuid)


# -- abort / force complete ---------------------------------------------------

def live_migration_abort(mgr, context, instance, migration_id):
    migration = _running(mgr).get(instance.uuid)
    if migration is None or migration.id != migration_id:
        raise exception.InvalidMigrationState(
            migration_id=migration_id, instance_uuid=instance.uuid,
            state="not running", method="abort live migration")
    notify.action(context, instance, mgr.host, "live_migration_abort",
                  "start")
    _aborted(mgr).add(instance.uuid)
    try:
        mgr.driver.live_migration_abort(instance)
    except Exception:
        _aborted(mgr).discard(instance.uuid)
        raise
    notify.action(context, instance, mgr.host, "live_migration_abort",
                  "end")


def live_migration_force_complete(mgr, context, instance):
    notify.action(context, instance, mgr.host,
                  "live_migration_force_complete", "start")
    mgr.driver.live_migration_force_complete(instance)
    notify.action(context, instance, mgr.host,
                  "live_migration_force_complete", "end")

