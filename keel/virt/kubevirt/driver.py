"""KubeVirtDriver: the virt driver facade over a Kubernetes cluster.

One compute service per cluster; each schedulable Kubernetes node is one
compute node and Placement resource provider (``inventory``), each instance
one VirtualMachine named after its UUID (``spec``), operations through
virt-api subresources (``ops``), and power state plus lifecycle events from
one list+watch per kind (``guests``).  All API access goes through
``kube.KubeClient``, so the same code runs against a real cluster and the
simulator.
"""
import contextlib
import logging
import threading
import time

from keel import exception
from keel.virt import driver
from keel.virt.kubevirt import guests as guests_mod
from keel.virt.kubevirt import inventory as inventory_mod
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt.ops import build
from keel.virt.kubevirt.ops import consoles
from keel.virt.kubevirt.ops import interfaces
from keel.virt.kubevirt.ops import migration
from keel.virt.kubevirt.ops import power
from keel.virt.kubevirt.ops import rescue
from keel.virt.kubevirt.ops import resize
from keel.virt.kubevirt.ops import snapshot
from keel.virt.kubevirt.ops import volumes
from keel.virt.kubevirt.spec import field

LOG = logging.getLogger(__name__)


@contextlib.contextmanager
def _api_errors_as(make_error):
    """A Kubernetes API error (after the adapter's retries) becomes the Nova
    exception the compute manager expects, naming the API's answer."""
    try:
        yield
    except kube.KubeError as err:
        raise make_error(str(err)) from err


