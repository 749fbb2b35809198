"""The deprecated multinic actions in the compute API (Nova's add_fixed_ip
/ remove_fixed_ip): only the lock is checked, then a cast to the
instance's compute, which asks the network service and injects the result.
A server no compute has taken yet has no network to change
(InstanceNotReady)."""
from keel.compute_api import server_power as power


def add_fixed_ip(ctx, instance, network_id):
    power.check_locked(ctx, instance)
    power.check_host(instance)
    power.compute_rpc().add_fixed_ip_to_instance(instance._context, instance,
                                                 network_id)


def remove_fixed_ip(ctx, instance, address):
    power.check_locked(ctx, instance)
    power.check_host(instance)
    power.compute_rpc().remove_fixed_ip_from_instance(instance._context,
                                                      instance, address)
