"""Interface attach and detach on the instance's compute host (Nova's
attach_interface / detach_interface), through the network API and the
virt driver contract.

Attach allocates one port (the user's, or a new one on a network) bound to
this host, which also refreshes the instance's info cache, then plugs the
VIF into the guest. A driver failure gives the port back so nothing leaks
and answers InterfaceAttachFailed. Detach unplugs first and releases the
port only once the guest no longer uses it.
"""
from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.compute.ops import notify
from keel import exception
from keel.network import base as network_base

LOG = logging.getLogger(__name__)


def _network_api(mgr):
    api = mgr.network_api
    if api is None:
        raise exception.InterfaceAttachFailed(instance_uuid="unknown")
    return api


def _image_meta(instance):
    from keel import objects
    try:
        return objects.ImageMeta.from_instance(instance)
    except Exception:  # noqa: BLE001 - drivers treat None as "no hints"
        return None


def attach_interface(mgr, context, instance, network_id, port_id,
                     requested_ip, tag=None):
    """The attached VIF (a network model dict)."""
    caps = getattr(mgr.driver, "capabilities", {}) or {}
    if not caps.get("supports_attach_interface", False):
        raise exception.AttachInterfaceNotSupported(
            instance_uuid=instance.uuid)
    if tag and not caps.get("supports_tagged_attach_interface", False):
        raise exception.NetworkInterfaceTaggedAttachNotSupported()
    api = _network_api(mgr)
    with mgr.instance_lock(instance.uuid):
        notify.action(context, instance, mgr.host, "interface_attach",
                      "start")
        network_info = api.allocate_port_for_instance(
            context, instance, port_id, network_id=network_id,
            requested_ip=requested_ip, bind_host_id=mgr.host, tag=tag)
        if len(network_info) != 1:
            LOG.error("Allocating one port for %s gave %d VIFs",
                      instance.uuid, len(network_info))
            raise exception.InterfaceAttachFailed(
                instance_uuid=instance.uuid)
        vif = network_info[0]
        try:
            mgr.driver.attach_interface(context, instance,
                                        _image_meta(instance), vif)
        except exception.NovaException as exc:
            LOG.warning("Attaching port %s to %s failed: %s", vif["id"],
                        instance.uuid, exc)
            try:
                api.deallocate_port_for_instance(context, instance,
                                                 vif["id"])
            except Exception:  # noqa: BLE001 - report the attach failure
                LOG.exception("Could not release port %s", vif["id"])
            notify.action(context, instance, mgr.host, "interface_attach",
                          "error", exception=exc)
            raise exception.InterfaceAttachFailed(
                instance_uuid=instance.uuid)
        notify.action(context, instance, mgr.host, "interface_attach",
                      "end")
        # Plain JSON over RPC: the serializer cannot rebuild model classes.
        return jsonutils.loads(jsonutils.dumps(vif))


def detach_interface(mgr, context, instance, port_id):
    with mgr.instance_lock(instance.uuid):
        condemned = next((vif for vif in
                          network_base.cached_nw_info(instance)
                          if vif["id"] == port_id), None)
        if condemned is None:
            raise exception.PortNotFound(port_id=port_id)
        notify.action(context, instance, mgr.host, "interface_detach",
                      "start")
        try:
            mgr.driver.detach_interface(context, instance, condemned)
        except exception.NovaException as exc:
            LOG.warning("Detaching port %s from %s failed: %s", port_id,
                        instance.uuid, exc)
            raise exception.InterfaceDetachFailed(
                instance_uuid=instance.uuid)
        _network_api(mgr).deallocate_port_for_instance(context, instance,
                                                       port_id)
        notify.action(context, instance, mgr.host, "interface_detach",
                      "end")
