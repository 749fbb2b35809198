"""The virt driver contract: what the compute manager asks of a hypervisor.

Method names and arguments follow Nova's ``nova.virt.driver.ComputeDriver``
so the compute manager can be written the way Nova's is.  A driver that
cannot do something leaves the base method, which raises
``NotImplementedError``; the manager turns that into Nova's "not supported"
answer.  Capability flags become ``COMPUTE_*`` traits on the host's
resource provider (see ``CAPABILITY_TRAITS_MAP``) so the scheduler can
filter on them.

Also here: the helpers every driver uses to build its standard inventory
(allocation ratios and reserved amounts from ``[DEFAULT]``, by Nova's rules)
and ``load_compute_driver`` for ``[DEFAULT]/compute_driver``.
"""
import collections
import importlib
import math

import os_resource_classes as orc
import os_traits

from keel import exception

# Capability flag -> the standard trait that advertises it.  Flags without
# an entry (e.g. supports_evacuate) only steer the compute manager.
CAPABILITY_TRAITS_MAP = {
    "supports_attach_interface": os_traits.COMPUTE_NET_ATTACH_INTERFACE,
    "supports_device_tagging": os_traits.COMPUTE_DEVICE_TAGGING,
    "supports_tagged_attach_interface":
        os_traits.COMPUTE_NET_ATTACH_INTERFACE_WITH_TAG,
    "supports_tagged_attach_volume": os_traits.COMPUTE_VOLUME_ATTACH_WITH_TAG,
    "supports_extend_volume": os_traits.COMPUTE_VOLUME_EXTEND,
    "supports_multiattach": os_traits.COMPUTE_VOLUME_MULTI_ATTACH,
    "supports_trusted_certs": os_traits.COMPUTE_TRUSTED_CERTS,
    "supports_accelerators": os_traits.COMPUTE_ACCELERATORS,
    "supports_migrate_to_same_host": os_traits.COMPUTE_SAME_HOST_COLD_MIGRATE,
    "supports_bfv_rescue": os_traits.COMPUTE_RESCUE_BFV,
    "supports_secure_boot": os_traits.COMPUTE_SECURITY_UEFI_SECURE_BOOT,
    "supports_socket_pci_numa_affinity":
        os_traits.COMPUTE_SOCKET_PCI_NUMA_AFFINITY,
    "supports_remote_managed_ports": os_traits.COMPUTE_REMOTE_MANAGED_PORTS,
    "supports_virtio_fs": os_traits.COMPUTE_STORAGE_VIRTIO_FS,
    "supports_mem_backing_file": os_traits.COMPUTE_MEM_BACKING_FILE,
}
for _fmt in ("aki", "ami", "ari", "iso", "qcow2", "raw", "vdi", "vhd",
             "vhdx", "vmdk", "ploop"):
    CAPABILITY_TRAITS_MAP["supports_image_type_" + _fmt] = getattr(
        os_traits, "COMPUTE_IMAGE_TYPE_" + _fmt.upper())

# (state, internal_id): what get_info returns; state is a power_state value.
InstanceInfo = collections.namedtuple("InstanceInfo", ["state", "internal_id"])
InstanceInfo.__new__.__defaults__ = (None,)

# Console endpoints the console proxies connect to.
ConsoleVNC = collections.namedtuple(
    "ConsoleVNC", ["host", "port", "internal_access_path"])
ConsoleVNC.__new__.__defaults__ = (None,)
ConsoleSerial = collections.namedtuple(
    "ConsoleSerial", ["host", "port", "internal_access_path"])
ConsoleSerial.__new__.__defaults__ = (None,)
ConsoleSpice = collections.namedtuple(
    "ConsoleSpice", ["host", "port", "tlsPort", "internal_access_path"])
ConsoleSpice.__new__.__defaults__ = (None,)

# Standard resource class -> ([DEFAULT] ratio option, initial_* fallback).
_RATIO_OPTS = {
    orc.VCPU: "cpu_allocation_ratio",
    orc.MEMORY_MB: "ram_allocation_ratio",
    orc.DISK_GB: "disk_allocation_ratio",
}


def allocation_ratios(conf, inventory):
    """Allocation ratio per standard resource class, by Nova's rule.

    An explicit ``[DEFAULT]/*_allocation_ratio`` wins; without one, a ratio
    already in Placement is kept (an operator may have set it through the
    Placement API); a brand new inventory gets ``initial_*_allocation_ratio``.
    ``inventory`` is the provider's current inventory.
    """
    ratios = {}
    for rc, opt in _RATIO_OPTS.items():
        configured = getattr(conf, opt)
        if configured is not None:
            ratios[rc] = configured
        elif rc in (inventory or {}):
            ratios[rc] = inventory[rc]["allocation_ratio"]
        else:
            ratios[rc] = getattr(conf, "initial_" + opt)
    return ratios


