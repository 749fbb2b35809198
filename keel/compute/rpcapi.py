"""Client of the compute service (topics ``compute`` / ``compute-alt``, 6.5).

Every message goes to one host: ``server=`` the explicit host or the
instance's host. Calls that belong to an operation already running on the
host go to ``compute-alt``, the topic a compute keeps serving while it shuts
down gracefully; with a cap below 6.5 they fall back to ``compute``.

The cap is ``[upgrade_levels]/compute``: a version, a release name or ``auto``
(the oldest nova-compute service version of all cells, looked up once per
process). Keel speaks the 6.x API only, as Nova 34 which refuses services
older than Gazpacho: a method whose version the cap excludes raises
``UnsupportedRPCVersion`` instead of sending a message the server cannot read.
"""
import threading

from oslo_log import log as logging
import oslo_messaging as messaging

from keel.conf import CONF
from keel import exception
from keel.rpc import router as rpc_router
from keel.rpc import serializer as rpc_serializer
from keel.rpc import transport as rpc_transport
from keel.rpc import versions

LOG = logging.getLogger(__name__)

RPC_TOPIC = "compute"
RPC_TOPIC_ALT = "compute-alt"

_ROUTER = None
_router_lock = threading.Lock()


def reset_globals():
    """Forget the router and the auto cap (tests; SIGHUP)."""
    global _ROUTER
    with _router_lock:
        _ROUTER = None
    versions.reset_cache()


def _compute_host(host, instance):
    if host:
        return host
    if not instance:
        raise exception.NovaException("No compute host specified")
    if not instance.host:
        raise exception.NovaException(
            f"Unable to find host for Instance {instance.uuid}")
    return instance.host


def _long():
    # Long calls: the server heartbeats every rpc_response_timeout, so a dead
    # server is noticed early although the whole call may last long.
    return {"timeout": CONF.long_rpc_timeout,
            "call_monitor_timeout": CONF.rpc_response_timeout}


