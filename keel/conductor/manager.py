"""Conductor RPC endpoints.

ConductorManager (3.0) is the database proxy of compute hosts: it runs object
methods on their behalf and backports objects to the versions a caller knows.
ComputeTaskManager answers the ``compute_task`` namespace (1.26); it only
dispatches: each workflow lives in keel/conductor/tasks/.
"""
import importlib
import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import versionutils

from keel.conductor import buildpool
from keel.conductor.tasks import build
from keel.conductor.tasks import reschedule
from keel.conductor.tasks import safety
from keel.conf import CONF
from keel import exception
from keel import manager
from keel.objects import base as objects_base
from keel.rpc import serializer as rpc_serializer
from keel.rpc import versions

LOG = logging.getLogger(__name__)

# What a build imports on its way (clients, quota re-check, notifications),
# imported when the manager is made instead of by the first builds of each
# worker: that was ~4% of the conductor's CPU in a 150-server bench, and
# the first builds' latency. The clients themselves are still made on
# first use (see ComputeTaskManager._deps).
_BUILD_MODULES = ("keel.clients.report", "keel.compute.rpcapi",
                  "keel.scheduler.rpcapi", "keel.compute_api.quota",
                  "keel.notifications.instance")


class ConductorManager(manager.Manager):
    target = messaging.Target(version=versions.CONDUCTOR_TARGET)
    service_name = "conductor"

    def __init__(self, host=None):
        super().__init__(host=host or CONF.host, service_name="conductor")
        self.compute_task_mgr = ComputeTaskManager(
            self.host, tracker=lambda label: self.operation(
                "schedule_and_build_instances", label))
        self.additional_endpoints.append(self.compute_task_mgr)
        # The safety nets' period follows [DEFAULT]/instance_build_timeout
        # (read now, after the configuration was parsed).
        self._periodic_spacing = dict(self._periodic_spacing,
                                      _build_safety_nets=safety.spacing())

    @manager.periodic(spacing=60, run_immediately=False)
    def _build_safety_nets(self, context):
        """Lost build messages re-driven, builds abandoned by a dead host
        in ERROR, allocations of deleted instances removed (see
        keel/conductor/tasks/safety.py)."""
        from keel.conductor import rpcapi as conductor_rpcapi

        report = self.compute_task_mgr._deps()[2]
        safety.run(context, conductor_rpcapi.ComputeTaskAPI(), report,
                   self.host)

    @staticmethod
    def _dispatch(target, method, args, kwargs):
        # ExpectedException: the caller gets the original exception back and
        # the conductor's log is not filled with the callers' errors.
        try:
            return getattr(target, method)(*args, **kwargs)
        except Exception:
            raise messaging.ExpectedException()

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        """Run classmethod ``objmethod`` of ``objname``; return the result at
        the version the caller asked for when ours is newer."""
        objclass = objects_base.KeelObject.obj_class_from_name(
            objname, object_versions[objname])
        result = self._dispatch(objclass, objmethod,
                                (context,) + tuple(args), kwargs)
        if isinstance(result, objects_base.KeelObject):
            wanted = object_versions.get(result.obj_name(),
                                         object_versions[objname])
            asked = versionutils.convert_version_to_tuple(wanted)
            have = versionutils.convert_version_to_tuple(result.VERSION)
            if asked < have or asked[0] != have[0]:
                return result.obj_to_primitive(
                    target_version=wanted, version_manifest=object_versions)
        return result

    def object_action(self, context, objinst, objmethod, args, kwargs):
        """Run ``objinst.objmethod``; return (changed fields, result) so the
        caller can apply the changes to its own copy."""
        before = objects_base.snapshot_fields(objinst)
        result = self._dispatch(objinst, objmethod, args, kwargs)
        # Field primitives only (and the set of changed names): not walked
        # again by the serializer.
        updates = rpc_serializer.Primitives()
        for name in objects_base.fields_changed_since(objinst, before):
            field = objinst.fields[name]
            updates[name] = field.to_primitive(objinst, name,
                                               getattr(objinst, name))
        updates["obj_what_changed"] = objinst.obj_what_changed()
        return updates, result

    def object_backport_versions(self, context, objinst, object_versions):
        target = object_versions[objinst.obj_name()]
        LOG.debug("Backporting %s to %s", objinst.obj_name(), target)
        return objinst.obj_to_primitive(target_version=target,
                                        version_manifest=object_versions)

    def set_shutdown_in_progress(self):
        super().set_shutdown_in_progress()
        # Queued builds are dropped (re-driven by the safety net); running
        # ones are operations in flight the graceful stop waits for.
        self.compute_task_mgr.stop_builds()

    def reset(self):
        versions.reset_cache()
        from keel.conductor.tasks import lookups
        lookups.forget_host_cells()


