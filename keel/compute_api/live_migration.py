"""Live migration in the compute API (Nova's compute/api.py live_migrate,
live_migrate_force_complete, live_migrate_abort).

The API checks the lock and state, claims the instance with the
"migrating" task (CAS over no task), records the instance action and
casts to the conductor. A destination the user names is checked to exist;
unless forced (2.30-2.67) it is handed to the scheduler as the requested
destination, so the scheduler's filters and claim still apply.
"""
from keel.compute_api import server_power as power
from keel import exception
from keel import objects

ACTIVE, PAUSED = "active", "paused"
MIGRATING = "migrating"
# Migration statuses a running live migration may have (Nova's list).
IN_PROGRESS = ("queued", "preparing", "running")


def conductor():
    from keel.conductor import rpcapi
    return rpcapi.ComputeTaskAPI()


def live_migrate(ctx, instance, block_migration, disk_over_commit,
                 host_name, force=None, async_=True):
    """``async_`` (2.25+): cast to the conductor; else wait for its
    checks, whose failures the caller answers with a 400."""
    power.check_locked(ctx, instance)
    power.check_state(instance, "live_migrate", vm_state=[ACTIVE, PAUSED])
    node = None
    if host_name:
        nodes = objects.ComputeNodeList.get_all_by_host(instance._context,
                                                        host_name)
        if not nodes:
            raise exception.ComputeHostNotFound(host=host_name)
        node = nodes[0]
    power.claim(instance, MIGRATING)
    power.record_action(instance, "live-migration")
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(ctx, instance.uuid)
    except exception.RequestSpecNotFound:
        spec = None
    if node is not None and not force and spec is not None:
        spec.requested_destination = objects.Destination(
            host=node.host, node=node.hypervisor_hostname)
        host_name = None
    if async_:
        conductor().live_migrate_instance(
            ctx, instance, {"host": host_name}, block_migration,
            disk_over_commit, spec)
        return
    conductor().migrate_server(
        ctx, instance, {"host": host_name}, True, False, None,
        block_migration, disk_over_commit, request_spec=spec)


def _running_migration(instance, migration_id, method):
    try:
        migration = objects.Migration.get_by_id_and_instance(
            instance._context, migration_id, instance.uuid)
    except exception.MigrationNotFound:
        raise exception.MigrationNotFoundForInstance(
            migration_id=migration_id, instance_id=instance.uuid)
    if migration.status not in IN_PROGRESS or \
            migration.migration_type != "live-migration":
        raise exception.InvalidMigrationState(
            migration_id=migration_id, instance_uuid=instance.uuid,
            state=migration.status, method=method)
    return migration


def force_complete(ctx, instance, migration_id):
    power.check_locked(ctx, instance)
    power.check_state(instance, "live_migrate_force_complete",
                      vm_state=[ACTIVE, PAUSED], task_state=[MIGRATING])
    migration = _running_migration(instance, migration_id, "force complete")
    if migration.status != "running":
        raise exception.InvalidMigrationState(
            migration_id=migration_id, instance_uuid=instance.uuid,
            state=migration.status, method="force complete")
    power.record_action(instance, "live_migration_force_complete")
    power.compute_rpc().live_migration_force_complete(
        instance._context, instance, migration)


def abort(ctx, instance, migration_id):
    power.check_locked(ctx, instance)
    power.check_state(instance, "live_migrate_abort",
                      vm_state=[ACTIVE, PAUSED], task_state=[MIGRATING])
    _running_migration(instance, migration_id, "abort live migration")
    power.record_action(instance, "live_migration_cancel")
    power.compute_rpc().live_migration_abort(instance._context, instance,
                                             migration_id)


def in_progress(instance):
    """The instance's live migrations in progress (Nova's
    get_migrations_in_progress_by_instance), one query."""
    return [m for m in objects.MigrationList.get_in_progress_by_instance(
        instance._context, instance.uuid, "live-migration")
        if m.status in IN_PROGRESS]