def mb_to_ceil_gb(mb):
    """Reserved disk is configured in MiB but DISK_GB counts GiB: round up
    so the reservation is never smaller than asked."""
    return int(math.ceil(mb / 1024.0)) if mb else 0


def reserved_amounts(conf):
    return {
        orc.VCPU: conf.reserved_host_cpus,
        orc.MEMORY_MB: conf.reserved_host_memory_mb,
        orc.DISK_GB: mb_to_ceil_gb(conf.reserved_host_disk_mb),
    }


def standard_inventory(conf, totals, current_inventory):
    """VCPU/MEMORY_MB/DISK_GB inventory records for Placement.

    ``totals`` maps resource class to the host's physical amount; a class
    with 0 is left out (Placement refuses a zero total).
    """
    ratios = allocation_ratios(conf, current_inventory)
    reserved = reserved_amounts(conf)
    inventory = {}
    for rc, total in totals.items():
        if not total:
            continue
        inventory[rc] = {
            "total": total,
            # Placement accepts reserved == total (1.26), never more.
            "reserved": min(reserved.get(rc, 0), total),
            "min_unit": 1,
            "max_unit": total,
            "step_size": 1,
            "allocation_ratio": ratios.get(rc, 1.0),
        }
    return inventory


class ComputeDriver(object):
    """Base class of keel's virt drivers (Nova's contract)."""

    capabilities = {
        "has_imagecache": False,
        "supports_evacuate": False,
        "supports_migrate_to_same_host": False,
        "supports_attach_interface": False,
        "supports_device_tagging": False,
        "supports_tagged_attach_interface": False,
        "supports_tagged_attach_volume": False,
        "supports_extend_volume": False,
        "supports_multiattach": False,
        "supports_trusted_certs": False,
        "supports_pcpus": False,
        "supports_accelerators": False,
        "supports_bfv_rescue": False,
        "supports_vtpm": False,
        "supports_secure_boot": False,
        "supports_socket_pci_numa_affinity": False,
        "supports_remote_managed_ports": False,
        "supports_virtio_fs": False,
        "supports_mem_backing_file": False,
        "supports_image_type_aki": False,
        "supports_image_type_ami": False,
        "supports_image_type_ari": False,
        "supports_image_type_iso": False,
        "supports_image_type_qcow2": False,
        "supports_image_type_raw": False,
        "supports_image_type_vdi": False,
        "supports_image_type_vhd": False,
        "supports_image_type_vhdx": False,
        "supports_image_type_vmdk": False,
        "supports_image_type_ploop": False,
    }

    # Only Ironic moves nodes between services; no keel driver does.
    rebalances_nodes = False

    def __init__(self, virtapi=None):
        self.virtapi = virtapi
        self._compute_event_callback = None

    # -- host -----------------------------------------------------------------
    def init_host(self, host):
        """Connect to the hypervisor and catch up with existing guests."""
        raise NotImplementedError()

    def cleanup_host(self, host):
        """Release hypervisor connections on a graceful stop."""

    def get_host_uptime(self):
        raise NotImplementedError()

    def get_host_ip_addr(self):
        raise NotImplementedError()

    def set_host_enabled(self, enabled):
        """Stop (or resume) taking new guests; "enabled"/"disabled"."""
        raise NotImplementedError()

    def host_maintenance_mode(self, host, mode):
        """Enter or leave maintenance; "on_maintenance"/"off_maintenance"."""
        raise NotImplementedError()

    def host_power_action(self, action):
        """Reboot, shut down or start the host; answers the action."""
        raise NotImplementedError()

    def capabilities_as_traits(self):
        """``{trait: bool}`` for every capability that maps to a trait; the
        resource tracker adds the True ones and removes the False ones."""
        return {trait: bool(self.capabilities.get(cap, False))
                for cap, trait in CAPABILITY_TRAITS_MAP.items()}

    # -- resources -----------------------------------------------------------
    def get_available_nodes(self, refresh=False):
        """Names of the compute nodes this driver manages."""
        raise NotImplementedError()

    def get_nodenames_by_uuid(self, refresh=False):
        """``{node uuid: node name}``; a driver that has stable node uuids
        returns them so the compute node records keep theirs."""
        raise NotImplementedError()

    def node_is_available(self, nodename):
        return nodename in self.get_available_nodes()

    def get_available_resource(self, nodename):
        """The node's resources as a dict of compute_nodes fields: vcpus,
        memory_mb, local_gb, vcpus_used, memory_mb_used, local_gb_used,
        hypervisor_type, hypervisor_version, hypervisor_hostname, cpu_info,
        disk_available_least, ... (and ``uuid`` when the driver knows it)."""
        raise NotImplementedError()

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        """Edit ``provider_tree`` (a ProviderTree copy whose root is this
        node) to hold the node's inventory, traits and child providers."""
        raise NotImplementedError()

    # -- instance inventory -------------------------------------------------
    def get_info(self, instance, use_cache=True):
        """InstanceInfo of ``instance``; InstanceNotFound if not there."""
        raise NotImplementedError()

    def list_instances(self):
        raise NotImplementedError()

    def list_instance_uuids(self):
        raise NotImplementedError()

    def instance_exists(self, instance):
        try:
            return instance.uuid in self.list_instance_uuids()
        except NotImplementedError:
            return instance.name in self.list_instances()

    def get_num_instances(self):
        return len(self.list_instances())

    # -- build and delete -----------------------------------------------------
    def prepare_for_spawn(self, instance):
        """Checks and tagging before spawn."""

    def failed_spawn_cleanup(self, instance):
        """Undo prepare_for_spawn after a failed spawn (idempotent)."""

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None, power_on=True, accel_info=None):
        """Create the guest; RUNNING afterwards if ``power_on`` else
        SHUTDOWN.  Any exception makes the manager reschedule the build."""
        raise NotImplementedError()

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        """Remove the guest; must succeed when it is already gone."""
        raise NotImplementedError()

    def cleanup(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, migrate_data=None, destroy_vifs=True,
                destroy_secrets=True):
        """Release what remains of a guest after destroy (disks, vifs)."""
        raise NotImplementedError()

    def rebuild(self, context, instance, image_meta, injected_files,
                admin_password, allocations, bdms, detach_block_devices,
                attach_block_devices, network_info=None, evacuate=False,
                block_device_info=None, preserve_ephemeral=False,
                accel_uuids=None):
        """Driver-specific rebuild; NotImplementedError makes the manager
        rebuild by destroy + spawn."""
        raise NotImplementedError()

    # -- power ----------------------------------------------------------------
    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None, share_info=None):
        """``reboot_type`` is "SOFT" or "HARD"."""
        raise NotImplementedError()

    def power_off(self, instance, timeout=0, retry_interval=0):
        """Stop the guest: graceful for ``timeout`` seconds, then forced."""
        raise NotImplementedError()

    def power_on(self, context, instance, network_info, block_device_info=None,
                 accel_info=None, share_info=None):
        raise NotImplementedError()

    def pause(self, instance):
        raise NotImplementedError()

    def unpause(self, instance):
        raise NotImplementedError()

    def suspend(self, context, instance):
        raise NotImplementedError()

    def resume(self, context, instance, network_info, block_device_info=None,
               share_info=None):
        raise NotImplementedError()

    def resume_state_on_host_boot(self, context, instance, network_info,
                                  share_info=None, block_device_info=None):
        raise NotImplementedError()

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info, share_info=None):
        raise NotImplementedError()

    def unrescue(self, context, instance):
        raise NotImplementedError()

    def set_admin_password(self, instance, new_pass):
        raise NotImplementedError()

    def trigger_crash_dump(self, instance):
        raise NotImplementedError()

    def poll_rebooting_instances(self, timeout, instances):
        """Act on instances stuck in a reboot longer than ``timeout``."""
        raise NotImplementedError()

    # -- images ---------------------------------------------------------------
    def snapshot(self, context, instance, image_id, update_task_state):
        """Upload the guest's root disk as image ``image_id``; call
        ``update_task_state(task_state=..., expected_state=...)`` on the
        way (image_pending_upload, then image_uploading)."""
        raise NotImplementedError()

    # -- resize / cold migration -------------------------------------------
    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info, block_device_info=None,
                                   timeout=0, retry_interval=0):
        """Source side of resize: stop the guest, hand its disks over;
        returns disk_info for finish_migration."""
        raise NotImplementedError()

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        """Destination side of resize: build the guest with the new flavor."""
        raise NotImplementedError()

    def confirm_migration(self, context, migration, instance, network_info):
        """Drop what the source kept for a revert."""
        raise NotImplementedError()

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        """Bring the guest back on the source with the old flavor."""
        raise NotImplementedError()

    # -- live migration ------------------------------------------------------
    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        """Destination pre-check; returns migrate data for the source."""
        raise NotImplementedError()

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        raise NotImplementedError()

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data,
                                      block_device_info=None):
        """Source pre-check; MigrationPreCheckError if not migratable."""
        raise NotImplementedError()

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        raise NotImplementedError()

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        """Run the migration; call ``post_method`` on success or
        ``recover_method`` on failure (both with context, instance, dest,
        block_migration, migrate_data)."""
        raise NotImplementedError()

    def live_migration_abort(self, instance):
        raise NotImplementedError()

    def live_migration_force_complete(self, instance):
        raise NotImplementedError()

    def post_live_migration(self, context, instance, block_device_info,
                            migrate_data=None):
        raise NotImplementedError()

    def post_live_migration_at_source(self, context, instance, network_info):
        raise NotImplementedError()

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        raise NotImplementedError()

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        raise NotImplementedError()

    # -- volumes and interfaces ----------------------------------------------
    def get_volume_connector(self, instance):
        """Connector properties Cinder needs to export a volume here."""
        raise NotImplementedError()

    def mount_share(self, context, instance, share_mapping):
        """Mount a Manila share on the host for the guest's virtiofs
        device (before power on)."""
        raise NotImplementedError()

    def umount_share(self, context, instance, share_mapping):
        """Unmount it after power off; returns whether the host still
        mounts it (another guest uses it)."""
        raise NotImplementedError()

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        raise NotImplementedError()

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        raise NotImplementedError()

    def extend_volume(self, context, connection_info, instance,
                      requested_size):
        raise NotImplementedError()

    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        """Snapshot an attached volume's file (Cinder-assisted)."""
        raise NotImplementedError()

    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        """Merge away an assisted snapshot of an attached volume."""
        raise NotImplementedError()

    def attach_interface(self, context, instance, image_meta, vif):
        raise NotImplementedError()

    def detach_interface(self, context, instance, vif):
        raise NotImplementedError()

    # -- consoles -------------------------------------------------------------
    def get_console_output(self, context, instance):
        """The guest's console log as text."""
        raise NotImplementedError()

    def get_vnc_console(self, context, instance):
        """A ConsoleVNC the console proxy connects to."""
        raise NotImplementedError()

    def get_serial_console(self, context, instance):
        """A ConsoleSerial the console proxy connects to."""
        raise NotImplementedError()

    # -- network info, diagnostics --------------------------------------------
    def inject_network_info(self, instance, nw_info):
        """Give the guest its network information (nothing by default)."""
        pass

    def get_diagnostics(self, instance):
        """The guest's diagnostics as the driver's own dict (API < 2.48)."""
        raise NotImplementedError()

    def get_instance_diagnostics(self, instance):
        """The guest's keel.objects.Diagnostics (API >= 2.48)."""
        raise NotImplementedError()

    def get_spice_console(self, context, instance):
        """A ConsoleSpice the console proxy connects to."""
        raise NotImplementedError()

    # -- lifecycle events -----------------------------------------------------
    def register_event_listener(self, callback):
        """``callback(event)`` receives every LifecycleEvent (None stops)."""
        self._compute_event_callback = callback

    def emit_event(self, event):
        """Deliver ``event`` to the listener; a failing listener must not
        break the driver, so its errors are logged and dropped."""
        if not self._compute_event_callback:
            return
        try:
            self._compute_event_callback(event)
        except Exception:  # noqa: BLE001 - the listener's bug, not ours
            import logging
            logging.getLogger(__name__).exception(
                "Lifecycle event listener failed on %s", event)


