"""Power operations on the compute host: start, stop, reboot, pause,
unpause, suspend, resume, crash dump and console output (Nova's compute
manager semantics, through the virt driver contract).

The API has already set the operation's task_state; each operation ends
with one compare-and-swap (``save(expected_task_state=...)``) back to no
task, so an operation another request preempted (a delete) fails instead of
overwriting it. Failures are turned into faults and task_state reverts by
the manager's decorators; suspend and resume additionally put the instance
in ERROR on a driver failure, as Nova does, because the guest may then be
in any state.
"""
import contextlib
import sys

from oslo_log import log as logging

from keel.compute.ops import cleanup
from keel.compute.ops import notify
from keel.compute.ops import shares as share_ops
from keel.compute.ops import states
from keel.conf import CONF
from keel import exception
from keel.virt import power_state

LOG = logging.getLogger(__name__)

# vm_states (keel.compute.ops.states holds the build/delete ones)
PAUSED = "paused"
SUSPENDED = "suspended"
RESCUED = "rescued"

# task_states, Nova's strings
POWERING_OFF = "powering-off"
POWERING_ON = "powering-on"
REBOOTING = "rebooting"
REBOOT_PENDING = "reboot_pending"
REBOOT_STARTED = "reboot_started"
REBOOTING_HARD = "rebooting_hard"
REBOOT_PENDING_HARD = "reboot_pending_hard"
REBOOT_STARTED_HARD = "reboot_started_hard"
PAUSING = "pausing"
UNPAUSING = "unpausing"
SUSPENDING = "suspending"
RESUMING = "resuming"

SOFT_REBOOT_STATES = (REBOOTING, REBOOT_PENDING, REBOOT_STARTED)
HARD_REBOOT_STATES = (REBOOTING_HARD, REBOOT_PENDING_HARD,
                      REBOOT_STARTED_HARD)
# Power states in which a guest counts as off.
OFF_STATES = (power_state.NOSTATE, power_state.SHUTDOWN,
              power_state.CRASHED)
# Seconds between the driver's checks of a graceful shutdown.
SHUTDOWN_RETRY_INTERVAL = 10


def get_power_state(mgr, instance):
    """The guest's power state; a guest the driver does not know is
    NOSTATE (never an error: callers record what they find)."""
    try:
        return mgr.driver.get_info(instance).state
    except exception.InstanceNotFound:
        return power_state.NOSTATE


def set_error_state(instance):
    """vm_state ERROR, no task (Nova's _set_instance_obj_error_state)."""
    instance.vm_state = states.ERROR
    instance.task_state = None
    try:
        instance.save()
    except exception.InstanceNotFound:
        LOG.debug("Instance %s vanished before it could be put in ERROR",
                  instance.uuid)


@contextlib.contextmanager
def error_out_on_exception(instance, instance_state):
    """A driver failure leaves the instance in ERROR; InstanceFaultRollback
    (the driver undid its work) restores ``instance_state`` instead and
    raises the wrapped error."""
    try:
        yield
    except exception.InstanceFaultRollback as rollback:
        instance.vm_state = instance_state
        instance.task_state = None
        instance.save()
        raise rollback.inner_exception
    except Exception:
        set_error_state(instance)
        raise


def power_off_instance(mgr, instance, clean_shutdown=True):
    """Graceful for [DEFAULT]/shutdown_timeout seconds, then forced (a
    timeout of 0 forces at once)."""
    timeout = CONF.shutdown_timeout if clean_shutdown else 0
    mgr.driver.power_off(instance, timeout, SHUTDOWN_RETRY_INTERVAL)


# -- stop / start -------------------------------------------------------------