class ComputeAPI:
    """Nova's compute RPC client methods, with Nova's arguments."""

    @property
    def router(self):
        global _ROUTER
        if _ROUTER is None:
            with _router_lock:
                if _ROUTER is None:
                    target = messaging.Target(topic=RPC_TOPIC, version="6.0")
                    cmt = (rpc_transport.HEARTBEAT_THRESHOLD
                           if CONF.rpc_response_timeout >
                           rpc_transport.HEARTBEAT_THRESHOLD else None)
                    _ROUTER = rpc_router.make_router(
                        target, versions.compute_cap(),
                        rpc_serializer.object_serializer(),
                        call_monitor_timeout=cmt)
        return _ROUTER

    def _prepare(self, ctxt, server, version="6.0", alt=False, **kw):
        client = self.router.client(ctxt)
        if not client.can_send_version(version):
            raise versions.UnsupportedRPCVersion(
                api=f"compute {version}", required=version)
        topic = RPC_TOPIC
        if alt:
            topic = RPC_TOPIC_ALT if client.can_send_version("6.5") \
                else RPC_TOPIC
        return client.prepare(server=server, version=version, topic=topic,
                              **kw)

    def _cast(self, ctxt, server, method, version="6.0", alt=False, **kw):
        self._prepare(ctxt, server, version, alt).cast(ctxt, method, **kw)

    def _call(self, ctxt, server, method, version="6.0", alt=False,
              long=False, **kw):
        opts = _long() if long else {}
        return self._prepare(ctxt, server, version, alt, **opts).call(
            ctxt, method, **kw)

    def can_send_version(self, ctxt, version):
        return self.router.client(ctxt).can_send_version(version)

    # -- host-level -----------------------------------------------------------
    def get_host_uptime(self, ctxt, host):
        return self._call(ctxt, host, "get_host_uptime")

    def host_maintenance_mode(self, ctxt, host, host_param, mode):
        return self._call(ctxt, host, "host_maintenance_mode",
                          host=host_param, mode=mode)

    def host_power_action(self, ctxt, host, action):
        return self._call(ctxt, host, "host_power_action", action=action)

    def set_host_enabled(self, ctxt, host, enabled):
        return self._call(ctxt, host, "set_host_enabled", long=True,
                          enabled=enabled)

    def cache_images(self, ctxt, host, image_ids):
        return self._call(ctxt, host, "cache_images", long=True,
                          image_ids=image_ids)

    def external_instance_event(self, ctxt, instances, events, host=None):
        self._cast(ctxt, _compute_host(host, instances[0]),
                   "external_instance_event", alt=True,
                   instances=instances, events=events)

    # -- build, delete, power -------------------------------------------------
    def build_and_run_instance(self, ctxt, instance, host, image,
                               request_spec, filter_properties,
                               admin_password=None, injected_files=None,
                               requested_networks=None, security_groups=None,
                               block_device_mapping=None, node=None,
                               limits=None, host_list=None, accel_uuids=None):
        self._cast(ctxt, host, "build_and_run_instance", instance=instance,
                   image=image, request_spec=request_spec,
                   filter_properties=filter_properties,
                   admin_password=admin_password,
                   injected_files=injected_files,
                   requested_networks=requested_networks,
                   security_groups=security_groups,
                   block_device_mapping=block_device_mapping, node=node,
                   limits=limits, host_list=host_list,
                   accel_uuids=accel_uuids)

    def terminate_instance(self, ctxt, instance, bdms):
        self._cast(ctxt, _compute_host(None, instance), "terminate_instance",
                   instance=instance, bdms=bdms)

    def soft_delete_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance),
                   "soft_delete_instance", instance=instance)

    def restore_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "restore_instance",
                   instance=instance)

    def start_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "start_instance",
                   instance=instance)

    def stop_instance(self, ctxt, instance, do_cast=True,
                      clean_shutdown=True):
        cctxt = self._prepare(ctxt, _compute_host(None, instance))
        send = cctxt.cast if do_cast else cctxt.call
        return send(ctxt, "stop_instance", instance=instance,
                    clean_shutdown=clean_shutdown)

    def reboot_instance(self, ctxt, instance, block_device_info,
                        reboot_type):
        self._cast(ctxt, _compute_host(None, instance), "reboot_instance",
                   instance=instance, block_device_info=block_device_info,
                   reboot_type=reboot_type)

    def pause_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "pause_instance",
                   instance=instance)

    def unpause_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "unpause_instance",
                   instance=instance)

    def suspend_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "suspend_instance",
                   instance=instance)

    def resume_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "resume_instance",
                   instance=instance)

    def trigger_crash_dump(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "trigger_crash_dump",
                   instance=instance)

    def rescue_instance(self, ctxt, instance, rescue_password,
                        rescue_image_ref=None, clean_shutdown=True):
        self._cast(ctxt, _compute_host(None, instance), "rescue_instance",
                   instance=instance, rescue_password=rescue_password,
                   rescue_image_ref=rescue_image_ref,
                   clean_shutdown=clean_shutdown)

    def unrescue_instance(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "unrescue_instance",
                   instance=instance)

    def set_admin_password(self, ctxt, instance, new_pass):
        return self._call(ctxt, _compute_host(None, instance),
                          "set_admin_password", instance=instance,
                          new_pass=new_pass)

    def rebuild_instance(self, ctxt, instance, new_pass, injected_files,
                         image_ref, orig_image_ref, orig_sys_metadata, bdms,
                         recreate, on_shared_storage, host, node,
                         preserve_ephemeral, migration, limits, request_spec,
                         accel_uuids, reimage_boot_volume, target_state):
        kw = dict(instance=instance, new_pass=new_pass,
                  injected_files=injected_files, image_ref=image_ref,
                  orig_image_ref=orig_image_ref,
                  orig_sys_metadata=orig_sys_metadata, bdms=bdms,
                  recreate=recreate, on_shared_storage=on_shared_storage,
                  preserve_ephemeral=preserve_ephemeral, migration=migration,
                  scheduled_node=node, limits=limits,
                  request_spec=request_spec, accel_uuids=accel_uuids,
                  reimage_boot_volume=reimage_boot_volume,
                  target_state=target_state)
        version = "6.2"
        if not self.can_send_version(ctxt, version):
            if target_state:
                raise versions.UnsupportedRPCVersion(
                    api="rebuild_instance", required=version)
            del kw["target_state"]
            version = "6.1"
        if not self.can_send_version(ctxt, version):
            if reimage_boot_volume:
                raise versions.UnsupportedRPCVersion(
                    api="rebuild_instance", required=version)
            del kw["reimage_boot_volume"]
            version = "6.0"
        self._cast(ctxt, _compute_host(host, instance), "rebuild_instance",
                   version=version, **kw)

    # -- snapshots, backups, shelve -------------------------------------------
    def snapshot_instance(self, ctxt, instance, image_id):
        self._cast(ctxt, _compute_host(None, instance), "snapshot_instance",
                   instance=instance, image_id=image_id)

    def backup_instance(self, ctxt, instance, image_id, backup_type,
                        rotation):
        self._cast(ctxt, _compute_host(None, instance), "backup_instance",
                   instance=instance, image_id=image_id,
                   backup_type=backup_type, rotation=rotation)

    def shelve_instance(self, ctxt, instance, image_id=None,
                        clean_shutdown=True, accel_uuids=None):
        self._cast(ctxt, _compute_host(None, instance), "shelve_instance",
                   instance=instance, image_id=image_id,
                   clean_shutdown=clean_shutdown, accel_uuids=accel_uuids)

    def shelve_offload_instance(self, ctxt, instance, clean_shutdown=True,
                                accel_uuids=None):
        self._cast(ctxt, _compute_host(None, instance),
                   "shelve_offload_instance", instance=instance,
                   clean_shutdown=clean_shutdown, accel_uuids=accel_uuids)

    def unshelve_instance(self, ctxt, instance, host, request_spec,
                          image=None, filter_properties=None, node=None,
                          accel_uuids=None):
        self._cast(ctxt, host, "unshelve_instance", instance=instance,
                   image=image, filter_properties=filter_properties,
                   node=node, request_spec=request_spec,
                   accel_uuids=accel_uuids)

    def quiesce_instance(self, ctxt, instance):
        return self._call(ctxt, _compute_host(None, instance),
                          "quiesce_instance", instance=instance)

    def unquiesce_instance(self, ctxt, instance, mapping=None):
        self._cast(ctxt, _compute_host(None, instance), "unquiesce_instance",
                   instance=instance, mapping=mapping)

    # -- resize and cold migration --------------------------------------------
    def prep_resize(self, ctxt, instance, image, flavor, host, migration,
                    request_spec, filter_properties, node, clean_shutdown,
                    host_list):
        self._cast(ctxt, host, "prep_resize", instance=instance, image=image,
                   flavor=flavor, migration=migration,
                   request_spec=request_spec,
                   filter_properties=filter_properties, node=node,
                   clean_shutdown=clean_shutdown, host_list=host_list)

    def resize_instance(self, ctxt, instance, migration, image, flavor,
                        request_spec, clean_shutdown=True):
        self._cast(ctxt, _compute_host(None, instance), "resize_instance",
                   alt=True, instance=instance, migration=migration,
                   image=image, flavor=flavor, request_spec=request_spec,
                   clean_shutdown=clean_shutdown)

    def finish_resize(self, ctxt, instance, migration, image, disk_info,
                      host, request_spec):
        self._cast(ctxt, host, "finish_resize", alt=True, instance=instance,
                   migration=migration, image=image, disk_info=disk_info,
                   request_spec=request_spec)

    def confirm_resize(self, ctxt, instance, migration, host, cast=True):
        cctxt = self._prepare(ctxt, _compute_host(host, instance))
        send = cctxt.cast if cast else cctxt.call
        return send(ctxt, "confirm_resize", instance=instance,
                    migration=migration)

    def revert_resize(self, ctxt, instance, migration, host, request_spec):
        self._cast(ctxt, _compute_host(host, instance), "revert_resize",
                   instance=instance, migration=migration,
                   request_spec=request_spec)

    def finish_revert_resize(self, ctxt, instance, migration, host,
                             request_spec):
        self._cast(ctxt, host, "finish_revert_resize", alt=True,
                   instance=instance, migration=migration,
                   request_spec=request_spec)

    def prep_snapshot_based_resize_at_dest(self, ctxt, instance, flavor,
                                           nodename, migration, limits,
                                           request_spec, destination):
        return self._call(ctxt, destination,
                          "prep_snapshot_based_resize_at_dest", long=True,
                          instance=instance, flavor=flavor, nodename=nodename,
                          migration=migration, limits=limits)

    def prep_snapshot_based_resize_at_source(self, ctxt, instance, migration,
                                             snapshot_id=None):
        return self._call(ctxt, _compute_host(None, instance),
                          "prep_snapshot_based_resize_at_source", alt=True,
                          long=True, instance=instance, migration=migration,
                          snapshot_id=snapshot_id)

    def finish_snapshot_based_resize_at_dest(self, ctxt, instance, migration,
                                             snapshot_id, request_spec):
        return self._call(ctxt, migration.dest_compute,
                          "finish_snapshot_based_resize_at_dest", alt=True,
                          long=True, instance=instance, migration=migration,
                          snapshot_id=snapshot_id)

    def confirm_snapshot_based_resize_at_source(self, ctxt, instance,
                                                migration):
        return self._call(ctxt, migration.source_compute,
                          "confirm_snapshot_based_resize_at_source",
                          long=True, instance=instance, migration=migration)

    def revert_snapshot_based_resize_at_dest(self, ctxt, instance,
                                             migration):
        return self._call(ctxt, migration.dest_compute,
                          "revert_snapshot_based_resize_at_dest", long=True,
                          instance=instance, migration=migration)

    def finish_revert_snapshot_based_resize_at_source(self, ctxt, instance,
                                                      migration):
        return self._call(ctxt, migration.source_compute,
                          "finish_revert_snapshot_based_resize_at_source",
                          alt=True, long=True, instance=instance,
                          migration=migration)

    def check_instance_shared_storage(self, ctxt, data, instance=None,
                                      host=None):
        return self._call(ctxt, _compute_host(host, instance),
                          "check_instance_shared_storage", alt=True,
                          data=data)

    # -- live migration -------------------------------------------------------
    def check_can_live_migrate_destination(self, ctxt, instance, destination,
                                           block_migration, disk_over_commit,
                                           migration, limits):
        return self._call(ctxt, destination,
                          "check_can_live_migrate_destination", long=True,
                          instance=instance, block_migration=block_migration,
                          disk_over_commit=disk_over_commit,
                          migration=migration, limits=limits)

    def check_can_live_migrate_source(self, ctxt, instance, dest_check_data):
        return self._call(ctxt, _compute_host(None, instance),
                          "check_can_live_migrate_source", instance=instance,
                          dest_check_data=dest_check_data)

    def pre_live_migration(self, ctxt, instance, block_migration, disk, host,
                           migrate_data):
        return self._call(ctxt, host, "pre_live_migration", alt=True,
                          long=True, instance=instance, disk=disk,
                          migrate_data=migrate_data)

    def live_migration(self, ctxt, instance, dest, block_migration, host,
                       migration, migrate_data=None):
        self._cast(ctxt, host, "live_migration", alt=True, instance=instance,
                   dest=dest, block_migration=block_migration,
                   migrate_data=migrate_data, migration=migration)

    def post_live_migration_at_destination(self, ctxt, instance,
                                           block_migration, host):
        return self._call(ctxt, host, "post_live_migration_at_destination",
                          alt=True, long=True, instance=instance,
                          block_migration=block_migration)

    def rollback_live_migration_at_destination(self, ctxt, instance, host,
                                               destroy_disks, migrate_data):
        self._cast(ctxt, host, "rollback_live_migration_at_destination",
                   alt=True, instance=instance, destroy_disks=destroy_disks,
                   migrate_data=migrate_data)

    def drop_move_claim_at_destination(self, ctxt, instance, host):
        self._call(ctxt, host, "drop_move_claim_at_destination", alt=True,
                   instance=instance)

    def live_migration_force_complete(self, ctxt, instance, migration):
        self._cast(ctxt, _compute_host(migration.source_compute, instance),
                   "live_migration_force_complete", instance=instance)

    def live_migration_abort(self, ctxt, instance, migration_id):
        self._cast(ctxt, _compute_host(None, instance),
                   "live_migration_abort", instance=instance,
                   migration_id=migration_id)

    def supports_numa_live_migration(self, ctxt):
        return self.can_send_version(ctxt, "6.0")

    # -- network and volumes --------------------------------------------------
    def add_fixed_ip_to_instance(self, ctxt, instance, network_id):
        self._cast(ctxt, _compute_host(None, instance),
                   "add_fixed_ip_to_instance", instance=instance,
                   network_id=network_id)

    def remove_fixed_ip_from_instance(self, ctxt, instance, address):
        self._cast(ctxt, _compute_host(None, instance),
                   "remove_fixed_ip_from_instance", instance=instance,
                   address=address)

    def inject_network_info(self, ctxt, instance):
        self._cast(ctxt, _compute_host(None, instance), "inject_network_info",
                   instance=instance)

    def attach_interface(self, ctxt, instance, network_id, port_id,
                         requested_ip, tag=None):
        return self._call(ctxt, _compute_host(None, instance),
                          "attach_interface", instance=instance,
                          network_id=network_id, port_id=port_id,
                          requested_ip=requested_ip, tag=tag)

    def detach_interface(self, ctxt, instance, port_id):
        self._cast(ctxt, _compute_host(None, instance), "detach_interface",
                   instance=instance, port_id=port_id)

    def reserve_block_device_name(self, ctxt, instance, device, volume_id,
                                  disk_bus, device_type, tag, multiattach):
        return self._call(ctxt, _compute_host(None, instance),
                          "reserve_block_device_name", long=True,
                          instance=instance, device=device,
                          volume_id=volume_id, disk_bus=disk_bus,
                          device_type=device_type, tag=tag,
                          multiattach=multiattach)

    def attach_volume(self, ctxt, instance, bdm):
        self._cast(ctxt, _compute_host(None, instance), "attach_volume",
                   instance=instance, bdm=bdm)

    def detach_volume(self, ctxt, instance, volume_id, attachment_id=None):
        self._cast(ctxt, _compute_host(None, instance), "detach_volume",
                   instance=instance, volume_id=volume_id,
                   attachment_id=attachment_id)

    def swap_volume(self, ctxt, instance, old_volume_id, new_volume_id,
                    new_attachment_id):
        self._cast(ctxt, _compute_host(None, instance), "swap_volume",
                   instance=instance, old_volume_id=old_volume_id,
                   new_volume_id=new_volume_id,
                   new_attachment_id=new_attachment_id)

    def remove_volume_connection(self, ctxt, instance, volume_id, host,
                                 delete_attachment=False):
        kw = dict(instance=instance, volume_id=volume_id,
                  delete_attachment=delete_attachment)
        version = "6.3"
        if not self.can_send_version(ctxt, version):
            kw.pop("delete_attachment")
            version = "6.0"
        return self._call(ctxt, host, "remove_volume_connection",
                          version=version, alt=True, **kw)

    def volume_snapshot_create(self, ctxt, instance, volume_id, create_info):
        self._cast(ctxt, _compute_host(None, instance),
                   "volume_snapshot_create", instance=instance,
                   volume_id=volume_id, create_info=create_info)

    def volume_snapshot_delete(self, ctxt, instance, volume_id, snapshot_id,
                               delete_info):
        self._cast(ctxt, _compute_host(None, instance),
                   "volume_snapshot_delete", instance=instance,
                   volume_id=volume_id, snapshot_id=snapshot_id,
                   delete_info=delete_info)

    def allow_share(self, ctxt, instance, share_mapping):
        self._cast(ctxt, _compute_host(None, instance), "allow_share",
                   version="6.4", instance=instance,
                   share_mapping=share_mapping)

    def deny_share(self, ctxt, instance, share_mapping):
        self._cast(ctxt, _compute_host(None, instance), "deny_share",
                   version="6.4", instance=instance,
                   share_mapping=share_mapping)

    # -- consoles and diagnostics ---------------------------------------------
    def get_console_output(self, ctxt, instance, tail_length):
        return self._call(ctxt, _compute_host(None, instance),
                          "get_console_output", instance=instance,
                          tail_length=tail_length)

    def _console(self, ctxt, method, instance, console_type):
        return self._call(ctxt, _compute_host(None, instance), method,
                          instance=instance, console_type=console_type)

    def get_vnc_console(self, ctxt, instance, console_type):
        return self._console(ctxt, "get_vnc_console", instance, console_type)

    def get_spice_console(self, ctxt, instance, console_type):
        return self._console(ctxt, "get_spice_console", instance,
                             console_type)

    def get_mks_console(self, ctxt, instance, console_type):
        return self._console(ctxt, "get_mks_console", instance, console_type)

    def get_serial_console(self, ctxt, instance, console_type):
        return self._console(ctxt, "get_serial_console", instance,
                             console_type)

    def validate_console_port(self, ctxt, instance, port, console_type):
        return self._call(ctxt, _compute_host(None, instance),
                          "validate_console_port", alt=True,
                          instance=instance, port=port,
                          console_type=console_type)

    def get_diagnostics(self, ctxt, instance):
        return self._call(ctxt, _compute_host(None, instance),
                          "get_diagnostics", instance=instance)

    def get_instance_diagnostics(self, ctxt, instance):
        return self._call(ctxt, _compute_host(None, instance),
                          "get_instance_diagnostics", instance=instance)
