"""Server diagnostics in the compute API: a call to the instance's compute
(a server no compute has taken yet has none: InstanceNotReady)."""
from keel.compute_api import server_power as power


def get_diagnostics(ctx, instance):
    power.check_host(instance)
    return power.compute_rpc().get_diagnostics(instance._context, instance)


def get_instance_diagnostics(ctx, instance):
    power.check_host(instance)
    return power.compute_rpc().get_instance_diagnostics(instance._context,
                                                        instance)