class KubeVirtDriver(driver.ComputeDriver):
    capabilities = dict(
        driver.ComputeDriver.capabilities,
        supports_pcpus=True,
        supports_attach_interface=True,
        # Every node of the cluster is served by this one compute service.
        supports_migrate_to_same_host=True,
        supports_secure_boot=True,
        supports_image_type_raw=True,
        supports_image_type_qcow2=True,
        supports_image_type_iso=True,
    )

    def __init__(self, virtapi=None, host=None, conf=None, kube_client=None,
                 image_api=None, **_ignored):
        super().__init__(virtapi)
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf
        self.host = host or conf.host
        self._kube = kube_client
        self._image_api = image_api
        self._guests = None
        self._inventory = None
        self._start_lock = threading.Lock()

    # -- wiring (lazy: constructing the driver needs no cluster) --------------
    @property
    def kube(self):
        if self._kube is None:
            self._kube = kube.KubeClient(self.conf)
        return self._kube

    @property
    def guests(self):
        """The watch caches, started on first use."""
        with self._start_lock:
            if self._guests is None:
                guests = guests_mod.Guests(self.kube, self.host,
                                           self.emit_event)
                try:
                    guests.start()
                except kube.KubeError as err:
                    guests.stop()
                    LOG.error("Kubernetes API unavailable: %s", err)
                    raise exception.HypervisorUnavailable() from err
                self._guests = guests
        return self._guests

    @property
    def inventory(self):
        if self._inventory is None:
            self._inventory = inventory_mod.Inventory(
                self.kube, self.conf, self.host,
                lambda: self.guests.vms.items())
        return self._inventory

    def target_node(self, instance):
        """The Kubernetes node the scheduler chose (the compute node)."""
        node = field(instance, "node", None)
        if not node:
            raise exception.InstanceInvalidState(
                instance_uuid=instance.uuid, attr="node", state=None,
                method="spawn")
        return node

    # -- host -----------------------------------------------------------------
    def init_host(self, host):
        self.guests  # noqa: B018 - list and start watching now

    def cleanup_host(self, host):
        if self._guests is not None:
            self._guests.stop()
            self._guests = None
        if self._kube is not None:
            self._kube.close()
            self._kube = None

    def get_host_uptime(self):
        seconds = self.inventory.uptime()
        days, rest = divmod(seconds, 86400)
        return " %s up %d days, %2d:%02d,  load average: 0.00, 0.00, 0.00" % (
            time.strftime("%H:%M:%S"), days, rest // 3600, rest % 3600 // 60)

    def get_host_ip_addr(self):
        return self.conf.my_ip

    # -- resources -----------------------------------------------------------
    def get_available_nodes(self, refresh=False):
        return self.inventory.nodenames(refresh=refresh)

    def get_nodenames_by_uuid(self, refresh=False):
        return {self.inventory.node_uuid(name): name
                for name in self.inventory.nodenames(refresh=refresh)}

    def get_available_resource(self, nodename):
        return self.inventory.resources(nodename)

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        self.inventory.update_provider_tree(provider_tree, nodename)

    # -- instance inventory -------------------------------------------------
    def get_info(self, instance, use_cache=True):
        state = self.guests.state(instance.uuid)
        if state is None:
            # Not (yet) seen by the watch -- a VM created halted is known
            # to the cache only when its event arrives: the API server
            # decides whether it is gone.
            vm = self.kube.get(kube.VM, instance.uuid)
            vmi = self.kube.get(kube.VMI, instance.uuid)
            if vm is not None or vmi is not None:
                state = status.power_state_of(vm, vmi)
        if state is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        return driver.InstanceInfo(state=state, internal_id=instance.uuid)

    def list_instances(self):
        # VM name == instance uuid: the only name Kubernetes knows.
        return self.guests.uuids()

    def list_instance_uuids(self):
        return self.guests.uuids()

    # -- build and delete -----------------------------------------------------
    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None, power_on=True, accel_info=None):
        build.spawn(self, context, instance, image_meta, network_info,
                    power_on)

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        if field(instance, "task_state", None) == "resize_reverting" and \
                resize.resizing(self.guests.vm(instance.uuid)):
            # Nova destroys the guest on the resize destination before
            # reverting on the source; here both are the same VirtualMachine,
            # which finish_revert_migration brings back.
            power.power_off(self, instance, 0)
            return
        build.destroy(self, instance)

    def cleanup(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, migrate_data=None, destroy_vifs=True,
                destroy_secrets=True):
        build.destroy(self, instance)

    # -- power ----------------------------------------------------------------
    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None, share_info=None):
        power.reboot(self, instance, reboot_type)

    def power_off(self, instance, timeout=0, retry_interval=0):
        power.power_off(self, instance, timeout)

    def power_on(self, context, instance, network_info, block_device_info=None,
                 accel_info=None, share_info=None):
        power.power_on(self, instance)

    def pause(self, instance):
        power.pause(self, instance)

    def unpause(self, instance):
        power.unpause(self, instance)

    def suspend(self, context, instance):
        power.suspend(self, instance)

    def resume(self, context, instance, network_info, block_device_info=None,
               share_info=None):
        power.resume(self, instance)

    def resume_state_on_host_boot(self, context, instance, network_info,
                                  share_info=None, block_device_info=None):
        # runStrategy Manual: a guest whose node rebooted stays down until
        # started, as libvirt guests do; start it if Nova says it ran.
        power.power_on(self, instance)

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info, share_info=None):
        # The rescue password would need a second config drive; the rescue
        # image's own credentials apply (as with images without cloud-init).
        with _api_errors_as(lambda why: exception.InstanceRescueFailure(
                reason=why)):
            rescue.rescue(self, context, instance, image_meta)

    def unrescue(self, context, instance):
        with _api_errors_as(lambda why: exception.InstanceUnRescueFailure(
                reason=why)):
            rescue.unrescue(self, instance)

    def poll_rebooting_instances(self, timeout, instances):
        """Reboots finish inside reboot() (soft falls back to hard)."""

    # -- images ---------------------------------------------------------------
    @property
    def image_api(self):
        if self._image_api is None:
            from keel.image import api as image_api
            self._image_api = image_api.get_api()
        return self._image_api

    def snapshot(self, context, instance, image_id, update_task_state):
        snapshot.snapshot(self, context, instance, image_id,
                          update_task_state, self.image_api)

    # -- resize / cold migration (between nodes of this cluster) ----------
    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info, block_device_info=None,
                                   timeout=0, retry_interval=0):
        with _api_errors_as(lambda why: exception.ResizeError(reason=why)):
            return resize.migrate_disk_and_power_off(self, instance, flavor,
                                                     timeout)

    def finish_migration(self, context, migration, instance, disk_info,
                         network_info, image_meta, resize_instance,
                         allocations, block_device_info=None, power_on=True):
        with _api_errors_as(lambda why: exception.ResizeError(reason=why)):
            resize.finish_migration(self, migration, instance, image_meta,
                                    power_on)

    def confirm_migration(self, context, migration, instance, network_info):
        resize.confirm_migration(self, instance)

    def finish_revert_migration(self, context, instance, network_info,
                                migration, block_device_info=None,
                                power_on=True):
        with _api_errors_as(lambda why: exception.ResizeError(reason=why)):
            resize.finish_revert_migration(self, instance, power_on)

    # -- live migration (between nodes of this cluster) -------------------
    def check_can_live_migrate_destination(self, context, instance,
                                           src_compute_info, dst_compute_info,
                                           block_migration=False,
                                           disk_over_commit=False):
        return migration.check_destination(dst_compute_info, block_migration)

    def cleanup_live_migration_destination_check(self, context,
                                                 dest_check_data):
        """Nothing was reserved on the destination."""

    def check_can_live_migrate_source(self, context, instance,
                                      dest_check_data,
                                      block_device_info=None):
        return migration.check_source(self, instance, dest_check_data)

    def pre_live_migration(self, context, instance, block_device_info,
                           network_info, disk_info, migrate_data):
        return migrate_data

    def live_migration(self, context, instance, dest, post_method,
                       recover_method, block_migration=False,
                       migrate_data=None):
        migration.migrate(self, context, instance, dest, post_method,
                          recover_method, block_migration, migrate_data)

    def live_migration_abort(self, instance):
        migration.abort(self, instance)

    def post_live_migration(self, context, instance, block_device_info,
                            migrate_data=None):
        """KubeVirt removes the source pod itself."""

    def post_live_migration_at_source(self, context, instance, network_info):
        """Same VirtualMachine on both sides: nothing to remove."""

    def post_live_migration_at_destination(self, context, instance,
                                           network_info,
                                           block_migration=False,
                                           block_device_info=None):
        """Re-pinned to the destination when the migration completed."""

    def rollback_live_migration_at_destination(self, context, instance,
                                               network_info,
                                               block_device_info,
                                               destroy_disks=True,
                                               migrate_data=None):
        """A failed migration leaves the guest where it was."""

    # -- consoles -------------------------------------------------------------
    def get_console_output(self, context, instance):
        return consoles.console_output(self, instance)

    def get_vnc_console(self, context, instance):
        return consoles.vnc_console(self, instance)

    def get_serial_console(self, context, instance):
        return consoles.serial_console(self, instance)

    # -- volumes --------------------------------------------------------------
    def get_volume_connector(self, instance):
        return volumes.connector(self, instance)

    def get_live_migration_volume_connector(self, instance, migrate_data):
        """The destination node's connector: the guest still runs on the
        source node while the compute (the same service for both nodes)
        prepares its volumes there."""
        return volumes.connector(
            self, instance, migration.dest_node(migrate_data, None))

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        # Nova's mountpoint is a hint KubeVirt cannot honour: the target
        # device shows in the VMI's volumeStatus.
        with _api_errors_as(lambda why: exception.VolumeAttachFailed(
                volume_id=volumes.volume_id(connection_info), reason=why)):
            volumes.attach(self, instance, connection_info, disk_bus)

    def detach_volume(self, context, connection_info, instance, mountpoint,
                      encryption=None):
        with _api_errors_as(lambda why: exception.VolumeDetachFailed(
                volume_id=volumes.volume_id(connection_info), reason=why)):
            volumes.detach(self, instance, connection_info)

    # -- interfaces -----------------------------------------------------------
    def attach_interface(self, context, instance, image_meta, vif):
        with _api_errors_as(lambda why: exception.InterfaceAttachFailed(
                instance_uuid=instance.uuid)):
            interfaces.attach(self, instance, image_meta, vif)

    def detach_interface(self, context, instance, vif):
        with _api_errors_as(lambda why: exception.InterfaceDetachFailed(
                instance_uuid=instance.uuid)):
            interfaces.detach(self, instance, vif)
