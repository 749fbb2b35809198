"""Remote consoles in the compute API: checks, then a call to the
instance's compute, which returns the console's connection info with the
user's URL (Nova's get_vnc_console / get_serial_console)."""
from keel.compute_api import server_power as power
from keel import exception

# Task states during which a console is refused (Nova's
# reject_instance_state): the guest is going away or moving.
_REJECTED_TASKS = ("deleting", "migrating")


def _check(instance, method):
    power.check_host(instance)
    if instance.task_state in _REJECTED_TASKS:
        raise exception.InstanceInvalidState(
            attr="task_state", instance_uuid=instance.uuid,
            state=instance.task_state, method=method)


def get_vnc_console(ctx, instance, console_type):
    _check(instance, "get_vnc_console")
    info = power.compute_rpc().get_vnc_console(instance._context, instance,
                                               console_type)
    return {"url": info["access_url"]}


def get_serial_console(ctx, instance, console_type):
    _check(instance, "get_serial_console")
    info = power.compute_rpc().get_serial_console(instance._context,
                                                  instance, console_type)
    return {"url": info["access_url"]}


def get_spice_console(ctx, instance, console_type):
    _check(instance, "get_spice_console")
    info = power.compute_rpc().get_spice_console(instance._context,
                                                 instance, console_type)
    return {"url": info["access_url"]}
