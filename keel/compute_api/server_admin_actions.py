"""The admin actions of the compute API: os-resetState (no compute call:
the API writes the states itself, as Nova's controller) and
injectNetworkInfo (a cast to the instance's compute)."""
from keel.compute_api import server_power as power
from keel import exception
from keel import objects

RESET_STATE = "resetState"
# A reset wins over whatever task runs; a task that changes between our read
# and our write only makes us read again, this many times at most.
_RESET_ATTEMPTS = 5


def reset_state(ctx, instance, vm_state):
    """Set ``vm_state`` and clear the task, recorded as the instance action
    "resetState". The write is a compare-and-swap over the task state read
    (Nova saves with admin_state_reset, which overrides any task): a
    concurrent change is read again and overridden too."""
    action = objects.InstanceAction.action_start(
        instance._context, instance.uuid, RESET_STATE)
    for attempt in range(_RESET_ATTEMPTS):
        observed = instance.task_state
        instance.vm_state = vm_state
        instance.task_state = None
        try:
            instance.save(expected_task_state=[observed],
                          admin_state_reset=True)
            break
        except exception.UnexpectedTaskStateError:
            if attempt == _RESET_ATTEMPTS - 1:
                raise
            instance.refresh()
    action.finish()


def inject_network_info(ctx, instance):
    """Nova checks only the lock; a server no compute has taken yet has
    nowhere to inject (InstanceNotReady, 409)."""
    power.check_locked(ctx, instance)
    power.check_host(instance)
    power.compute_rpc().inject_network_info(instance._context, instance)
