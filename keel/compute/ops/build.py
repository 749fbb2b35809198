"""build_and_run_instance: one server build on this host.

The RPC method returns at once; the build runs on the manager's build pool
(at most ``[DEFAULT]/max_concurrent_builds`` at a time) under a lock on the
instance, so nothing else touches the instance while it waits its turn.

State progression, each step a compare-and-swap on task_state:
BUILDING/scheduling -> networking (bound to this node by the claim)
-> block_device_mapping (network info cached) -> spawning -> ACTIVE.
A save that finds the instance deleting (or gone) stops the build: the
guest and network are cleaned up and the allocations dropped, with no
error state, because the delete owns the instance from then on.

Failures (Nova's outcomes): a spawn or claim error is rescheduled through
the conductor with the remaining alternates when the request carries retry
information; anything that cannot be retried leaves the instance in ERROR
with a fault. Either way the claim is aborted and the node's failed-build
count goes up, which the scheduler's BuildFailureWeigher reads.
"""
import sys
import time
import traceback

from oslo_log import log as logging
from oslo_utils import timeutils

from keel.compute import events
from keel.compute import faults
from keel.compute.ops import build_resources
from keel.compute.ops import cleanup
from keel.compute.ops import group_policy
from keel.compute.ops import notify
from keel.compute.ops import recovery
from keel.compute.ops import states
from keel.compute.ops import volumes
from keel.conf import CONF
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

ACTIVE, FAILED, RESCHEDULED, DELETED, SKIPPED = (
    "active", "failed", "rescheduled", "deleted", "skipped")

# Errors that are the request's fault, not the host's: another host would
# fail the same way, so they end the build instead of rescheduling it.
_ABORTING = (exception.ImageNotActive, exception.ImageUnacceptable,
             exception.InvalidInput, exception.UnexpectedTaskStateError)
_GONE = (exception.InstanceNotFound,
         exception.UnexpectedDeletingTaskStateError)


def build_and_run_instance(mgr, context, instance, **kwargs):
    """Queue the build on the manager's pool and return (the RPC is a
    cast); the manager counts it as in flight until it finishes."""
    build = Build(mgr, context, instance, **kwargs)
    key = mgr.record_task_start("build_and_run_instance", instance.uuid)

    def run():
        try:
            # The request id in this thread's log lines, as the RPC thread's.
            if hasattr(context, "update_store"):
                context.update_store()
            build.run()
        except Exception as exc:  # noqa: BLE001 - a pool thread must not die
            LOG.exception("Build of %s failed unexpectedly", instance.uuid)
            _give_up(build, exc, sys.exc_info())
        finally:
            mgr.record_task_end(key)
    mgr.build_pool.submit(run)
    return build


def _give_up(build, exc, exc_info, delays=(0, 2, 5)):
    """ERROR with a fault for a build that failed outside its own error
    handling (typically the conductor unreachable while it erred out), so
    the server does not sit in BUILD until the conductor's safety net
    finds it. Retried a few times; only a build still BUILDING and not
    being deleted is touched."""
    # Whatever happens here, the host's abandoned-build sweep looks next.
    recovery.note_lost_outcome(build.mgr)
    for delay in delays:
        time.sleep(delay)
        try:
            instance = objects.Instance.get_by_uuid(build.context,
                                                    build.instance.uuid)
            if instance.vm_state != states.BUILDING:
                return
            faults.add_instance_fault_from_exc(build.context, instance, exc,
                                               exc_info, host=build.host)
            instance.vm_state = states.ERROR
            instance.task_state = None
            instance.save(expected_vm_state=states.BUILDING,
                          expected_task_state=cleanup.NOT_DELETING)
            return
        except (exception.InstanceNotFound,
                exception.InstanceUpdateConflict):
            return
        except Exception as again:  # noqa: BLE001 - try again, then leave
            LOG.warning("Could not put instance %s in ERROR yet: %s",
                        build.instance.uuid, again)
    LOG.error("Instance %s stays in BUILD until the conductor's safety "
              "net errors it out", build.instance.uuid)