def stop_instance(mgr, context, instance, clean_shutdown=True):
    with mgr.instance_lock(instance.uuid):
        current = get_power_state(mgr, instance)
        expected = [POWERING_OFF]
        if current in OFF_STATES:
            # Already off (a power sync may be racing this stop): the task
            # may have been cleared meanwhile, accept that too.
            LOG.info("Instance %s is already powered off in the hypervisor "
                     "when stop is called.", instance.uuid)
            expected.append(None)
        notify.both(context, instance, mgr.host, "power_off", "start")
        power_off_instance(mgr, instance, clean_shutdown)
        share_ops.umount_all(mgr, context, instance)
        instance.power_state = get_power_state(mgr, instance)
        instance.vm_state = states.STOPPED
        instance.task_state = None
        instance.save(expected_task_state=expected)
        notify.both(context, instance, mgr.host, "power_off", "end")


def start_instance(mgr, context, instance):
    with mgr.instance_lock(instance.uuid):
        notify.both(context, instance, mgr.host, "power_on", "start")
        shares = share_ops.mount_all(mgr, context, instance)
        extra = {"share_info": shares} if shares else {}
        mgr.driver.power_on(context, instance,
                            cleanup.network_info_of(instance), **extra)
        share_ops.activate_all(shares)
        instance.power_state = get_power_state(mgr, instance)
        if instance.vm_state == "shelved":
            # The unshelve of a SHELVED instance ends here (as Nova's).
            from keel.compute.ops import shelve
            shelve.forget_shelved(context, instance)
        instance.vm_state = states.ACTIVE
        instance.task_state = None
        instance.save(expected_task_state=POWERING_ON)
        notify.both(context, instance, mgr.host, "power_on", "end")


# -- reboot -------------------------------------------------------------------

def reboot_instance(mgr, context, instance, block_device_info, reboot_type):
    """SOFT or HARD reboot. The task moves pending -> started around the
    driver call (each step a CAS). A failed reboot whose guest still runs
    leaves the instance as it was with a fault; any other failure puts it
    in ERROR, as Nova."""
    soft = reboot_type == "SOFT"
    with mgr.instance_lock(instance.uuid):
        expected = SOFT_REBOOT_STATES if soft else HARD_REBOOT_STATES
        instance.task_state = REBOOT_PENDING if soft else REBOOT_PENDING_HARD
        instance.save(expected_task_state=list(expected))
        network_info = cleanup.network_info_of(instance)
        notify.both(context, instance, mgr.host, "reboot", "start")
        instance.power_state = get_power_state(mgr, instance)
        instance.save(expected_task_state=list(expected))
        if instance.power_state != power_state.RUNNING:
            LOG.warning("Trying to reboot a non-running instance %s "
                        "(state: %s expected: %s)", instance.uuid,
                        instance.power_state, power_state.RUNNING)
        new_vm_state = RESCUED if instance.vm_state == RESCUED \
            else states.ACTIVE
        new_power_state = None
        instance.task_state = REBOOT_STARTED if soft else REBOOT_STARTED_HARD
        instance.save(expected_task_state=REBOOT_PENDING if soft
                      else REBOOT_PENDING_HARD)
        try:
            _driver_reboot(mgr, context, instance, network_info,
                           reboot_type, block_device_info)
        except Exception as exc:
            new_power_state = get_power_state(mgr, instance)
            if new_power_state != power_state.RUNNING:
                LOG.error("Cannot reboot instance %s: %s", instance.uuid, exc)
                set_error_state(instance)
                notify.both(context, instance, mgr.host, "reboot", "error",
                            exception=exc)
                raise
            # The guest still runs: record the failure, keep the instance.
            LOG.warning("Reboot of %s failed but the instance is running",
                        instance.uuid)
            _record_fault(mgr, context, instance, exc)
            notify.both(context, instance, mgr.host, "reboot", "error",
                        exception=exc)
        if new_power_state is None:
            new_power_state = get_power_state(mgr, instance)
        instance.power_state = new_power_state
        instance.vm_state = new_vm_state
        instance.task_state = None
        try:
            instance.save()
        except exception.InstanceNotFound:
            LOG.warning("Instance %s disappeared during reboot",
                        instance.uuid)
            return
        notify.both(context, instance, mgr.host, "reboot", "end")


