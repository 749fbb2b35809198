"""Cold migration and resize within a cell (Nova's MigrationTask):

1. a Migration record (pre-migrating) in the instance's cell;
2. the instance's source allocations move to the migration's consumer, so
   the instance is a fresh consumer the scheduler can claim the
   destination for (with the new flavor) while the source stays held;
3. the scheduler picks and claims a host; the destination's compute gets
   prep_resize, which hands over to the source and then back.

A failure before the cast puts everything back: allocations to the
instance, migration in error, the instance idle in its vm_state, with a
fault and the compute_task error notifications.
"""
import sys

from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.compute.ops import move_allocs
from keel.conductor.tasks import common
from keel.conductor.tasks import notify
from keel import context as keel_context
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

RESIZE_PREP = "resize_prep"


class MigrationTask:
    def __init__(self, host, scheduler_client, compute_rpcapi,
                 report_client):
        self.host = host
        self.scheduler = scheduler_client
        self.compute_rpcapi = compute_rpcapi
        self.report = report_client

    def execute(self, context, instance, flavor, request_spec,
                clean_shutdown=True, host_list=None):
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        with keel_context.target_cell(context,
                                      mapping.cell_mapping) as cctxt:
            instance = objects.Instance.get_by_uuid(
                cctxt, instance.uuid,
                expected_attrs=["flavor", "system_metadata", "info_cache"])
            migration = self._migration(cctxt, instance, flavor)
            moved = False
            try:
                moved = move_allocs.move_allocations(
                    self.report, context, instance.uuid, migration.uuid)
                if host_list:
                    # A reschedule: the scheduler's alternates, claimed
                    # one after the other (no new scheduling).
                    request_spec.flavor = flavor
                    selection, alternates = self._claim_alternate(
                        context, instance, host_list)
                else:
                    selection, alternates = self._select(
                        context, instance, flavor, request_spec)
            except Exception as exc:
                self._rollback(cctxt, instance, migration, moved, exc,
                               request_spec)
                raise
            self._remember_flavor(request_spec)
            filter_props = common.legacy_filter_properties(request_spec)
            common.populate_filter_properties(filter_props, selection)
            image = request_spec.image.obj_to_primitive() \
                if request_spec.obj_attr_is_set("image") and \
                request_spec.image is not None else {}
            self.compute_rpcapi.prep_resize(
                cctxt, instance, image, flavor, selection.service_host,
                migration, request_spec, filter_props, selection.nodename,
                clean_shutdown, alternates)

    @staticmethod
    def _migration(cctxt, instance, flavor):
        same = instance.flavor.flavorid == flavor.flavorid
        migration = objects.Migration(
            cctxt, instance_uuid=instance.uuid, status="pre-migrating",
            source_compute=instance.host, source_node=instance.node,
            dest_compute=None, dest_node=None, dest_host=None,
            old_instance_type_id=instance.flavor.id,
            new_instance_type_id=flavor.id,
            migration_type="migration" if same else "resize",
            project_id=instance.project_id, user_id=instance.user_id)
        migration.create()
        return migration

    def _select(self, context, instance, flavor, spec):
        spec.flavor = flavor
        spec.num_instances = 1
        spec.ensure_project_and_user_id(instance)
        host_lists = self.scheduler.select_destinations(
            context, spec, [instance.uuid], return_objects=True,
            return_alternates=True)
        hosts = list(host_lists[0])
        return hosts[0], hosts[1:]

    def _claim_alternate(self, context, instance, host_list):
        hosts = list(host_list)
        while hosts:
            selection = hosts.pop(0)
            if not selection.allocation_request:
                continue
            areq = jsonutils.loads(selection.allocation_request)
            if self.report.claim_resources(
                    context, instance.uuid, areq, instance.project_id,
                    instance.user_id, consumer_generation=None):
                return selection, hosts
            LOG.debug("Alternate %s no longer has room for %s",
                      selection.service_host, instance.uuid)
        raise exception.MaxRetriesExceeded(
            reason="Exhausted all hosts available during compute service "
                   "level check for instance %s." % instance.uuid)

    @staticmethod
    def _remember_flavor(spec):
        """Later moves schedule with the flavor the instance now has (a
        revert puts the old one back)."""
        try:
            spec.save()
        except Exception:  # noqa: BLE001 - the move itself goes on
            LOG.exception("Could not save the request spec of %s",
                          spec.instance_uuid)

    def _rollback(self, cctxt, instance, migration, moved, exc,
                  request_spec):
        exc_info = sys.exc_info()
        if moved:
            try:
                move_allocs.move_allocations(self.report, cctxt,
                                             migration.uuid, instance.uuid)
            except Exception:  # noqa: BLE001 - report the original
                LOG.exception("Could not give %s its allocations back",
                              instance.uuid)
        migration.status = "error"
        migration.save()
        instance.task_state = None
        try:
            instance.save(expected_task_state=RESIZE_PREP)
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            return
        common.add_fault(cctxt, instance.uuid, exc, exc_info,
                         host=self.host)
        notify.build_error(cctxt, instance.uuid, "migrate_server",
                           request_spec, instance.vm_state, exc, exc_info,
                           host=self.host)
