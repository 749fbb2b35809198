"""Compute RPC endpoint (6.5): a thin dispatcher.

Instance operations live in ``keel.compute.ops`` (one module per family);
the RPC methods here only wrap them with Nova's decorators (instance action
events, faults, task-state revert). What lives here is the host-level part:
the host uptime call, resource tracking at start and periodically (through
the resource tracker, which reports to Placement), start-up recovery of
instances a crash interrupted, and the instance view the scheduler keeps of
this host (update at start, periodic sync).
"""
import concurrent.futures
import contextlib
import datetime
import os
import threading
import weakref

from oslo_log import log as logging
import oslo_messaging as messaging

from keel.compute import events
from keel.compute import faults
from keel.compute.ops import admin_password as admin_password_ops
from keel.compute.ops import build as build_ops
from keel.compute.ops import consoles as console_ops
from keel.compute.ops import delete as delete_ops
from keel.compute.ops import diagnostics as diagnostics_ops
from keel.compute.ops import host_actions as host_action_ops
from keel.compute.ops import interfaces as interface_ops
from keel.compute.ops import live_migration as live_migration_ops
from keel.compute.ops import network_info as network_info_ops
from keel.compute.ops import power as power_ops
from keel.compute.ops import power_sync
from keel.compute.ops import recovery
from keel.compute.ops import rescue as rescue_ops
from keel.compute.ops import shelve as shelve_ops
from keel.compute.ops import shares as share_ops
from keel.compute.ops import resize as resize_ops
from keel.compute.ops import resize_confirm
from keel.compute.ops import resize_dest
from keel.compute.ops import volume_attach as volume_attach_ops
from keel.compute.ops import volume_snapshots as volume_snapshot_ops
from keel.compute.ops import snapshot as snapshot_ops
from keel.compute.ops import usage_audit as usage_audit_ops
from keel.conf import CONF
from keel import exception
from keel import manager
from keel.notifications.exception_wrapper import wrap_exception
from keel.rpc import versions
from keel.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


def host_uptime_text(now=None):
    """The host's uptime in the format of ``uptime(1)`` (what Nova's
    drivers return for ``GET /os-hypervisors/{id}/uptime``)."""
    with open("/proc/uptime") as f:
        seconds = int(float(f.read().split()[0]))
    now = now or datetime.datetime.now()
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    up = f"{days} day{'s' if days != 1 else ''}, " if days else ""
    up += f"{hours:2d}:{minutes:02d}" if hours else f"{minutes} min"
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    return f" {now:%H:%M:%S} up {up},  load average: {load}"


def _resource_tracker_class():
    """The resource tracker, once the resources package provides it."""
    try:
        from keel.compute.resources import tracker
    except ImportError:
        return None
    return getattr(tracker, "ResourceTracker", None)


