"""The power actions of the compute API (Nova's compute/api.py): stop,
start, reboot, pause, unpause, suspend, resume, trigger_crash_dump.

Each one checks the lock, the vm_state / task_state / launched_at the
action needs (InstanceInvalidState -> 409), claims the instance by writing
its task_state as a compare-and-swap over "no task" (a concurrent action
loses with UnexpectedTaskStateError -> 409), records the instance action
and casts to the instance's compute.
"""
from keel.compute import rpcapi as compute_rpcapi
from keel.compute_api import server_delete
from keel import exception
from keel import objects

ACTIVE, STOPPED, PAUSED, SUSPENDED = "active", "stopped", "paused", \
    "suspended"
RESCUED, RESIZED, ERROR = "rescued", "resized", "error"

# reboot: the task states a hard reboot may interrupt (Nova's list).
HARD_REBOOT_ALLOWED_TASKS = [None, "rebooting", "reboot_pending",
                             "reboot_started", "resuming", "rebooting_hard",
                             "unpausing", "pausing", "suspending"]
HARD_REBOOT_VM_STATES = [ACTIVE, STOPPED, PAUSED, SUSPENDED, ERROR]
CRASH_DUMP_VM_STATES = [ACTIVE, PAUSED, RESCUED, RESIZED, ERROR]


def compute_rpc():
    return compute_rpcapi.ComputeAPI()


def _field(instance, name):
    return getattr(instance, name) if instance.obj_attr_is_set(name) \
        else None


def check_state(instance, method, vm_state=None, task_state=(None,),
                must_have_launched=True):
    """Nova's check_instance_state: vm_state, then task_state (None in the
    list means idle; ``task_state=None`` means any), then launched_at."""
    if vm_state is not None and _field(instance, "vm_state") not in vm_state:
        raise exception.InstanceInvalidState(
            attr="vm_state", instance_uuid=instance.uuid,
            state=_field(instance, "vm_state"), method=method)
    if task_state is not None and \
            _field(instance, "task_state") not in task_state:
        raise exception.InstanceInvalidState(
            attr="task_state", instance_uuid=instance.uuid,
            state=_field(instance, "task_state"), method=method)
    if must_have_launched and not _field(instance, "launched_at"):
        raise exception.InstanceInvalidState(
            attr="launched_at", instance_uuid=instance.uuid,
            state=_field(instance, "launched_at"), method=method)


def check_host(instance):
    """Nova's check_instance_host: no host yet -> InstanceNotReady."""
    if not _field(instance, "host"):
        raise exception.InstanceNotReady(instance_id=instance.uuid)


def check_locked(ctx, instance):
    server_delete.check_locked(ctx, instance)


def claim(instance, task_state, expected=(None,), **extra):
    """Write ``task_state`` (and ``extra`` fields) if the task is still one
    of ``expected``; UnexpectedTaskStateError otherwise."""
    instance.task_state = task_state
    for name, value in extra.items():
        setattr(instance, name, value)
    instance.save(expected_task_state=list(expected))


def record_action(instance, action):
    # The instance was read in its cell: its context targets that cell.
    objects.InstanceAction.action_start(instance._context, instance.uuid,
                                        action, want_result=False)


def _simple(ctx, instance, method, vm_states, task_state, action, cast,
            host=False):
    check_locked(ctx, instance)
    if host:
        check_host(instance)
    check_state(instance, method, vm_state=vm_states)
    claim(instance, task_state)
    record_action(instance, action)
    cast(instance._context, instance)


# -- the actions --------------------------------------------------------------

def stop(ctx, instance, clean_shutdown=True):
    check_locked(ctx, instance)
    check_host(instance)
    check_state(instance, "stop", vm_state=[ACTIVE, ERROR])
    claim(instance, "powering-off", progress=0)
    record_action(instance, "stop")
    compute_rpc().stop_instance(instance._context, instance, do_cast=True,
                                clean_shutdown=clean_shutdown)


def start(ctx, instance):
    _simple(ctx, instance, "start", [STOPPED], "powering-on", "start",
            compute_rpc().start_instance, host=True)


def reboot(ctx, instance, reboot_type):
    """``reboot_type`` "SOFT" or "HARD" (upper case)."""
    check_locked(ctx, instance)
    if reboot_type == "SOFT":
        check_state(instance, "reboot", vm_state=[ACTIVE])
        claim(instance, "rebooting")
    else:
        check_state(instance, "reboot", vm_state=HARD_REBOOT_VM_STATES,
                    task_state=HARD_REBOOT_ALLOWED_TASKS)
        # A hard reboot overrides the task it interrupts: CAS over it.
        claim(instance, "rebooting_hard", expected=HARD_REBOOT_ALLOWED_TASKS)
    record_action(instance, "reboot")
    compute_rpc().reboot_instance(instance._context, instance,
                                  block_device_info=None,
                                  reboot_type=reboot_type)


def pause(ctx, instance):
    _simple(ctx, instance, "pause", [ACTIVE], "pausing", "pause",
            compute_rpc().pause_instance)


def unpause(ctx, instance):
    _simple(ctx, instance, "unpause", [PAUSED], "unpausing", "unpause",
            compute_rpc().unpause_instance)


def suspend(ctx, instance):
    _simple(ctx, instance, "suspend", [ACTIVE], "suspending", "suspend",
            compute_rpc().suspend_instance)


def resume(ctx, instance):
    _simple(ctx, instance, "resume", [SUSPENDED], "resuming", "resume",
            compute_rpc().resume_instance)


def trigger_crash_dump(ctx, instance):
    """No task_state: the crash dump changes nothing Nova tracks."""
    check_locked(ctx, instance)
    check_host(instance)
    check_state(instance, "trigger_crash_dump",
                vm_state=CRASH_DUMP_VM_STATES)
    record_action(instance, "trigger_crash_dump")
    compute_rpc().trigger_crash_dump(instance._context, instance)
