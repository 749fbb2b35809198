"""A fake hypervisor: in-memory guests on simulated hosts.

One ``FakeDriver`` is one simulated host.  A compute process may hold many
(``keel compute --hosts N``), each with its own node name, node uuid and
resources -- from ``[fake_driver]`` unless given to the constructor -- so
scale tests can run hundreds of "hosts" without hypervisors.

Guests keep a power state and go through the same transitions a real
hypervisor would, emit lifecycle events, and can be made to fail:
``[fake_driver]/fail_operations`` or ``inject_failure()`` make chosen
operations raise (optionally only for one instance or a number of times),
and ``[fake_driver]/spawn_delay`` makes builds slow.
"""
import threading
import time
import uuid as uuid_lib

import os_resource_classes as orc

from keel import exception
from keel.virt import driver
from keel.virt import event as virtevent
from keel.virt import power_state


class FakeDriverError(exception.NovaException):
    msg_fmt = "Injected failure in fake driver operation %(operation)s"


class FakeInstance(object):
    __slots__ = ("uuid", "name", "state", "vcpus", "memory_mb", "disk_gb",
                 "volumes", "vifs", "rescued", "console", "shares")

    def __init__(self, instance, state):
        self.uuid = instance.uuid
        self.name = getattr(instance, "name", None) or instance.uuid
        self.state = state
        self.vcpus, self.memory_mb, self.disk_gb = _footprint(instance)
        self.volumes = {}
        self.vifs = {}
        self.rescued = False
        self.console = []
        self.shares = {}


def _footprint(instance):
    flavor = getattr(instance, "flavor", None)
    src = flavor if flavor is not None else instance

    def get(attr):
        try:
            return int(getattr(src, attr, 0) or 0)
        except Exception:  # noqa: BLE001 - unset object fields
            return 0
    return (get("vcpus"), get("memory_mb"),
            get("root_gb") + get("ephemeral_gb"))


class _Failure(object):
    def __init__(self, exc, times, instance_uuid):
        self.exc = exc
        self.times = times
        self.instance_uuid = instance_uuid