def _driver_reboot(mgr, context, instance, network_info, reboot_type,
                   block_device_info):
    try:
        mgr.driver.reboot(context, instance, network_info, reboot_type,
                          block_device_info=block_device_info)
    except NotImplementedError:
        if reboot_type != "SOFT":
            raise
        # A driver without a guest-cooperative reboot: what a soft reboot
        # that timed out ends with anyway (Nova's drivers fall back too).
        LOG.info("Soft reboot of %s is not supported by the driver; "
                 "rebooting hard", instance.uuid)
        mgr.driver.reboot(context, instance, network_info, "HARD",
                          block_device_info=block_device_info)


def _record_fault(mgr, context, instance, exc):
    from keel.compute import faults
    try:
        faults.add_instance_fault_from_exc(context, instance, exc,
                                           sys.exc_info(), host=mgr.host)
    except Exception:  # noqa: BLE001 - the reboot outcome matters more
        LOG.exception("Could not record the reboot fault of %s",
                      instance.uuid)


# -- pause / suspend ----------------------------------------------------------

def _simple(mgr, context, instance, action, call, vm_state, expected):
    notify.both(context, instance, mgr.host, action, "start")
    call()
    instance.power_state = get_power_state(mgr, instance)
    instance.vm_state = vm_state
    instance.task_state = None
    instance.save(expected_task_state=expected)
    notify.both(context, instance, mgr.host, action, "end")


def pause_instance(mgr, context, instance):
    with mgr.instance_lock(instance.uuid):
        _simple(mgr, context, instance, "pause",
                lambda: mgr.driver.pause(instance), PAUSED, PAUSING)


def unpause_instance(mgr, context, instance):
    with mgr.instance_lock(instance.uuid):
        _simple(mgr, context, instance, "unpause",
                lambda: mgr.driver.unpause(instance), states.ACTIVE,
                UNPAUSING)


def suspend_instance(mgr, context, instance):
    with mgr.instance_lock(instance.uuid):
        # Resume goes back to this state (Nova keeps it in system_metadata).
        instance.system_metadata["old_vm_state"] = instance.vm_state
        notify.both(context, instance, mgr.host, "suspend", "start")
        with error_out_on_exception(instance, instance.vm_state):
            mgr.driver.suspend(context, instance)
        instance.power_state = get_power_state(mgr, instance)
        instance.vm_state = SUSPENDED
        instance.task_state = None
        instance.save(expected_task_state=SUSPENDING)
        notify.both(context, instance, mgr.host, "suspend", "end")


def resume_instance(mgr, context, instance):
    with mgr.instance_lock(instance.uuid):
        network_info = cleanup.network_info_of(instance)
        notify.both(context, instance, mgr.host, "resume", "start",
                    network_info=network_info)
        with error_out_on_exception(instance, instance.vm_state):
            mgr.driver.resume(context, instance, network_info)
        instance.power_state = get_power_state(mgr, instance)
        instance.vm_state = instance.system_metadata.pop(
            "old_vm_state", states.ACTIVE)
        instance.task_state = None
        instance.save(expected_task_state=RESUMING)
        notify.both(context, instance, mgr.host, "resume", "end",
                    network_info=network_info)


# -- crash dump, console ------------------------------------------------------

def trigger_crash_dump(mgr, context, instance):
    """An NMI to the guest; neither task nor power state changes (what it
    does depends on the guest's configuration)."""
    notify.both(context, instance, mgr.host, "trigger_crash_dump", "start")
    mgr.driver.trigger_crash_dump(instance)
    notify.both(context, instance, mgr.host, "trigger_crash_dump", "end")


def tail_log(text, length):
    """The last ``length`` lines (Nova's _tail_log: 0 or junk is empty)."""
    try:
        length = int(length)
    except (TypeError, ValueError):
        length = 0
    if length == 0:
        return ""
    return "\n".join(text.split("\n")[-length:])


def get_console_output(mgr, context, instance, tail_length):
    output = mgr.driver.get_console_output(context, instance)
    if isinstance(output, bytes):
        output = output.decode(errors="replace")
    if tail_length is not None:
        output = tail_log(output, tail_length)
    return output
