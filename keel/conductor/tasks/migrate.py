"""Cold migration and resize within a cell (Nova's MigrationTask):

1. a Migration record (pre-migrating) in the instance's cell;
2. the instance's source allocations move to the migration's consumer, so
   the instance is a fresh consumer the scheduler can claim the
   destination for (with the new flavor) while the source stays held;
3. the scheduler picks and claims a host; the destination's compute gets
   prep_resize, which hands over to the source and then back.

A failure before the cast puts everything back (moves.MoveTask.rollback).
"""
from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.conductor.tasks import common
from keel.conductor.tasks import moves
from keel import exception

LOG = logging.getLogger(__name__)

RESIZE_PREP = "resize_prep"


class MigrationTask(moves.MoveTask):
    task_state = RESIZE_PREP

    def execute(self, context, instance, flavor, request_spec,
                clean_shutdown=True, host_list=None):
        with self.in_cell(context, instance) as (cctxt, instance):
            same = instance.flavor.flavorid == flavor.flavorid
            migration = self.create_migration(
                cctxt, instance, flavor, "pre-migrating",
                "migration" if same else "resize")
            moved = False
            try:
                moved = self.hold_source(context, instance, migration)
                request_spec.flavor = flavor
                if host_list:
                    # A reschedule: the scheduler's alternates, claimed
                    # one after the other (no new scheduling).
                    selection, alternates = self._claim_alternate(
                        context, instance, host_list)
                else:
                    hosts = self.select(context, instance, request_spec,
                                        alternates=True)
                    selection, alternates = hosts[0], hosts[1:]
            except Exception as exc:
                self.rollback(cctxt, instance, migration, exc,
                              request_spec, moved)
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
