"""changePassword in the compute API (Nova's set_admin_password): an active,
idle, unlocked server takes the task ``updating_password`` (a
compare-and-swap over no task), the instance action "changePassword" is
recorded and the instance's compute is called (synchronously: its answer,
or its refusal, is the API's)."""
from keel.compute_api import server_power as power

UPDATING_PASSWORD = "updating_password"
CHANGE_PASSWORD = "changePassword"


def set_admin_password(ctx, instance, password):
    power.check_locked(ctx, instance)
    power.check_state(instance, "set_admin_password",
                      vm_state=[power.ACTIVE])
    power.claim(instance, UPDATING_PASSWORD)
    power.record_action(instance, CHANGE_PASSWORD)
    power.compute_rpc().set_admin_password(instance._context, instance,
                                           password)