# [DEFAULT]/compute_driver values (Nova's, relative to nova.virt) -> class.
_DRIVERS = {
    "fake.FakeDriver": "keel.virt.fake.FakeDriver",
    "kubevirt.KubeVirtDriver": "keel.virt.kubevirt.driver.KubeVirtDriver",
}


def _class_path(name):
    short = name
    for prefix in ("nova.virt.", "keel.virt."):
        if short.startswith(prefix):
            short = short[len(prefix):]
    if short in _DRIVERS:
        return _DRIVERS[short]
    if name.startswith("keel.virt."):
        return name  # a keel driver named in full
    raise exception.ConfigInvalid(
        reason="compute_driver %r is not available in keel; use one of %s"
               % (name, ", ".join(sorted(_DRIVERS))))


def load_compute_driver(name=None, host=None, virtapi=None, conf=None,
                        **kwargs):
    """Instantiate the driver ``name`` (default ``[DEFAULT]/compute_driver``)
    for ``host``; extra keyword arguments go to the driver's constructor."""
    if conf is None:
        from keel.conf import CONF as conf
    name = name or conf.compute_driver
    path = _class_path(name)
    module_name, _dot, cls_name = path.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), cls_name)
    except (ImportError, AttributeError) as exc:
        raise exception.ConfigInvalid(
            reason="compute_driver %r cannot be loaded: %s" % (name, exc))
    if not issubclass(cls, ComputeDriver):
        raise exception.ConfigInvalid(
            reason="compute_driver %r is not a ComputeDriver" % name)
    return cls(virtapi=virtapi, host=host, conf=conf, **kwargs)