class ComputeManager(manager.Manager):
    target = messaging.Target(version=versions.COMPUTE_TARGET)
    service_name = "compute"

    def __init__(self, host=None, driver=None, reportclient=None,
                 scheduler_client=None):
        super().__init__(host=host or CONF.host, service_name="compute")
        self.driver = driver
        self.reportclient = reportclient
        self.scheduler_client = scheduler_client or \
            scheduler_rpcapi.SchedulerAPI()
        self.rt = None
        rt_class = _resource_tracker_class()
        if rt_class is not None and driver is not None:
            self.rt = rt_class(self.host, driver, reportclient)
        # Builds run here, not on RPC threads (they may take minutes);
        # queued builds wait for a free worker, as Nova's build semaphore.
        self.build_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=CONF.max_concurrent_builds or 1000,
            thread_name_prefix="build-%s" % self.host)
        self._instance_locks = weakref.WeakValueDictionary()
        self._locks_guard = threading.Lock()
        self._network_api = None
        self._compute_task_api = None
        # [DEFAULT]/shelved_poll_interval as configured (the decorator's
        # value was read at import, before the configuration was parsed).
        self._periodic_spacing = dict(
            self._periodic_spacing,
            _poll_shelved_instances=shelve_ops.poll_spacing())

    # -- collaborators --------------------------------------------------------
    @property
    def network_api(self):
        if self._network_api is None:
            try:
                from keel.network import api as network_api
            except ImportError:
                return None
            self._network_api = network_api.get_api()
        return self._network_api

    @property
    def compute_task_api(self):
        if self._compute_task_api is None:
            from keel.conductor import rpcapi as conductor_rpcapi
            self._compute_task_api = conductor_rpcapi.ComputeTaskAPI()
        return self._compute_task_api

    @compute_task_api.setter
    def compute_task_api(self, value):
        self._compute_task_api = value

    @property
    def placement_client(self):
        return self.reportclient if self.reportclient is not None \
            else self.rt.reportclient

    @contextlib.contextmanager
    def instance_lock(self, instance_uuid):
        """One operation at a time per instance on this host (Nova's
        synchronized(instance.uuid)); distinct instances run in parallel."""
        with self._locks_guard:
            lock = self._instance_locks.get(instance_uuid)
            if lock is None:
                lock = threading.RLock()
                self._instance_locks[instance_uuid] = lock
        with lock:
            yield

    # -- lifecycle ------------------------------------------------------------
    def init_host(self, service_ref=None):
        from keel import context as keel_context
        ctxt = keel_context.get_admin_context()
        if self.driver is not None and hasattr(self.driver, "init_host"):
            self.driver.init_host(host=self.host)
        if self.driver is not None:
            # Guests changing state on their own reach the power sync.
            self.driver.register_event_listener(self.handle_events)
        # The network API's and the notification helpers' modules are
        # imported now, not by the first build (its latency, and a busy
        # moment's CPU); which network API is used is still decided then.
        from keel.compute.ops import notify
        notify.warm_up()
        try:
            from keel.network import api  # noqa: F401
            from keel.network import local  # noqa: F401
        except ImportError:
            pass
        # Guests evacuated away while this host was down go first (Nova).
        from keel.compute.ops import evacuate as evacuate_ops
        evacuate_ops.destroy_evacuated_instances(self, ctxt)
        self._update_available_resource(ctxt, startup=True)
        instances = None
        if self.driver is not None:
            try:
                # One read of each node's allocations serves both sweeps,
                # one read of the host's instances recovery and the
                # schedulers' view (as Nova's init_host).
                allocations = {}
                instances = recovery.init_instances(self, ctxt, allocations)
                if self.rt is not None:
                    self.rt.remove_deleted_instances_allocations(
                        ctxt, allocations)
            except Exception:  # noqa: BLE001 - the service must still start
                LOG.exception("Start-up recovery of %s failed", self.host)
        self._update_scheduler_instance_info(ctxt, instances)

    def cleanup_host(self):
        self.build_pool.shutdown(wait=False)
        if self.driver is not None and hasattr(self.driver, "cleanup_host"):
            self.driver.cleanup_host(host=self.host)

    def _host_instances(self, ctxt, expected_attrs=None):
        from keel import objects
        try:
            return objects.InstanceList.get_by_host(
                ctxt, self.host, expected_attrs=expected_attrs)
        except Exception as exc:  # noqa: BLE001 - report what we can
            LOG.warning("Could not list the instances of host %s: %s",
                        self.host, exc)
            return None

    def _update_scheduler_instance_info(self, ctxt, instances=None):
        """Tell every scheduler which instances this host runs (at start;
        ``instances``: the start-up recovery's, else they are read)."""
        if not CONF.filter_scheduler.track_instance_changes:
            return
        from keel import objects
        if instances is None:
            instances = self._host_instances(ctxt)
        if instances is None:
            instances = objects.InstanceList(objects=[])
        self.scheduler_client.update_instance_info(ctxt, self.host,
                                                   instances)

    def _update_available_resource(self, ctxt, startup=False):
        if self.rt is None:
            return
        try:
            self.rt.update_available_resource(ctxt, startup=startup)
        except Exception:  # noqa: BLE001 - next period tries again
            LOG.exception("Error updating resources for node %s", self.host)

    def update_scheduler_instance_info(self, ctxt, instance):
        """One built instance, to every scheduler (when they track them);
        a single Instance, as Nova sends it."""
        if not CONF.filter_scheduler.track_instance_changes:
            return
        try:
            self.scheduler_client.update_instance_info(ctxt, self.host,
                                                       instance)
        except Exception:  # noqa: BLE001 - the periodic sync catches up
            LOG.debug("Could not send instance info of %s", instance.uuid,
                      exc_info=True)

    def delete_scheduler_instance_info(self, ctxt, instance_uuid):
        if not CONF.filter_scheduler.track_instance_changes:
            return
        try:
            self.scheduler_client.delete_instance_info(ctxt, self.host,
                                                       instance_uuid)
        except Exception:  # noqa: BLE001 - the periodic sync catches up
            LOG.debug("Could not send instance deletion of %s",
                      instance_uuid, exc_info=True)

    # -- periodic tasks -------------------------------------------------------
    @manager.periodic(spacing=60)
    def _check_instance_build_time(self, context):
        """Builds stuck past [DEFAULT]/instance_build_timeout: ERROR."""
        return recovery.error_out_timed_out_builds(
            self, context, CONF.instance_build_timeout)

    @manager.periodic(spacing=60)
    def _error_out_abandoned_builds(self, context):
        """BUILDING here with no build running: ERROR with a fault (looked
        for at once after a build lost its outcome, else every 10 min)."""
        return recovery.error_out_abandoned_builds_if_due(self, context)

    @manager.periodic(spacing=600)
    def _remove_deleted_instances_allocations(self, context):
        """Allocations a deleted instance left behind (Placement was down
        during its delete) are freed: capacity never leaks for good."""
        if self.rt is not None:
            return self.rt.remove_deleted_instances_allocations(context)

    @manager.periodic(spacing=CONF.reclaim_instance_interval)
    def _reclaim_queued_deletes(self, context):
        """Delete soft-deleted instances older than
        [DEFAULT]/reclaim_instance_interval (0: soft delete is off)."""
        return delete_ops.reclaim_queued_deletes(
            self, context, CONF.reclaim_instance_interval)

    # Spacings are read when this module is imported: the keel commands
    # import managers only after parsing the configuration, as Nova does.
    @manager.periodic(spacing=CONF.update_resources_interval,
                      run_immediately=False)
    def update_available_resource(self, context, startup=False):
        self._update_available_resource(context, startup=startup)

    @manager.periodic(spacing=CONF.scheduler_instance_sync_interval)
    def _sync_scheduler_instance_info(self, context):
        if not CONF.filter_scheduler.track_instance_changes:
            return
        # Only the uuids are sent: no joined columns (as Nova).
        instances = self._host_instances(context, expected_attrs=[])
        uuids = [inst.uuid for inst in instances] if instances else []
        self.scheduler_client.sync_instance_info(context, self.host, uuids)

    @manager.periodic(spacing=60)
    def _poll_unconfirmed_resizes(self, context):
        """Resizes past [DEFAULT]/resize_confirm_window: confirmed."""
        return resize_confirm.poll_unconfirmed_resizes(
            self, context, CONF.resize_confirm_window)

    # At the first periodic run after start, then every interval (Nova's
    # run_immediately): a guest that changed state while this service was
    # down is noticed at once. One host read, one refresh per idle instance.
    @manager.periodic(spacing=CONF.sync_power_state_interval,
                      run_immediately=True)
    def _sync_power_states(self, context):
        """The safety net behind lifecycle events: the DB power states of
        this host's idle instances against the hypervisor's."""
        if self.driver is not None:
            return power_sync.sync_power_states(self, context)

    @manager.periodic(spacing=600)
    def _cleanup_expired_console_auth_tokens(self, context):
        """Console tokens past their [consoleauth]/token_ttl."""
        console_ops.clean_expired_tokens(context)

    @manager.periodic(spacing=60)
    def _instance_usage_audit(self, context):
        """[DEFAULT]/instance_usage_audit: the period's exists events."""
        usage_audit_ops.instance_usage_audit(self, context)

    def handle_events(self, event):
        """The virt driver's event listener (lifecycle events)."""
        power_sync.handle_events(self, event)

    # -- RPC: host-level ------------------------------------------------------
    def get_host_uptime(self, context):
        if self.driver is not None and hasattr(self.driver,
                                               "get_host_uptime"):
            return self.driver.get_host_uptime()
        return host_uptime_text()

    @wrap_exception()
    def set_host_enabled(self, context, enabled):
        return host_action_ops.set_host_enabled(self, context, enabled)

    @wrap_exception()
    def host_maintenance_mode(self, context, host, mode):
        return host_action_ops.host_maintenance_mode(self, context, host,
                                                     mode)

    @wrap_exception()
    def host_power_action(self, context, action):
        return host_action_ops.host_power_action(self, context, action)

    # -- RPC: assisted volume snapshots --------------------------------------
    @messaging.expected_exceptions(NotImplementedError)
    @wrap_exception()
    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        volume_snapshot_ops.volume_snapshot_create(
            self, context, instance, volume_id, create_info)

    @messaging.expected_exceptions(NotImplementedError)
    @wrap_exception()
    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        volume_snapshot_ops.volume_snapshot_delete(
            self, context, instance, volume_id, snapshot_id, delete_info)

    # -- RPC: Manila shares (keel.compute.ops.shares) ------------------------
    @messaging.expected_exceptions(NotImplementedError)
    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def allow_share(self, context, instance, share_mapping):
        share_ops.allow_share(self, context, instance, share_mapping)

    @messaging.expected_exceptions(NotImplementedError)
    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def deny_share(self, context, instance, share_mapping):
        share_ops.deny_share(self, context, instance, share_mapping)

    # -- RPC: build and delete ------------------------------------------------
    def build_and_run_instance(self, context, instance, image, request_spec,
                               filter_properties, accel_uuids,
                               admin_password=None, injected_files=None,
                               requested_networks=None, security_groups=None,
                               block_device_mapping=None, node=None,
                               limits=None, host_list=None):
        build_ops.build_and_run_instance(
            self, context, instance, image=image, request_spec=request_spec,
            filter_properties=filter_properties, accel_uuids=accel_uuids,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            security_groups=security_groups,
            block_device_mapping=block_device_mapping, node=node,
            limits=limits, host_list=host_list)

    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def terminate_instance(self, context, instance, bdms):
        delete_ops.terminate_instance(self, context, instance, bdms)

    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def soft_delete_instance(self, context, instance):
        with self.instance_lock(instance.uuid):
            delete_ops.soft_delete_instance(self, context, instance)

    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def restore_instance(self, context, instance):
        with self.instance_lock(instance.uuid):
            delete_ops.restore_instance(self, context, instance)

    # -- RPC: power, rescue, console (keel.compute.ops.power / rescue) -------
    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def stop_instance(self, context, instance, clean_shutdown=True):
        power_ops.stop_instance(self, context, instance, clean_shutdown)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def start_instance(self, context, instance):
        power_ops.start_instance(self, context, instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def reboot_instance(self, context, instance, block_device_info,
                        reboot_type):
        power_ops.reboot_instance(self, context, instance, block_device_info,
                                  reboot_type)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def pause_instance(self, context, instance):
        power_ops.pause_instance(self, context, instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def unpause_instance(self, context, instance):
        power_ops.unpause_instance(self, context, instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def suspend_instance(self, context, instance):
        power_ops.suspend_instance(self, context, instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def resume_instance(self, context, instance):
        power_ops.resume_instance(self, context, instance)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def trigger_crash_dump(self, context, instance):
        power_ops.trigger_crash_dump(self, context, instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def rescue_instance(self, context, instance, rescue_password,
                        rescue_image_ref=None, clean_shutdown=True):
        rescue_ops.rescue_instance(self, context, instance, rescue_password,
                                   rescue_image_ref, clean_shutdown)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def unrescue_instance(self, context, instance):
        rescue_ops.unrescue_instance(self, context, instance)

    @wrap_exception()
    @faults.wrap_instance_fault
    def get_console_output(self, context, instance, tail_length):
        return power_ops.get_console_output(self, context.elevated(),
                                            instance, tail_length)

    @wrap_exception()
    @faults.wrap_instance_fault
    def get_vnc_console(self, context, instance, console_type):
        return console_ops.get_vnc_console(self, context.elevated(),
                                           instance, console_type)

    @wrap_exception()
    @faults.wrap_instance_fault
    def get_serial_console(self, context, instance, console_type):
        return console_ops.get_serial_console(self, context.elevated(),
                                              instance, console_type)

    # -- RPC: rebuild (keel.compute.ops.rebuild) ------------------------------
    @messaging.expected_exceptions(exception.PreserveEphemeralNotSupported,
                                   exception.BuildAbortException)
    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def rebuild_instance(self, context, instance, orig_image_ref, image_ref,
                         injected_files, new_pass, orig_sys_metadata, bdms,
                         recreate, on_shared_storage, preserve_ephemeral,
                         migration, scheduled_node, limits, request_spec,
                         accel_uuids, reimage_boot_volume=None,
                         target_state=None):
        from keel.compute.ops import rebuild as rebuild_ops
        rebuild_ops.rebuild_instance(
            self, context, instance, orig_image_ref, image_ref,
            injected_files, new_pass, orig_sys_metadata, bdms, recreate,
            on_shared_storage, preserve_ephemeral, migration, scheduled_node,
            limits, request_spec, accel_uuids,
            reimage_boot_volume=reimage_boot_volume,
            target_state=target_state)

    # -- RPC: snapshot and backup (keel.compute.ops.snapshot) ---------------
    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def snapshot_instance(self, context, image_id, instance):
        snapshot_ops.snapshot_instance(self, context, image_id, instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def backup_instance(self, context, image_id, instance, backup_type,
                        rotation):
        snapshot_ops.backup_instance(self, context, image_id, instance,
                                     backup_type, rotation)

    # -- RPC: shelve (keel.compute.ops.shelve) ------------------------------
    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def shelve_instance(self, context, instance, image_id, clean_shutdown,
                        accel_uuids=None):
        shelve_ops.shelve_instance(self, context, image_id, instance,
                                   clean_shutdown)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def shelve_offload_instance(self, context, instance, clean_shutdown,
                                accel_uuids=None):
        shelve_ops.shelve_offload_instance(self, context, instance,
                                           clean_shutdown)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def unshelve_instance(self, context, instance, image, filter_properties,
                          node, request_spec=None, accel_uuids=None):
        shelve_ops.unshelve_instance(self, context, instance, image,
                                     filter_properties, node, request_spec)

    @manager.periodic(spacing=CONF.shelved_poll_interval)
    def _poll_shelved_instances(self, context):
        """SHELVED instances past [DEFAULT]/shelved_offload_time are
        offloaded."""
        return shelve_ops.poll_shelved_instances(self, context)

    # -- RPC: volume attachments (keel.compute.ops.volume_attach) -----------
    @wrap_exception()
    @faults.wrap_instance_fault
    def reserve_block_device_name(self, context, instance, device, volume_id,
                                  disk_bus, device_type, tag, multiattach):
        return volume_attach_ops.reserve_block_device_name(
            self, context, instance, device, volume_id, disk_bus,
            device_type, tag, multiattach)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def attach_volume(self, context, instance, bdm):
        volume_attach_ops.attach_volume(self, context, instance, bdm)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def detach_volume(self, context, volume_id, instance,
                      attachment_id=None):
        volume_attach_ops.detach_volume(self, context, volume_id, instance,
                                        attachment_id)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def remove_volume_connection(self, context, volume_id, instance,
                                 delete_attachment=False):
        volume_attach_ops.remove_volume_connection(
            self, context, volume_id, instance, delete_attachment)

    # -- RPC: interface attachments (keel.compute.ops.interfaces) ----------
    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def attach_interface(self, context, instance, network_id, port_id,
                         requested_ip, tag=None):
        return interface_ops.attach_interface(
            self, context, instance, network_id, port_id, requested_ip, tag)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def detach_interface(self, context, instance, port_id):
        interface_ops.detach_interface(self, context, instance, port_id)

    # -- RPC: resize / cold migration (keel.compute.ops.resize*) ----------
    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def prep_resize(self, context, image, instance, flavor, request_spec,
                    filter_properties, node, clean_shutdown, migration,
                    host_list=None):
        resize_dest.prep_resize(self, context, image, instance, flavor,
                                request_spec, filter_properties, node,
                                clean_shutdown, migration, host_list)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def resize_instance(self, context, instance, image, migration, flavor,
                        clean_shutdown, request_spec=None):
        resize_ops.resize_instance(self, context, instance, image, migration,
                                   flavor, clean_shutdown, request_spec)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def finish_resize(self, context, disk_info, image, instance, migration,
                      request_spec=None):
        resize_dest.finish_resize(self, context, disk_info, image, instance,
                                  migration, request_spec)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def confirm_resize(self, context, instance, migration):
        resize_ops.confirm_resize(self, context, instance, migration)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def revert_resize(self, context, instance, migration, request_spec=None):
        resize_dest.revert_resize(self, context, instance, migration,
                                  request_spec)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def finish_revert_resize(self, context, instance, migration,
                             request_spec=None):
        resize_ops.finish_revert_resize(self, context, instance, migration,
                                        request_spec)

    # -- RPC: live migration (keel.compute.ops.live_migration) --------------
    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def check_can_live_migrate_destination(self, ctxt, instance,
                                           block_migration, disk_over_commit,
                                           migration, limits):
        return live_migration_ops.check_can_live_migrate_destination(
            self, ctxt, instance, block_migration, disk_over_commit,
            migration, limits)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def check_can_live_migrate_source(self, ctxt, instance,
                                      dest_check_data):
        return live_migration_ops.check_can_live_migrate_source(
            self, ctxt, instance, dest_check_data)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def pre_live_migration(self, context, instance, disk, migrate_data,
                           block_migration=None):
        return live_migration_ops.pre_live_migration(
            self, context, instance, block_migration, disk, migrate_data)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def live_migration(self, context, dest, instance, block_migration,
                       migration, migrate_data):
        with self.instance_lock(instance.uuid):
            live_migration_ops.live_migration(
                self, context, dest, instance, block_migration, migration,
                migrate_data)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def post_live_migration_at_destination(self, context, instance,
                                           block_migration):
        live_migration_ops.post_live_migration_at_destination(
            self, context, instance, block_migration)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def rollback_live_migration_at_destination(self, context, instance,
                                               destroy_disks, migrate_data):
        live_migration_ops.rollback_live_migration_at_destination(
            self, context, instance, destroy_disks, migrate_data)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def live_migration_abort(self, context, instance, migration_id):
        live_migration_ops.live_migration_abort(self, context, instance,
                                                migration_id)

    @wrap_exception()
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def live_migration_force_complete(self, context, instance):
        live_migration_ops.live_migration_force_complete(self, context,
                                                         instance)

    # -- RPC: admin password and network info -----------------------------
    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def set_admin_password(self, context, instance, new_pass):
        admin_password_ops.set_admin_password(self, context.elevated(),
                                              instance, new_pass)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def inject_network_info(self, context, instance):
        network_info_ops.inject_network_info(self, context, instance)

    @wrap_exception()
    @faults.wrap_instance_fault
    def get_diagnostics(self, context, instance):
        return diagnostics_ops.get_diagnostics(self, context, instance)

    @wrap_exception()
    @faults.wrap_instance_fault
    def get_instance_diagnostics(self, context, instance):
        return diagnostics_ops.get_instance_diagnostics(self, context,
                                                        instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def add_fixed_ip_to_instance(self, context, network_id, instance):
        network_info_ops.add_fixed_ip_to_instance(self, context, network_id,
                                                  instance)

    @wrap_exception()
    @faults.reverts_task_state
    @events.wrap_instance_event(prefix="compute")
    @faults.wrap_instance_fault
    def remove_fixed_ip_from_instance(self, context, address, instance):
        network_info_ops.remove_fixed_ip_from_instance(self, context,
                                                       address, instance)

    @wrap_exception()
    @faults.wrap_instance_fault
    def get_spice_console(self, context, instance, console_type):
        return console_ops.get_spice_console(self, context.elevated(),
                                             instance, console_type)
