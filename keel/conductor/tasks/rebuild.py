"""The conductor's part of a rebuild (Nova's ComputeTaskManager.
rebuild_instance), recorded as the instance action event "rebuild_server".

With a host (the image did not change) the compute is asked at once. With
no host the API asks for a check first: the new image must pass the
scheduler's filters on the instance's own host (the ``_nova_check_type``
hint, the host forced; nothing is claimed: the instance keeps its
allocations). A check that fails (NoValidHost...) puts the instance's
image back, sets it to ERROR with a fault and sends compute_task's
rebuild_server error notifications, as Nova.

Then the legacy ``compute.instance.rebuild.scheduled`` and versioned
``instance.rebuild_scheduled`` notifications, and the cast to the
compute's rebuild_instance.

An evacuation (recreate) carries its Migration (status accepted): forced
to a host, the destination's node gets the same allocations as the source
(the instance holds both until the source is cleaned up); else the
scheduler picks and claims a host other than the failed one (a named host
is the requested destination). A failure there sets the migration to
error and the instance to ERROR, as for a rebuild.
"""
import sys

from oslo_log import log as logging

from keel.compute import events
from keel.conductor.tasks import common
from keel.conductor.tasks import moves
from keel.conductor.tasks import notify
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

ERROR = "error"
REBUILDING = "rebuilding"
EVENT = "rebuild_server"
# What makes the conductor give up before the compute is asked.
_SCHEDULING_FAILURES = (exception.NoValidHost,
                        exception.UnsupportedPolicyException,
                        exception.AllocationUpdateFailed,
                        NotImplementedError, ValueError)


def _notify_scheduled(context, instance, host):
    try:
        from keel.notifications import instance_actions
        from keel.notifications import legacy
        from keel.notifications import fields as nf
        from keel.notifications.instance import SOURCE_CONDUCTOR

        legacy.notify_about_instance_usage(
            context, instance, "rebuild.scheduled", host=host)
        instance_actions.notify_about_instance_rebuild(
            context, instance, host,
            action=nf.NotificationAction.REBUILD_SCHEDULED,
            source=SOURCE_CONDUCTOR)
    except Exception:  # noqa: BLE001 - a side channel never fails a rebuild
        LOG.warning("Could not send the rebuild.scheduled notifications",
                    exc_info=True)


class RebuildTask:

    def __init__(self, host, scheduler_client, compute_rpcapi,
                 report_client):
        self.host = host
        self.scheduler = scheduler_client
        self.compute_rpcapi = compute_rpcapi
        self.report = report_client

    def execute(self, context, instance, orig_image_ref, image_ref,
                injected_files, new_pass, orig_sys_metadata, bdms,
                recreate=False, on_shared_storage=False,
                preserve_ephemeral=False, host=None, request_spec=None,
                reimage_boot_volume=False, target_state=None):
        with moves.MoveTask.in_cell(context, instance) as (cctxt, instance):
            with events.EventReporter(cctxt, EVENT, self.host,
                                      instance.uuid):
                node = limits = None
                migration = self._accepted_migration(cctxt, instance)
                if host and recreate and host != instance.host:
                    # A forced evacuation: the destination is claimed as
                    # given, on top of what the source holds.
                    self._claim_forced(cctxt, context, instance, host,
                                       request_spec, migration)
                elif not host:
                    if recreate and request_spec is not None:
                        # Anywhere but the failed host.
                        request_spec.ignore_hosts = [instance.host]
                        request_spec.force_hosts = None
                        request_spec.force_nodes = None
                    host, node, limits = self._check(
                        cctxt, context, instance, request_spec,
                        orig_image_ref, image_ref, migration)
                _notify_scheduled(cctxt, instance, self.host)
                self.compute_rpcapi.rebuild_instance(
                    cctxt, instance=instance, new_pass=new_pass,
                    injected_files=injected_files, image_ref=image_ref,
                    orig_image_ref=orig_image_ref,
                    orig_sys_metadata=orig_sys_metadata, bdms=bdms,
                    recreate=recreate, on_shared_storage=on_shared_storage,
                    host=host, node=node,
                    preserve_ephemeral=preserve_ephemeral,
                    migration=migration,
                    limits=limits, request_spec=request_spec,
                    accel_uuids=[], reimage_boot_volume=reimage_boot_volume,
                    target_state=target_state)

    @staticmethod
    def _accepted_migration(cctxt, instance):
        """The evacuation's record (None for a rebuild)."""
        try:
            return objects.Migration.get_by_instance_and_status(
                cctxt, instance.uuid, "accepted")
        except exception.MigrationNotFoundByStatus:
            return None

    def _claim_forced(self, cctxt, context, instance, host, spec,
                      migration):
        """The instance's source allocations repeated on the forced
        destination's node (Nova's claim_resources_on_destination)."""
        try:
            source = objects.ComputeNode.get_by_host_and_nodename(
                cctxt, instance.host, instance.node)
            dest = objects.ComputeNodeList.get_all_by_host(cctxt, host)[0]
            current = self.report.get_allocs_for_consumer(
                context, instance.uuid) or {}
            allocs = dict(current.get("allocations") or {})
            held = (allocs.get(source.uuid) or {}).get("resources") or {}
            if held:
                allocs[dest.uuid] = {"resources": dict(held)}
                if not self.report.put_allocations(
                        context, instance.uuid, allocs, instance.project_id,
                        instance.user_id,
                        current.get("consumer_generation")):
                    raise exception.NoValidHost(
                        reason="Unable to move instance %s to host %s. "
                               "There is not enough capacity on the host "
                               "for the instance." % (instance.uuid, host))
        except (exception.NoValidHost,
                exception.AllocationUpdateFailed) as exc:
            exc_info = sys.exc_info()
            self._fail(cctxt, instance, spec, None, None, exc, exc_info,
                       migration)
            raise

    def _check(self, cctxt, context, instance, spec, orig_image_ref,
               image_ref, migration=None):
        """``(host, node, limits)`` of the scheduler's answer."""
        try:
            if spec is None:
                raise exception.NoValidHost(
                    reason="No request spec for the instance")
            spec.num_instances = 1
            spec.ensure_project_and_user_id(instance)
            host_lists = self.scheduler.select_destinations(
                context, spec, [instance.uuid], return_objects=True,
                return_alternates=False)
            selection = list(host_lists[0])[0]
        except _SCHEDULING_FAILURES as exc:
            exc_info = sys.exc_info()
            self._fail(cctxt, instance, spec, orig_image_ref, image_ref,
                       exc, exc_info, migration)
            raise
        limits = selection.limits if selection.obj_attr_is_set(
            "limits") else None
        return selection.service_host, selection.nodename, limits

    def _fail(self, cctxt, instance, spec, orig_image_ref, image_ref, exc,
              exc_info, migration=None):
        LOG.warning("Rebuild failed: %s", exc, instance_uuid=instance.uuid)
        if migration is not None:
            migration.status = "error"
            migration.save()
        if orig_image_ref and orig_image_ref != image_ref:
            instance.image_ref = orig_image_ref
        instance.vm_state = ERROR
        instance.task_state = None
        try:
            instance.save(expected_task_state=[REBUILDING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as gone:
            LOG.info("Not setting instance %s to ERROR: %s", instance.uuid,
                     gone)
            return
        common.add_fault(cctxt, instance.uuid, exc, exc_info,
                         host=self.host)
        notify.build_error(cctxt, instance.uuid, EVENT, spec, ERROR, exc,
                           exc_info, host=self.host)
