"""Power operations through virt-api subresources; completion is observed
through the watches (design note section 1)."""
import logging

from keel import exception
from keel.virt import power_state
from keel.virt.kubevirt import errors
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status
from keel.virt.kubevirt.ops import build

LOG = logging.getLogger(__name__)

VM = "virtualmachines"
VMI = "virtualmachineinstances"


def _put(drv, instance, plural, action, body=None, ok_conflict=False,
         already=None):
    """The subresource call.  404 is InstanceNotFound.  virt-api answers
    409 when the guest is not in a state for ``action``: success if the
    guest is already where the caller wants it (``already`` state set, or
    ``ok_conflict``), InstanceInvalidState otherwise."""
    try:
        drv.kube.subresource(plural, instance.uuid, action, body)
    except kube.KubeError as err:
        state = drv.guests.state(instance.uuid)
        if err.status == 404 and (plural != VMI or state is None):
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        if err.status not in (404, 409):
            raise
        # A VMI subresource of a stopped guest (no VMI) is a 404.
        if ok_conflict or (already and state in already):
            LOG.debug("%s %s: %s", action, instance.uuid, err.message)
            return False
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr="power_state",
            state=power_state.STATE_MAP.get(state, state), method=action)
    return True


def _wait_state(drv, instance, states, timeout, failure, what):
    uuid = instance.uuid
    if drv.guests.wait(lambda: drv.guests.state(uuid) in states, timeout):
        return
    raise failure(instance_uuid=uuid,
                  reason="not %s after %ss (now %s)" % (
                      what, timeout, power_state.STATE_MAP.get(
                          drv.guests.state(uuid), "gone")))


FINAL_PHASES = ("Succeeded", "Failed")


def power_off(drv, instance, timeout):
    # timeout 0 is "not a clean shutdown": no grace at all.
    _put(drv, instance, VM, "stop", {"gracePeriod": int(timeout or 0)},
         ok_conflict=True)
    uuid = instance.uuid

    def stopped():
        vm, vmi = drv.guests.vm(uuid), drv.guests.vmi(uuid)
        if vm is None:
            return True
        # Also wait for the stop request to be consumed: a start sent
        # while it is pending is refused as "already underway".
        pending = (vm.get("status") or {}).get("stateChangeRequests")
        if vmi is not None:
            # A guest that shut itself down leaves its VMI in a final
            # phase under runStrategy Manual; it is off, and the stop
            # (refused as "not running") leaves no request to wait for.
            return not pending and (vmi.get("status") or {}).get(
                "phase") in FINAL_PHASES
        return status.printable_status(vm) == "Stopped" and not pending
    if not drv.guests.wait(stopped, drv.conf.kubevirt.power_timeout +
                           int(timeout or 0)):
        raise exception.InstancePowerOffFailure(
            instance_uuid=uuid, reason="still running after the stop")


def _vmi_uid(drv, instance):
    vmi = drv.guests.vmi(instance.uuid)
    return vmi["metadata"]["uid"] if vmi is not None else None


def power_on(drv, instance):
    if drv.guests.state(instance.uuid) == power_state.RUNNING:
        return
    # A finished VMI (guest shut down or crashed) is replaced by start.
    old_uid = _vmi_uid(drv, instance)
    _put(drv, instance, VM, "start", ok_conflict=True)
    build.wait_running(drv, instance, drv.conf.kubevirt.power_timeout,
                       exception.InstancePowerOnFailure, old_uid=old_uid)


def reboot(drv, instance, reboot_type):
    uuid = instance.uuid
    if reboot_type == "SOFT" and drv.guests.state(uuid) == \
            power_state.RUNNING:
        # 409: no guest agent and no ACPI, paused, ... -> hard.
        if _put(drv, instance, VMI, "softreboot", ok_conflict=True):
            # There is no "rebooted" signal: the guest must simply stay (or
            # come back) up within reboot_timeout, else it is forced.
            if drv.guests.wait(
                    lambda: drv.guests.state(uuid) == power_state.RUNNING,
                    drv.conf.kubevirt.reboot_timeout):
                return
            LOG.warning("Soft reboot of %s did not finish in %ss; rebooting "
                        "hard", uuid, drv.conf.kubevirt.reboot_timeout)
        else:
            LOG.info("Soft reboot of %s refused; rebooting hard", uuid)
    hard_reboot(drv, instance)


def hard_reboot(drv, instance):
    """restart recreates the launcher pod: a new VMI, the spec re-read."""
    vmi = drv.guests.vmi(instance.uuid)
    old_uid = vmi["metadata"]["uid"] if vmi is not None else None
    if vmi is None or status.vmi_phase(vmi) in ("Succeeded", "Failed"):
        # Nothing runs: a hard reboot is a start (as libvirt's).
        _put(drv, instance, VM, "start", ok_conflict=True)
    else:
        _put(drv, instance, VM, "restart", {"gracePeriodSeconds": 0})
    build.wait_running(drv, instance, drv.conf.kubevirt.power_timeout,
                       exception.InstanceRebootFailure, old_uid=old_uid)


def pause(drv, instance):
    _put(drv, instance, VMI, "pause", {},
         already=(power_state.PAUSED, power_state.SUSPENDED))
    _wait_state(drv, instance, (power_state.PAUSED, power_state.SUSPENDED),
                drv.conf.kubevirt.power_timeout, errors.InstanceStateTimeout,
                "paused")


def unpause(drv, instance):
    _put(drv, instance, VMI, "unpause", {}, already=(power_state.RUNNING,))
    _wait_state(drv, instance, (power_state.RUNNING,),
                drv.conf.kubevirt.power_timeout, errors.InstanceStateTimeout,
                "running")


def _mark_suspended(drv, instance, on):
    value = "true" if on else None
    drv.kube.patch(kube.VM, instance.uuid, {"metadata": {"annotations": {
        status.SUSPENDED_ANNOTATION: value}}})


def suspend(drv, instance):
    """KubeVirt has no save-to-disk: a pause we mark as a suspension."""
    _mark_suspended(drv, instance, True)
    # The mark must be in our cache before the VMI pauses, or the pause
    # would be seen (and announced) as a plain PAUSED.
    uuid = instance.uuid
    drv.guests.wait(lambda: ((drv.guests.vm(uuid) or {}).get("metadata", {})
                             .get("annotations") or {}).get(
        status.SUSPENDED_ANNOTATION) == "true",
        drv.conf.kubevirt.power_timeout)
    _put(drv, instance, VMI, "pause", {},
         already=(power_state.PAUSED, power_state.SUSPENDED))
    _wait_state(drv, instance, (power_state.SUSPENDED,),
                drv.conf.kubevirt.power_timeout, errors.InstanceStateTimeout,
                "suspended")


def resume(drv, instance):
    unpause(drv, instance)
    _mark_suspended(drv, instance, False)