class FakeDriver(driver.ComputeDriver):
    capabilities = dict(
        driver.ComputeDriver.capabilities,
        has_imagecache=True,
        supports_evacuate=True,
        supports_migrate_to_same_host=True,
        supports_attach_interface=True,
        supports_device_tagging=True,
        supports_tagged_attach_interface=True,
        supports_tagged_attach_volume=True,
        supports_extend_volume=True,
        supports_multiattach=True,
        supports_trusted_certs=True,
        supports_image_type_raw=True,
        supports_image_type_qcow2=True,
        supports_virtio_fs=True,
        supports_mem_backing_file=True,
    )

    def __init__(self, virtapi=None, host=None, conf=None, nodename=None,
                 node_uuid=None, vcpus=None, memory_mb=None, local_gb=None,
                 spawn_delay=None, **_ignored):
        super().__init__(virtapi)
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf
        opts = conf.fake_driver
        self.host = host or conf.host
        self.nodename = nodename or self.host
        # Stable across restarts without any state file: derived from names.
        self.node_uuid = node_uuid or str(uuid_lib.uuid5(
            uuid_lib.NAMESPACE_URL,
            "keel-fake-node:%s:%s" % (self.host, self.nodename)))
        self.vcpus = opts.vcpus if vcpus is None else vcpus
        self.memory_mb = opts.memory_mb if memory_mb is None else memory_mb
        self.local_gb = opts.local_gb if local_gb is None else local_gb
        self.spawn_delay = (opts.spawn_delay if spawn_delay is None
                            else spawn_delay)
        self._lock = threading.RLock()
        self._instances = {}
        # {instance uuid: {mountpoint: connection info}}: volumes connected
        # to this host for a guest still arriving by live migration.
        self._incoming_volumes = {}
        self._failures = {}
        for op in opts.fail_operations:
            self.inject_failure(op)
        self._started_at = time.time()

    # -- failure injection ---------------------------------------------------
    def inject_failure(self, operation, exc=None, times=None,
                       instance_uuid=None):
        """Make ``operation`` raise ``exc`` (default FakeDriverError), for
        ``times`` calls (None = until cleared), optionally only for one
        instance."""
        with self._lock:
            self._failures.setdefault(operation, []).append(
                _Failure(exc, times, instance_uuid))

    def clear_failures(self, operation=None):
        with self._lock:
            if operation is None:
                self._failures.clear()
            else:
                self._failures.pop(operation, None)

    def _maybe_fail(self, operation, instance=None):
        inst_uuid = getattr(instance, "uuid", None)
        with self._lock:
            for failure in self._failures.get(operation, []):
                if failure.instance_uuid not in (None, inst_uuid):
                    continue
                if failure.times is not None:
                    if failure.times <= 0:
                        continue
                    failure.times -= 1
                raise failure.exc or FakeDriverError(operation=operation)

    # -- helpers --------------------------------------------------------------
    def _get(self, instance):
        try:
            return self._instances[instance.uuid]
        except KeyError:
            raise exception.InstanceNotFound(instance_id=instance.uuid)

    def _set_state(self, instance, state, transition=None):
        with self._lock:
            self._get(instance).state = state
        if transition is not None:
            self.emit_event(virtevent.LifecycleEvent(instance.uuid,
                                                     transition))

    def _place(self, instance, state):
        """(Re)create the guest with the instance's current flavor, keeping
        what a resize on the same host keeps: console, volumes, vifs."""
        with self._lock:
            new = FakeInstance(instance, state)
            old = self._instances.get(instance.uuid)
            if old is not None:
                new.console, new.volumes, new.vifs = (old.console,
                                                      old.volumes, old.vifs)
            new.console.append("fake guest %s started on %s"
                               % (instance.uuid, self.host))
            self._instances[instance.uuid] = new

    # -- host -----------------------------------------------------------------
    def init_host(self, host):
        """Nothing to connect to."""

    def get_host_uptime(self):
        up = int(time.time() - self._started_at)
        return " %s up %d min,  load average: 0.00, 0.00, 0.00" % (
            time.strftime("%H:%M:%S"), up // 60)

    def get_host_ip_addr(self):
        return self.conf.my_ip

    # -- resources -----------------------------------------------------------
    def get_available_nodes(self, refresh=False):
        return [self.nodename]

    def get_nodenames_by_uuid(self, refresh=False):
        return {self.node_uuid: self.nodename}

    def _used(self):
        with self._lock:
            insts = list(self._instances.values())
        return (sum(i.vcpus for i in insts), sum(i.memory_mb for i in insts),
                sum(i.disk_gb for i in insts), len(insts))

    def get_available_resource(self, nodename):
        if nodename != self.nodename:
            raise exception.ComputeHostNotFound(host=nodename)
        vcpus_used, mem_used, disk_used, _count = self._used()
        opts = self.conf.fake_driver
        major, _dot, minor = opts.hypervisor_version.partition(".")
        return {
            "uuid": self.node_uuid,
            "vcpus": self.vcpus,
            "memory_mb": self.memory_mb,
            "local_gb": self.local_gb,
            "vcpus_used": vcpus_used,
            "memory_mb_used": mem_used,
            "local_gb_used": disk_used,
            "hypervisor_type": opts.hypervisor_type,
            # Nova's integer form of a dotted version: 1.0 -> 1000.
            "hypervisor_version": int(major or 0) * 1000 + int(
                (minor or "0").split(".")[0]),
            "hypervisor_hostname": self.nodename,
            "cpu_info": opts.cpu_info,
            "disk_available_least": self.local_gb - disk_used,
            "supported_instances": [["x86_64", "kvm", "hvm"]],
            "numa_topology": None,
        }

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        current = provider_tree.data(nodename).inventory
        inventory = driver.standard_inventory(
            self.conf,
            {orc.VCPU: self.vcpus, orc.MEMORY_MB: self.memory_mb,
             orc.DISK_GB: self.local_gb},
            current)
        provider_tree.update_inventory(nodename, inventory)

    # -- instance inventory -------------------------------------------------
    def get_info(self, instance, use_cache=True):
        with self._lock:
            fake = self._get(instance)
            return driver.InstanceInfo(state=fake.state,
                                       internal_id=fake.uuid)

    def list_instances(self):
        with self._lock:
            return [i.name for i in self._instances.values()]

    def list_instance_uuids(self):
        with self._lock:
            return list(self._instances)

    # -- build and delete -----------------------------------------------------
    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None, power_on=True, accel_info=None):
        if self.spawn_delay:
            time.sleep(self.spawn_delay)
        self._maybe_fail("spawn", instance)
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        with self._lock:
            if instance.uuid in self._instances:
                raise exception.InstanceExists(name=instance.uuid)
            fake = FakeInstance(instance, state)
            fake.console.append("fake guest %s booted" % instance.uuid)
            self._instances[instance.uuid] = fake
        if power_on:
            self.emit_event(virtevent.LifecycleEvent(
                instance.uuid, virtevent.EVENT_LIFECYCLE_STARTED))

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        self._maybe_fail("destroy", instance)
        with self._lock:
            gone = self._instances.pop(instance.uuid, None)
        if gone is not None and gone.state != power_state.SHUTDOWN:
            self.emit_event(virtevent.LifecycleEvent(
                instance.uuid, virtevent.EVENT_LIFECYCLE_STOPPED))

    def cleanup(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, migrate_data=None, destroy_vifs=True,
                destroy_secrets=True):
        with self._lock:
            self._instances.pop(instance.uuid, None)

    # -- power ----------------------------------------------------------------
    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None, share_info=None):
        self._maybe_fail("reboot", instance)
        self._get(instance)
        self._set_state(instance, power_state.RUNNING,
                        virtevent.EVENT_LIFECYCLE_STARTED)

    def power_off(self, instance, timeout=0, retry_interval=0):
        self._maybe_fail("power_off", instance)
        self._set_state(instance, power_state.SHUTDOWN,
                        virtevent.EVENT_LIFECYCLE_STOPPED)

    def power_on(self, context, instance, network_info, block_device_info=None,
                 accel_info=None, share_info=None):
        self._maybe_fail("power_on", instance)
        self._set_state(instance, power_state.RUNNING,
                        virtevent.EVENT_LIFECYCLE_STARTED)

    def pause(self, instance):
        self._maybe_fail("pause", instance)
        self._set_state(instance, power_state.PAUSED,
                        virtevent.EVENT_LIFECYCLE_PAUSED)

    def unpause(self, instance):
        self._maybe_fail("unpause", instance)
        self._set_state(instance, power_state.RUNNING,
                        virtevent.EVENT_LIFECYCLE_RESUMED)

    def suspend(self, context, instance):
        self._maybe_fail("suspend", instance)
        self._set_state(instance, power_state.SUSPENDED,
                        virtevent.EVENT_LIFECYCLE_SUSPENDED)

    def resume(self, context, instance, network_info, block_device_info=None,
               share_info=None):
        self._maybe_fail("resume", instance)
        self._set_state(instance, power_state.RUNNING,
                        virtevent.EVENT_LIFECYCLE_RESUMED)

    def resume_state_on_host_boot(self, context, instance, network_info,
                                  share_info=None, block_device_info=None):
        self._set_state(instance, power_state.RUNNING)

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info, share_info=None):
        self._maybe_fail("rescue", instance)
        with self._lock:
            self._get(instance).rescued = True
        self._set_state(instance, power_state.RUNNING)

    def unrescue(self, context, instance):
        self._maybe_fail("unrescue", instance)
        with self._lock:
            self._get(instance).rescued = False
        self._set_state(instance, power_state.RUNNING)

    def set_admin_password(self, instance, new_pass):
        self._maybe_fail("set_admin_password", instance)
        self._get(instance)

    def trigger_crash_dump(self, instance):
        self._get(instance)

    def poll_rebooting_instances(self, timeout, instances):
        """Fake reboots finish at once: nothing is ever stuck."""

    # -- images ---------------------------------------------------------------
    def snapshot(self, context, instance, image_id, update_task_state):
        self._get(instance)
        update_task_state(task_state="image_pending_upload")
        self._maybe_fail("snapshot", instance)
        update_task_state(task_state="image_uploading",
                          expected_state="image_pending_upload")
        # Upload a small stand-in disk so the image becomes active, as a
        # real driver's upload does (the image service is the contract).
        # Formats first, then the data (Glance v2 wants them before data).
        from keel.image import api as image_api
        images = image_api.get_api()
        formats = {"disk_format": "raw", "container_format": "bare"}
        images.update(context, image_id, formats, purge_props=False)
        images.update(context, image_id, formats,
                      data=b"fake-disk:" + instance.uuid.encode(),
                      purge_props=False)

    # -- resize / cold migration -------------------------------------------
    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info, block_device_info=None,
                                   timeout=0, retry_interval=0):
        self._maybe_fail("migrate_disk_and_power_off", instance)
        self.power_off(instance)
        return "{}"

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        self._maybe_fail("finish_migration", instance)
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        self._place(instance, state)

    def confirm_migration(self, context, migration, instance, network_info):
        # Runs on the source: forget the guest unless it resized in place.
        if getattr(migration, "dest_compute", None) != self.host:
            with self._lock:
                self._instances.pop(instance.uuid, None)

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        state = power_state.RUNNING if power_on else power_state.SHUTDOWN
        self._place(instance, state)

    # -- live migration ------------------------------------------------------
    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        self._maybe_fail("check_can_live_migrate_destination", instance)
        return {"block_migration": block_migration}

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        """Nothing was set up."""

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data,
                                      block_device_info=None):
        self._maybe_fail("check_can_live_migrate_source", instance)
        self._get(instance)
        return dest_check_data

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        # The volumes are connected to this host before the guest comes
        # (as libvirt does): the guest's arrival takes them over, a
        # rollback has to disconnect them (detach_volume).
        self._maybe_fail("pre_live_migration", instance)
        entries = (block_device_info or {}).get("block_device_mapping", ())
        with self._lock:
            for entry in entries:
                self._incoming_volumes.setdefault(instance.uuid, {})[
                    entry["mount_device"]] = entry["connection_info"]
        return migrate_data

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        try:
            self._maybe_fail("live_migration", instance)
        except Exception:
            recover_method(context, instance, dest, migrate_data)
            return
        post_method(context, instance, dest, block_migration, migrate_data)

    def live_migration_abort(self, instance):
        self._get(instance)

    def live_migration_force_complete(self, instance):
        self._get(instance)

    def post_live_migration(self, context, instance, block_device_info,
                            migrate_data=None):
        """Source-side volume clean-up: nothing to do."""

    def post_live_migration_at_source(self, context, instance, network_info):
        with self._lock:
            self._instances.pop(instance.uuid, None)

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        self._place(instance, power_state.RUNNING)
        with self._lock:
            self._instances[instance.uuid].volumes.update(
                self._incoming_volumes.pop(instance.uuid, {}))

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        with self._lock:
            self._instances.pop(instance.uuid, None)

    # -- volumes and interfaces ----------------------------------------------
    def get_volume_connector(self, instance):
        return {"ip": self.conf.my_ip, "initiator": "fake",
                "host": self.host}

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        self._maybe_fail("attach_volume", instance)
        with self._lock:
            self._get(instance).volumes[mountpoint] = connection_info

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        self._maybe_fail("detach_volume", instance)
        with self._lock:
            incoming = self._incoming_volumes.get(instance.uuid, {})
            if instance.uuid not in self._instances and mountpoint in incoming:
                # No guest here: only the host's connection goes.
                del incoming[mountpoint]
                if not incoming:
                    del self._incoming_volumes[instance.uuid]
                return
            self._get(instance).volumes.pop(mountpoint, None)

    # -- Manila shares (virtiofs) --------------------------------------------
    def mount_share(self, context, instance, share_mapping):
        """The share's export mounted for the guest: {tag: export}."""
        self._maybe_fail("mount_share", instance)
        with self._lock:
            self._get(instance).shares[share_mapping.tag] = \
                share_mapping.export_location

    def umount_share(self, context, instance, share_mapping):
        """Whether the host still mounts the export (never, here)."""
        self._maybe_fail("umount_share", instance)
        with self._lock:
            fake = self._instances.get(instance.uuid)
            if fake is not None:
                fake.shares.pop(share_mapping.tag, None)
        return False

    def volume_connections(self, instance_uuid):
        """{mountpoint: connection info} of the instance's volumes
        connected to this host (its guest's, or a migration's still
        arriving)."""
        with self._lock:
            guest = self._instances.get(instance_uuid)
            if guest is not None:
                return dict(guest.volumes)
            return dict(self._incoming_volumes.get(instance_uuid, {}))

    def extend_volume(self, context, connection_info, instance,
                      requested_size):
        self._get(instance)

    def attach_interface(self, context, instance, image_meta, vif):
        self._maybe_fail("attach_interface", instance)
        with self._lock:
            self._get(instance).vifs[vif["id"]] = vif

    def detach_interface(self, context, instance, vif):
        self._maybe_fail("detach_interface", instance)
        with self._lock:
            self._get(instance).vifs.pop(vif["id"], None)

    # -- consoles -------------------------------------------------------------
    def get_console_output(self, context, instance):
        with self._lock:
            return "\n".join(self._get(instance).console) + "\n"

    def get_vnc_console(self, context, instance):
        self._get(instance)
        return driver.ConsoleVNC(host="127.0.0.1", port=6969,
                                 internal_access_path=None)

    def get_serial_console(self, context, instance):
        self._get(instance)
        return driver.ConsoleSerial(host="127.0.0.1", port=10000)

    def get_spice_console(self, context, instance):
        self._get(instance)
        return driver.ConsoleSpice(host="127.0.0.1", port=5900, tlsPort=5901)

    # -- diagnostics (the values of Nova's fake driver and API samples) ------
    def get_diagnostics(self, instance):
        self._get(instance)
        return dict(FAKE_DIAGNOSTICS)

    def get_instance_diagnostics(self, instance):
        from keel import objects
        self._get(instance)
        diags = objects.Diagnostics(
            state="running", driver="libvirt", hypervisor="kvm",
            hypervisor_os="ubuntu", uptime=46664, config_drive=True)
        diags.add_cpu(id=0, time=17300000000, utilisation=15)
        diags.add_nic(mac_address="01:23:45:67:89:ab", rx_octets=2070139,
                      rx_errors=100, rx_drop=200, rx_packets=26701,
                      rx_rate=300, tx_octets=140208, tx_errors=400,
                      tx_drop=500, tx_packets=662, tx_rate=600)
        diags.add_disk(read_bytes=262144, read_requests=112,
                       write_bytes=5778432, write_requests=488,
                       errors_count=1)
        diags.memory_details = objects.MemoryDiagnostics(maximum=524288,
                                                         used=0)
        return diags


FAKE_DIAGNOSTICS = {
    "cpu0_time": 17300000000, "memory": 524288, "vda_errors": -1,
    "vda_read": 262144, "vda_read_req": 112, "vda_write": 5778432,
    "vda_write_req": 488, "vnet1_rx": 2070139, "vnet1_rx_drop": 0,
    "vnet1_rx_errors": 0, "vnet1_rx_packets": 26701, "vnet1_tx": 140208,
    "vnet1_tx_drop": 0, "vnet1_tx_errors": 0, "vnet1_tx_packets": 662,
}
