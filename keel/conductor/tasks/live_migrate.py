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

A failure before the cast puts everything back (moves.MoveTask.rollback,
the destination claim dropped first).
"""
from oslo_log import log as logging

from keel.compute.ops import move_allocs
from keel.conductor.tasks import moves
from keel import exception
from keel import objects
from keel.virt import power_state

LOG = logging.getLogger(__name__)

MIGRATING = "migrating"


class LiveMigrationTask(moves.MoveTask):
    task_state = MIGRATING

    def execute(self, context, instance, scheduler_hint, block_migration,
                disk_over_commit, request_spec):
        with self.in_cell(context, instance) as (cctxt, instance):
            destination = (scheduler_hint or {}).get("host")
            migration = self.create_migration(
                cctxt, instance, instance.flavor, "accepted",
                "live-migration", dest_compute=destination)
            moved = claimed = False
            try:
                self._check_active(instance)
                moved = self.hold_source(cctxt, instance, migration)
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
                self.rollback(cctxt, instance, migration, exc, request_spec,
                              moved, claimed)
                raise
            migration.dest_compute = dest
            migration.dest_node = node
            migration.save()
            self.compute_rpcapi.live_migration(
                cctxt, instance, dest, block_migration, instance.host,
                migration, migrate_data)

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
        resources = move_allocs.total_resources(
            move_allocs.allocations_of(self.report, cctxt, migration.uuid))
        if not resources:
            return False
        resp = move_allocs.placement(self.report).put_allocations(
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
        selection = self.select(context, instance, spec,
                                alternates=False)[0]
        return selection.service_host, selection.nodename