class Build(object):
    """The arguments of one build and the steps that use them."""

    def __init__(self, mgr, context, instance, image=None, request_spec=None,
                 filter_properties=None, accel_uuids=None,
                 admin_password=None, injected_files=None,
                 requested_networks=None, security_groups=None,
                 block_device_mapping=None, node=None, limits=None,
                 host_list=None):
        self.mgr = mgr
        self.host = mgr.host
        self.context = context
        self.instance = instance
        self.image = image or {}
        self.request_spec = request_spec
        self.filter_properties = filter_properties or {}
        self.admin_password = admin_password
        self.injected_files = injected_files or []
        self.requested_networks = requested_networks
        self.security_groups = security_groups
        self.bdms = block_device_mapping
        self.node = node
        self.host_list = host_list or []
        self.network_info = None
        self.result = None

    # -- outer frame: lock, outcome accounting --------------------------------
    def run(self):
        with self.mgr.instance_lock(self.instance.uuid):
            result = FAILED
            try:
                result = self._do_build_and_run_instance(self.context,
                                                         self.instance)
            finally:
                self.result = result
                self._account(result)

    def _account(self, result):
        rt = self.mgr.rt
        if result in (FAILED, DELETED):
            # The instance no longer consumes anything here: Placement
            # must agree with the tracker (a reschedule already did this).
            cleanup.delete_allocations(self.mgr, self.context,
                                       self.instance.uuid)
        if rt is None or result in (DELETED, SKIPPED):
            return
        node = self.node or rt.default_nodename()
        if result == ACTIVE:
            rt.build_succeeded(node)
        elif CONF.compute.consecutive_build_service_disable_threshold:
            # Nova counts failures only while this option is set; the
            # count feeds the scheduler's BuildFailureWeigher.
            rt.build_failed(node)

    # -- Nova's _do_build_and_run_instance ------------------------------------
    @events.wrap_instance_event(prefix="compute")
    def _do_build_and_run_instance(self, context, instance):
        try:
            instance.vm_state = states.BUILDING
            instance.task_state = None
            # vm_state too: a message delivered twice must not build an
            # instance that is already ACTIVE (or was given up: ERROR).
            instance.save(expected_task_state=(states.SCHEDULING, None),
                          expected_vm_state=states.BUILDING)
        except _GONE:
            LOG.debug("Instance %s disappeared before build", instance.uuid)
            return DELETED
        except exception.InstanceUpdateConflict as exc:
            # Someone else owns it now; its allocations are theirs too.
            LOG.debug("Not building %s: %s", instance.uuid, exc)
            return SKIPPED
        if self.node is None and self.mgr.rt is not None:
            self.node = self.mgr.rt.default_nodename()
        try:
            with timeutils.StopWatch() as timer:
                self._build_and_run_instance()
            LOG.info("Took %0.2f seconds to build instance %s",
                     timer.elapsed(), instance.uuid)
            return ACTIVE
        except exception.RescheduledException as exc:
            return self._reschedule_or_error(exc, sys.exc_info())
        except _GONE:
            LOG.debug("Instance %s disappeared during build", instance.uuid)
            cleanup.deallocate_network(self.mgr, context, instance,
                                       self.requested_networks)
            return DELETED
        except Exception as exc:  # BuildAbortException and the unexpected
            if not isinstance(exc, exception.BuildAbortException):
                LOG.exception("Unexpected build failure of %s, not "
                              "rescheduling", instance.uuid)
            else:
                LOG.error(exc.format_message())
            self._error_out(exc, sys.exc_info())
            return FAILED

    def _reschedule_or_error(self, exc, exc_info):
        instance = self.instance
        retry = self.filter_properties.get("retry")
        cleanup.deallocate_network(self.mgr, self.context, instance,
                                   self.requested_networks)
        if not retry:
            LOG.debug("Retry info not present, will not reschedule %s",
                      instance.uuid)
            self._error_out(exc, exc_info,
                            fault_message=exc.kwargs.get("reason"),
                            deallocate=False)
            return FAILED
        LOG.debug(exc.format_message())
        # The conductor logs the first and shows the second as the fault
        # if no alternate works either.
        retry["exc"] = traceback.format_exception(*exc_info)
        retry["exc_reason"] = exc.kwargs.get("reason")
        _unbind(instance)
        instance.task_state = states.SCHEDULING
        try:
            instance.save(expected_task_state=cleanup.NOT_DELETING)
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError):
            LOG.debug("Instance %s deleted before its reschedule",
                      instance.uuid)
            return DELETED
        # Free this host's claim before the conductor claims an alternate.
        cleanup.delete_allocations(self.mgr, self.context, instance.uuid)
        try:
            self.mgr.compute_task_api.build_instances(
                self.context, [instance], self.image, self.filter_properties,
                self.admin_password, self.injected_files,
                self.requested_networks, self.security_groups, self.bdms,
                request_spec=self.request_spec, host_lists=[self.host_list])
        except Exception as cast_exc:  # noqa: BLE001 - never left unowned
            # Nobody would pick the instance up (no host, no conductor
            # task): end it here, with the original failure as the fault.
            LOG.error("Could not ask for a reschedule of %s: %s",
                      instance.uuid, cast_exc)
            self._error_out(exc, exc_info,
                            fault_message=exc.kwargs.get("reason"),
                            deallocate=False)
            return FAILED
        return RESCHEDULED

    def _error_out(self, exc, exc_info, fault_message=None,
                   deallocate=True):
        instance = self.instance
        if deallocate:
            cleanup.deallocate_network(self.mgr, self.context, instance,
                                       self.requested_networks)
        volumes.cleanup(self.context, instance, self.bdms)
        try:
            faults.add_instance_fault_from_exc(
                self.context, instance, exc, exc_info,
                fault_message=fault_message, host=self.host)
        except exception.InstanceNotFound:
            return
        _unbind(instance)
        cleanup.set_error_state(instance, clean_task_state=True)

    # -- Nova's _build_and_run_instance ---------------------------------------
    def _build_and_run_instance(self):
        ctx, instance, mgr = self.context, self.instance, self.mgr
        notify.usage(ctx, instance, "create.start", self.host,
                     extra_usage_info={"image_name": self.image.get("name")})
        notify.create(ctx, instance, self.host, "start", bdms=self.bdms)
        try:
            self._check_capabilities()
            hints = group_policy.scheduler_hints(self.filter_properties,
                                                 self.request_spec)
            with mgr.rt.instance_claim(ctx, instance, self.node):
                # After the claim: it is what makes this build visible to
                # a concurrent member's check.
                group_policy.validate(mgr, ctx, instance, hints, self.node)
                image_meta = objects.ImageMeta.from_dict(self.image)
                resources = build_resources.prepare(self, image_meta)
                self._spawn(image_meta, resources)
        except _GONE as exc:
            self._notify_error(exc)
            raise
        except exception.ComputeResourcesUnavailable as exc:
            self._notify_error(exc)
            raise exception.RescheduledException(
                instance_uuid=instance.uuid, reason=exc.format_message())
        except (exception.BuildAbortException,
                exception.RescheduledException) as exc:
            self._notify_error(exc)
            raise
        except _ABORTING as exc:
            self._notify_error(exc)
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid, reason=exc.format_message())
        except Exception as exc:
            LOG.exception("Failed to build and run instance %s",
                          instance.uuid)
            self._notify_error(exc)
            raise exception.RescheduledException(
                instance_uuid=instance.uuid, reason=str(exc))
        self._finish(ctx, instance)

    def _check_capabilities(self):
        caps = getattr(self.mgr.driver, "capabilities", {}) or {}
        trusted = (self.instance.trusted_certs
                   if self.instance.obj_attr_is_set("trusted_certs")
                   else None)
        if trusted and not caps.get("supports_trusted_certs", False):
            raise exception.BuildAbortException(
                instance_uuid=self.instance.uuid,
                reason="Trusted image certificates provided on host that "
                       "does not support certificate validation.")

    def _notify_error(self, exc):
        notify.usage(self.context, self.instance, "create.error", self.host,
                     fault=exc)
        notify.create(self.context, self.instance, self.host, "error",
                      exception=exc, bdms=self.bdms)

    def _spawn(self, image_meta, resources):
        instance = self.instance
        instance.vm_state = states.BUILDING
        instance.task_state = states.SPAWNING
        instance.save(expected_task_state=states.BLOCK_DEVICE_MAPPING)
        allocations = None
        try:
            with timeutils.StopWatch() as timer:
                self.mgr.driver.spawn(
                    self.context, instance, image_meta, self.injected_files,
                    self.admin_password, allocations,
                    network_info=resources["network_info"],
                    block_device_info=resources["block_device_info"])
            LOG.info("Took %0.2f seconds to spawn instance %s on the "
                     "hypervisor", timer.elapsed(), instance.uuid)
        except Exception as exc:
            if not isinstance(exc, _GONE):
                LOG.exception("Instance %s failed to spawn", instance.uuid)
            cleanup.shutdown_after_failed_build(self, resources)
            raise

    def _finish(self, ctx, instance):
        instance.power_state = self.mgr.driver.get_info(instance).state
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        instance.launched_at = timeutils.utcnow()
        try:
            instance.save(expected_task_state=states.SPAWNING)
        except _GONE as exc:
            # Deleted while spawning: the delete now owns the guest.
            cleanup.destroy_guest(self.mgr, ctx, instance, self.network_info)
            self._notify_error(exc)
            raise
        self.mgr.update_scheduler_instance_info(ctx, instance)
        notify.usage(ctx, instance, "create.end", self.host,
                     network_info=self.network_info,
                     extra_usage_info={"message": "Success"})
        notify.create(ctx, instance, self.host, "end", bdms=self.bdms)


def _unbind(instance):
    instance.host = None
    instance.node = None
    instance.compute_id = None