class ComputeTaskManager:
    """Endpoint of the ``compute_task`` namespace (version 1.26).

    A call for a workflow not written yet fails on the caller with
    oslo.messaging's NoSuchMethod rather than pretending to work.
    """

    target = messaging.Target(namespace="compute_task",
                              version=versions.COMPUTE_TASK_TARGET)

    def __init__(self, host=None, tracker=None):
        self.host = host or CONF.host
        self._clients = None
        self._clients_lock = threading.Lock()
        # See keel/conductor/buildpool.py ([conductor]/build_threads).
        self.builds = buildpool.BuildPool(
            CONF.conductor.build_threads, name="build", tracker=tracker) \
            if CONF.conductor.build_threads else None
        for module in _BUILD_MODULES:
            importlib.import_module(module)

    def stop_builds(self):
        if self.builds is not None:
            self.builds.stop(timeout=0)

    def _deps(self):
        """(scheduler, compute, placement) clients, made on first use so
        a conductor starts without reaching any of them."""
        if self._clients is not None:
            return self._clients
        with self._clients_lock:    # several build threads at start
            if self._clients is not None:
                return self._clients
            from keel.clients import report
            from keel.compute import rpcapi as compute_rpcapi
            from keel.scheduler import rpcapi as scheduler_rpcapi

            self._clients = (scheduler_rpcapi.SchedulerAPI(),
                             compute_rpcapi.ComputeAPI(),
                             report.ReportClient())
        return self._clients

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image, admin_password,
                                     injected_files, requested_networks,
                                     block_device_mapping, tags=None):
        args = (context, build_requests, request_specs, image,
                admin_password, injected_files, requested_networks,
                block_device_mapping)
        if self.builds is None:
            self._schedule_and_build(*args, tags=tags)
            return
        label = ",".join(br.instance_uuid for br in build_requests)
        if not self.builds.submit(label, self._schedule_and_build, *args,
                                  tags=tags):
            LOG.warning("Stopping: build of %s not started; the safety net "
                        "re-drives it.", label)

    def _schedule_and_build(self, context, build_requests, request_specs,
                            image, admin_password, injected_files,
                            requested_networks, block_device_mapping,
                            tags=None):
        if hasattr(context, "update_store"):
            context.update_store()  # this thread's logs carry its request
        build.ScheduleAndBuild(self.host, *self._deps()).execute(
            context, build_requests, request_specs, image, admin_password,
            injected_files, requested_networks, block_device_mapping,
            tags=tags)

    def build_instances(self, context, instances, image, filter_properties,
                        admin_password, injected_files, requested_networks,
                        security_groups, block_device_mapping=None,
                        legacy_bdm=True, request_spec=None, host_lists=None):
        reschedule.Reschedule(self.host, *self._deps()).execute(
            context, instances, image, filter_properties, admin_password,
            injected_files, requested_networks, security_groups,
            block_device_mapping=block_device_mapping, legacy_bdm=legacy_bdm,
            request_spec=request_spec, host_lists=host_lists)

    def live_migrate_instance(self, context, instance, scheduler_hint,
                              block_migration, disk_over_commit,
                              request_spec):
        from keel.conductor.tasks import live_migrate
        try:
            live_migrate.LiveMigrationTask(self.host, *self._deps()).execute(
                context, instance, scheduler_hint, block_migration,
                disk_over_commit, request_spec)
        except Exception as exc:  # noqa: BLE001 - a cast: the task has
            # already rolled back and recorded the fault; log, not raise.
            LOG.warning("Live migration of %s failed: %s", instance.uuid,
                        exc)

    # As Nova: the failures a move expects (the task has already put the
    # instance back and recorded the fault) are not logged by oslo.messaging
    # as errors with a traceback.
    @messaging.expected_exceptions(
        exception.NoValidHost, exception.ComputeServiceUnavailable,
        exception.ComputeHostNotFound, exception.UnableToMigrateToSelf,
        exception.HypervisorUnavailable, exception.InstanceInvalidState,
        exception.MigrationPreCheckError)
    def migrate_server(self, context, instance, scheduler_hint, live,
                       rebuild, flavor, block_migration, disk_over_commit,
                       reservations=None, clean_shutdown=True,
                       request_spec=None, host_list=None):
        if live and not rebuild:
            # Before 2.25 a live migration is this synchronous call: the
            # task's errors (after its rollback) reach the API as 400s.
            from keel.conductor.tasks import live_migrate
            live_migrate.LiveMigrationTask(self.host, *self._deps()).execute(
                context, instance, scheduler_hint, block_migration,
                disk_over_commit, request_spec)
            return
        if rebuild:
            # Evacuation is another workflow.
            raise NotImplementedError()
        from keel.conductor.tasks import migrate
        migrate.MigrationTask(self.host, *self._deps()).execute(
            context, instance, flavor, request_spec,
            clean_shutdown=clean_shutdown, host_list=host_list)

    @messaging.expected_exceptions(exception.UnshelveException)
    def unshelve_instance(self, context, instance, request_spec=None):
        from keel.conductor.tasks import unshelve
        if request_spec is None:
            from keel import objects
            request_spec = objects.RequestSpec.get_by_instance_uuid(
                context, instance.uuid)
        unshelve.UnshelveTask(self.host, *self._deps()).execute(
            context, instance, request_spec)

    @messaging.expected_exceptions(
        exception.NoValidHost, exception.UnsupportedPolicyException,
        exception.AllocationUpdateFailed)
    def rebuild_instance(self, context, instance, orig_image_ref, image_ref,
                         injected_files, new_pass, orig_sys_metadata, bdms,
                         recreate, on_shared_storage,
                         preserve_ephemeral=False, host=None,
                         request_spec=None, reimage_boot_volume=False,
                         target_state=None):
        from keel.conductor.tasks import rebuild
        rebuild.RebuildTask(self.host, *self._deps()).execute(
            context, instance, orig_image_ref, image_ref, injected_files,
            new_pass, orig_sys_metadata, bdms, recreate=recreate,
            on_shared_storage=on_shared_storage,
            preserve_ephemeral=preserve_ephemeral, host=host,
            request_spec=request_spec,
            reimage_boot_volume=reimage_boot_volume,
            target_state=target_state)
