"""Interface attach/detach in the compute API (Nova's compute/api.py
attach_interface / detach_interface): lock and state checks, the instance
action, then the compute (a call for attach, which answers the new VIF; a
cast for detach)."""
from keel.compute_api import server_power as power
from keel import exception
from keel.network import base as network_base

ACTIVE, PAUSED, STOPPED = "active", "paused", "stopped"
INTERFACE_VM_STATES = [ACTIVE, PAUSED, STOPPED]


def network_api():
    from keel.network import api
    return api.get_api()


def _check(ctx, instance, method):
    power.check_locked(ctx, instance)
    power.check_state(instance, method, vm_state=INTERFACE_VM_STATES)
    power.check_host(instance)


def attach_interface(ctx, instance, network_id, port_id, requested_ip,
                     tag=None):
    _check(ctx, instance, "attach_interface")
    power.record_action(instance, "attach_interface")
    return power.compute_rpc().attach_interface(
        instance._context, instance, network_id, port_id, requested_ip,
        tag=tag)


def detach_interface(ctx, instance, port_id):
    _check(ctx, instance, "detach_interface")
    if not any(vif["id"] == port_id
               for vif in network_base.cached_nw_info(instance)):
        # Not one of its interfaces: refuse now rather than fail on the
        # compute after a 202.
        raise exception.PortNotFound(port_id=port_id)
    power.record_action(instance, "detach_interface")
    power.compute_rpc().detach_interface(instance._context, instance,
                                         port_id=port_id)


def tags_by_port(instance):
    """{port id: device tag} from the instance's VirtualInterfaces."""
    from keel import objects
    vifs = objects.VirtualInterfaceList.get_by_instance_uuid(
        instance._context, instance.uuid)
    return {v.uuid: v.tag for v in vifs}
