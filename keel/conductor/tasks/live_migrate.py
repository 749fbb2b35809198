"""Live migration in the conductor (Nova's LiveMigrationTask), one cell:

1. a Migration record (accepted, live-migration) in the instance's cell;
2. the instance's source allocations move to the migration consumer;
3. the destination: the scheduler picks and claims one (the source
   ignored, a requested destination honoured), or a forced host is only
   checked (exists, is not the source) and the source's allocations are
   copied to its node for the instance;
4. the destination's and source's driver checks
   (check_can_live_migrate_destination, which asks the source);
5. the source's compute gets ``live_migration`` (a cast).

A failure before the cast puts everything back: the destination claim is
dropped, the allocations return to the instance, the migration is in
error, the instance idle again with a fault and the compute_task error
notification.
"""
import sys

from oslo_log import log as logging

from keel.compute.ops import live_migration as lm_ops
from keel.conductor.tasks import common
from keel.conductor.tasks import notify
from keel import context as keel_context
from keel import exception
from keel import objects
from keel.virt import power_state

LOG = logging.getLogger(__name__)

MIGRATING = "migrating"


class LiveMigrationTask:
    def __init__(self, host, scheduler_client, compute_rpcapi,
                 report_client):
        self.host = host
        self.scheduler = scheduler_client
        self.compute_rpcapi = compute_rpcapi
        self.report = report_client

    def execute(self, context, instance, scheduler_hint, block_migration,
                disk_over_commit, request_spec):
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        with keel_context.target_cell(context,
                                      mapping.cell_mapping) as cctxt:
            instance = objects.Instance.get_by_uuid(
                cctxt, instance.uuid,
                expected_attrs=["flavor", "system_metadata", "info_cache"])
            destination = (scheduler_hint or {}).get("host")
            migration = self._migration(cctxt, instance, destination)
            moved = claimed = False
            try:
                self._check_active(instance)
                moved = lm_ops.move_allocations(
                    self.report, cctxt, instance.uuid, migration.uuid)
                if destination:
                    dest, compute_node = self._check_forced(
                        cctxt, instance, destination)
                    node = compute_node.hypervisor_hostname
                    claimed = self._claim_forced(cctxt, instance, migration,
                                                 compute_node)
                else:
                    dest, node = self._schedule(context, instance,
                                                request_spec)
                    claimed = True
                migrate_data = self.compute_rpcapi.\
                    check_can_live_migrate_destination(
                        cctxt, instance, dest, block_migration,
                        disk_over_commit, migration, None)
            except Exception as exc:
                self._rollback(cctxt, instance, migration, moved, claimed,
                               exc, request_spec)
                raise
            migration.dest_compute = dest
            migration.dest_node = node
            migration.save()
            self.compute_rpcapi.live_migration(
                cctxt, instance, dest, block_migration, instance.host,
                migration, migrate_data)

    @staticmethod
    def _migration(cctxt, instance, destination):
        migration = objects.Migration(
            cctxt, instance_uuid=instance.uuid, status="accepted",
            source_compute=instance.host, source_node=instance.node,
            dest_compute=destination, dest_node=None, dest_host=None,
            old_instance_type_id=instance.flavor.id,
            new_instance_type_id=instance.flavor.id,
            migration_type="live-migration",
            project_id=instance.project_id, user_id=instance.user_id)
        migration.create()
        return migration

    @staticmethod
    def _check_active(instance):
        if instance.power_state not in (power_state.RUNNING,
                                        power_state.PAUSED):
            raise exception.InstanceInvalidState(
                attr="power_state", instance_uuid=instance.uuid,
                state=instance.power_state, method="live migrate")

    @staticmethod
    def _check_forced(cctxt, instance, destination):
        if destination == instance.host:
            raise exception.UnableToMigrateToSelf(
                instance_id=instance.uuid, host=destination)
        nodes = objects.ComputeNodeList.get_all_by_host(cctxt, destination)
        if not nodes:
            raise exception.ComputeHostNotFound(host=destination)
        return destination, nodes[0]

    def _claim_forced(self, cctxt, instance, migration, node):
        """The scheduler is bypassed: the source's resources (now held by
        the migration) are claimed on the forced node for the instance."""
        pl = lm_ops._pl(self.report)
        held = pl.get_allocations(cctxt, migration.uuid)
        resources = {}
        for alloc in (held.get("allocations") or {}).values():
            for rc, amount in alloc["resources"].items():
                resources[rc] = resources.get(rc, 0) + amount
        if not resources:
            return False
        resp = pl.put_allocations(
            cctxt, instance.uuid, {node.uuid: {"resources": resources}},
            instance.project_id, instance.user_id, None)
        if resp.status_code != 204:
            raise exception.MigrationPreCheckError(
                reason="Unable to claim resources on %s: %s"
                       % (node.host, resp.text))
        return True

    def _schedule(self, context, instance, spec):
        if spec is None:
            spec = objects.RequestSpec.get_by_instance_uuid(context,
                                                            instance.uuid)
        spec.ignore_hosts = [instance.host]
        spec.num_instances = 1
        spec.ensure_project_and_user_id(instance)
        host_lists = self.scheduler.select_destinations(
            context, spec, [instance.uuid], return_objects=True,
            return_alternates=False)
        selection = host_lists[0][0]
        return selection.service_host, selection.nodename

    def _rollback(self, cctxt, instance, migration, moved, claimed, exc,
                  request_spec):
        exc_info = sys.exc_info()
        if claimed:
            try:
                lm_ops._pl(self.report).delete_allocations(cctxt,
                                                           instance.uuid)
            except Exception:  # noqa: BLE001 - report the original
                LOG.exception("Could not drop the destination claim of %s",
                              instance.uuid)
        if moved:
            lm_ops.revert_allocations(self.report, cctxt, instance,
                                      migration)
        migration.status = "error"
        migration.save()
        instance.task_state = None
        try:
            instance.save(expected_task_state=MIGRATING)
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            return
        common.add_fault(cctxt, instance.uuid, exc, exc_info,
                         host=self.host)
        notify.build_error(cctxt, instance.uuid, "migrate_server",
                           request_spec, instance.vm_state, exc, exc_info,
                           host=self.host)
