"""What cold migration (migrate.py) and live migration (live_migrate.py)
share in the conductor, as Nova's MigrationTask and LiveMigrationTask do:
the instance read in its cell, a Migration record, the source
allocations handed to the migration consumer, a scheduler pick for one
instance, and the undo of all that when the move fails before a compute
is asked (allocations back to the instance, migration in error, the
instance idle again with a fault and the compute_task error
notification).
"""
import contextlib
import sys

from oslo_log import log as logging

from keel.compute.ops import move_allocs
from keel.conductor.tasks import common
from keel.conductor.tasks import notify
from keel import context as keel_context
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)


class MoveTask:
    # The task_state the API set; the rollback ends it with a CAS.
    task_state = None

    def __init__(self, host, scheduler_client, compute_rpcapi,
                 report_client):
        self.host = host
        self.scheduler = scheduler_client
        self.compute_rpcapi = compute_rpcapi
        self.report = report_client

    @staticmethod
    @contextlib.contextmanager
    def in_cell(context, instance):
        """``(cell context, fresh instance)`` in the instance's cell."""
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        with keel_context.target_cell(context,
                                      mapping.cell_mapping) as cctxt:
            yield cctxt, objects.Instance.get_by_uuid(
                cctxt, instance.uuid,
                expected_attrs=["flavor", "system_metadata", "info_cache"])

    @staticmethod
    def create_migration(cctxt, instance, new_flavor, status,
                         migration_type, dest_compute=None):
        migration = objects.Migration(
            cctxt, instance_uuid=instance.uuid, status=status,
            source_compute=instance.host, source_node=instance.node,
            dest_compute=dest_compute, dest_node=None, dest_host=None,
            old_instance_type_id=instance.flavor.id,
            new_instance_type_id=new_flavor.id,
            migration_type=migration_type,
            project_id=instance.project_id, user_id=instance.user_id)
        migration.create()
        return migration

    def hold_source(self, context, instance, migration):
        """The source's allocations become the migration's, so the
        instance is a fresh consumer to claim the destination for; False
        when it held none."""
        return move_allocs.move_allocations(self.report, context,
                                            instance.uuid, migration.uuid)

    def select(self, context, instance, spec, alternates):
        """The scheduler's selections (chosen first) for this one
        instance; the chosen host is claimed in Placement."""
        spec.num_instances = 1
        spec.ensure_project_and_user_id(instance)
        host_lists = self.scheduler.select_destinations(
            context, spec, [instance.uuid], return_objects=True,
            return_alternates=alternates)
        return list(host_lists[0])

    def rollback(self, cctxt, instance, migration, exc, request_spec,
                 moved, claimed=False):
        """Undo a move that failed before a compute took it over; call it
        from the ``except`` block (the fault keeps the traceback)."""
        exc_info = sys.exc_info()
        if claimed:
            try:
                move_allocs.delete_allocations(self.report, cctxt,
                                               instance.uuid)
            except Exception:  # noqa: BLE001 - report the original
                LOG.exception("Could not drop the destination claim of %s",
                              instance.uuid)
        if moved:
            move_allocs.give_back(self.report, cctxt, instance.uuid,
                                  migration.uuid)
        migration.status = "error"
        migration.save()
        instance.task_state = None
        try:
            instance.save(expected_task_state=self.task_state)
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            return
        common.add_fault(cctxt, instance.uuid, exc, exc_info,
                         host=self.host)
        notify.build_error(cctxt, instance.uuid, "migrate_server",
                           request_spec, instance.vm_state, exc, exc_info,
                           host=self.host)
