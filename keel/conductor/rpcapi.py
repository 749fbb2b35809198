"""Clients of the conductor: ConductorAPI (base API, the objects'
indirection API on compute hosts) and ComputeTaskAPI (``compute_task``)."""
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_versionedobjects import base as ovo_base

from keel.conf import CONF
from keel import exception
from keel.rpc import serializer as rpc_serializer
from keel.rpc import transport as rpc_transport
from keel.rpc import versions

LOG = logging.getLogger(__name__)

RPC_TOPIC = "conductor"


class ConductorAPI(ovo_base.VersionedObjectIndirectionAPI):
    """Base conductor API. Set as ``KeelObject.indirection_api`` on a compute
    host, it turns remotable object methods into conductor calls."""

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC,
                                  version=versions.CONDUCTOR_TARGET)
        self.client = rpc_transport.get_client(
            target, version_cap=versions.conductor_cap(),
            serializer=rpc_serializer.object_serializer())

    def object_class_action(self, context, objname, objmethod, objver,
                            args, kwargs):
        # Older oslo.versionedobjects entry point: send the whole tree.
        versions_ = ovo_base.obj_tree_get_versions(objname)
        return self.object_class_action_versions(
            context, objname, objmethod, versions_, args, kwargs)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        return self.client.prepare().call(
            context, "object_class_action_versions", objname=objname,
            objmethod=objmethod, object_versions=object_versions,
            args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        return self.client.prepare().call(
            context, "object_action", objinst=objinst, objmethod=objmethod,
            args=args, kwargs=kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        return self.client.prepare().call(
            context, "object_backport_versions", objinst=objinst,
            object_versions=object_versions)

    def ping(self, context, arg="ping", timeout=None):
        """baseapi ping: answers once a conductor consumes its topic."""
        target = messaging.Target(topic=RPC_TOPIC, namespace="baseapi",
                                  version="1.0")
        client = rpc_transport.get_client(target)
        return client.prepare(timeout=timeout).call(context, "ping", arg=arg)

    def wait_until_ready(self, context, timeout=None, attempts=None):
        """Block until a conductor answers (Nova's behaviour at compute
        start); ``attempts`` bounds it (None: wait for ever)."""
        # A ping sent before the conductor declared its queue is lost, so
        # keep each wait short and ask again rather than wait a full
        # rpc_response_timeout for an answer that cannot come.
        timeout = min(timeout or CONF.rpc_response_timeout, 3)
        tries = 0
        while True:
            tries += 1
            try:
                self.ping(context, "1.21 GigaWatts", timeout=timeout)
                if tries > 1:
                    LOG.info("nova-conductor connection established")
                return
            except messaging.MessagingTimeout:
                if attempts is not None and tries >= attempts:
                    raise
                LOG.warning("Timed out waiting for nova-conductor. Is it "
                            "running? Or did this service start before "
                            "nova-conductor? Reattempting establishment "
                            "of nova-conductor connection...")


class ComputeTaskAPI:
    """Client of the ``compute_task`` namespace (sent at Nova 34's versions;
    a cap below a method's version raises rather than drop arguments)."""

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, namespace="compute_task",
                                  version="1.0")
        self.client = rpc_transport.get_client(
            target, version_cap=versions.conductor_cap(),
            serializer=rpc_serializer.object_serializer())

    def _prepare(self, method, version, **kw):
        if not self.client.can_send_version(version):
            raise exception.NovaException(
                f"Conductor RPC version cap {self.client.version_cap} "
                f"does not allow {method} (needs {version})")
        return self.client.prepare(version=version, **kw)

    def _long(self):
        return {"call_monitor_timeout": CONF.rpc_response_timeout,
                "timeout": CONF.long_rpc_timeout}

    def live_migrate_instance(self, context, instance, scheduler_hint,
                              block_migration, disk_over_commit,
                              request_spec):
        self._prepare("live_migrate_instance", "1.15").cast(
            context, "live_migrate_instance", instance=instance,
            scheduler_hint=scheduler_hint, block_migration=block_migration,
            disk_over_commit=disk_over_commit, request_spec=request_spec)

    def migrate_server(self, context, instance, scheduler_hint, live,
                       rebuild, flavor, block_migration, disk_over_commit,
                       reservations=None, clean_shutdown=True,
                       request_spec=None, host_list=None, do_cast=False):
        cctxt = self._prepare("migrate_server", "1.20", **self._long())
        kw = dict(instance=instance, scheduler_hint=scheduler_hint,
                  live=live, rebuild=rebuild, flavor=flavor,
                  block_migration=block_migration,
                  disk_over_commit=disk_over_commit,
                  reservations=reservations, clean_shutdown=clean_shutdown,
                  request_spec=request_spec, host_list=host_list)
        if do_cast:
            return cctxt.cast(context, "migrate_server", **kw)
        return cctxt.call(context, "migrate_server", **kw)

    def build_instances(self, context, instances, image, filter_properties,
                        admin_password, injected_files, requested_networks,
                        security_groups, block_device_mapping,
                        legacy_bdm=True, request_spec=None, host_lists=None):
        self._prepare("build_instances", "1.19").cast(
            context, "build_instances", instances=instances,
            image=jsonutils.to_primitive(image),
            filter_properties=filter_properties,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            security_groups=security_groups, request_spec=request_spec,
            host_lists=host_lists)

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image, admin_password,
                                     injected_files, requested_networks,
                                     block_device_mapping, tags=None):
        self._prepare("schedule_and_build_instances", "1.17").cast(
            context, "schedule_and_build_instances",
            build_requests=build_requests, request_specs=request_specs,
            image=jsonutils.to_primitive(image),
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            block_device_mapping=block_device_mapping, tags=tags)

    def unshelve_instance(self, context, instance, request_spec=None):
        self._prepare("unshelve_instance", "1.14").cast(
            context, "unshelve_instance", instance=instance,
            request_spec=request_spec)

    def rebuild_instance(self, ctxt, instance, new_pass, injected_files,
                         image_ref, orig_image_ref, orig_sys_metadata, bdms,
                         recreate=False, on_shared_storage=False, host=None,
                         preserve_ephemeral=False, request_spec=None,
                         reimage_boot_volume=False, target_state=None):
        self._prepare("rebuild_instance", "1.25").cast(
            ctxt, "rebuild_instance", instance=instance, new_pass=new_pass,
            injected_files=injected_files, image_ref=image_ref,
            orig_image_ref=orig_image_ref,
            orig_sys_metadata=orig_sys_metadata, bdms=bdms,
            recreate=recreate, on_shared_storage=on_shared_storage,
            preserve_ephemeral=preserve_ephemeral, host=host,
            request_spec=request_spec,
            reimage_boot_volume=reimage_boot_volume,
            target_state=target_state)

    def cache_images(self, ctxt, aggregate, image_ids):
        self._prepare("cache_images", "1.21").cast(
            ctxt, "cache_images", aggregate=aggregate, image_ids=image_ids)

    def confirm_snapshot_based_resize(self, ctxt, instance, migration,
                                      do_cast=True):
        cctxt = self._prepare("confirm_snapshot_based_resize", "1.22")
        kw = dict(instance=instance, migration=migration)
        if do_cast:
            return cctxt.cast(ctxt, "confirm_snapshot_based_resize", **kw)
        return cctxt.call(ctxt, "confirm_snapshot_based_resize", **kw)

    def revert_snapshot_based_resize(self, ctxt, instance, migration):
        self._prepare("revert_snapshot_based_resize", "1.23").cast(
            ctxt, "revert_snapshot_based_resize", instance=instance,
            migration=migration)

    def attach_volume(self, ctxt, instance, volume, device, disk_bus,
                      device_type, tag=None, supports_multiattach=False,
                      delete_on_termination=False, do_cast=False):
        kw = dict(instance=instance, volume=volume, device=device,
                  disk_bus=disk_bus, device_type=device_type, tag=tag,
                  supports_multiattach=supports_multiattach,
                  delete_on_termination=delete_on_termination)
        if do_cast:
            return self._prepare("attach_volume", "1.26").cast(
                ctxt, "attach_volume", **kw)
        return self._prepare("attach_volume", "1.26", **self._long()).call(
            ctxt, "attach_volume", **kw)
