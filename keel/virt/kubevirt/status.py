"""KubeVirt object status -> Nova power state and lifecycle transitions
(the status table of the design note, section 2)."""
from keel.virt import event as virtevent
from keel.virt import power_state

# Our annotation: a "suspended" guest is a paused one we marked so.
SUSPENDED_ANNOTATION = "keel.openstack.org/suspended"

# VM printableStatus values that mean a build can never finish by itself.
BUILD_ERRORS = frozenset(("ErrorUnschedulable", "ErrImagePull",
                          "ImagePullBackOff", "DataVolumeError",
                          "ErrorPvcNotFound", "CrashLoopBackOff"))

_BUILDING_VMI_PHASES = frozenset(("", "Pending", "Scheduling", "Scheduled"))


def condition(obj, ctype):
    for cond in ((obj or {}).get("status") or {}).get("conditions") or []:
        if cond.get("type") == ctype:
            return cond
    return None


def is_true(obj, ctype):
    cond = condition(obj, ctype)
    return bool(cond) and cond.get("status") == "True"


def printable_status(vm):
    return ((vm or {}).get("status") or {}).get("printableStatus") or ""


def vmi_phase(vmi):
    return ((vmi or {}).get("status") or {}).get("phase") or ""


def power_state_of(vm, vmi):
    """The power state of a guest from its VM and VMI (either may be None:
    both None means the guest does not exist, which the caller handles).

    A rescued guest (our unrescue annotation on the VM) maps like any other:
    RUNNING while its rescue boot runs, as libvirt reports it; RESCUED is a
    vm_state, which only Nova keeps."""
    if vm is not None and (vm.get("metadata") or {}).get("deletionTimestamp"):
        return power_state.NOSTATE
    if vmi is not None:
        phase = vmi_phase(vmi)
        if phase == "Running":
            if is_true(vmi, "Paused"):
                annotations = ((vm or vmi).get("metadata") or {}).get(
                    "annotations") or {}
                if annotations.get(SUSPENDED_ANNOTATION) == "true":
                    return power_state.SUSPENDED
                return power_state.PAUSED
            return power_state.RUNNING
        if phase == "Succeeded":
            return power_state.SHUTDOWN
        if phase == "Failed":
            return power_state.CRASHED
        if phase in _BUILDING_VMI_PHASES or phase == "Unknown":
            return power_state.NOSTATE
    status = printable_status(vm)
    if status in ("Running", "Paused", "Migrating", "Unknown", ""):
        # The VM's status lags behind its VMI being deleted or created.
        return power_state.NOSTATE
    if status == "CrashLoopBackOff":
        return power_state.CRASHED
    if status in ("Starting", "Provisioning", "Terminating", "Stopping",
                  "WaitingForVolumeBinding"):
        return power_state.NOSTATE
    # Stopped, or a build error outside a build: off (plus a fault upstream).
    return power_state.SHUTDOWN


def build_error(vm, datavolumes=()):
    """A message when the guest cannot come up without intervention."""
    status = printable_status(vm)
    failure = condition(vm, "Failure")
    for dv in datavolumes:
        st = dv.get("status") or {}
        if st.get("phase") == "Failed":
            cond = next((c for c in st.get("conditions") or []
                         if c.get("message")), {})
            return "DataVolume %s failed: %s" % (
                dv["metadata"]["name"], cond.get("message", "import failed"))
    if status in BUILD_ERRORS:
        why = (failure or {}).get("message") or \
            (failure or {}).get("reason") or ""
        return "VirtualMachine is %s%s" % (status, ": " + why if why else "")
    if failure is not None and failure.get("status") == "True":
        return "VirtualMachine failed: %s" % (failure.get("message") or
                                              failure.get("reason"))
    return None


def transition(old_state, new_state):
    """The lifecycle event of a change between two settled power states
    (callers skip NOSTATE, which is "in between"); None if there is none.
    """
    if old_state == new_state:
        return None
    if new_state == power_state.RUNNING:
        if old_state in (power_state.PAUSED, power_state.SUSPENDED):
            return virtevent.EVENT_LIFECYCLE_RESUMED
        return virtevent.EVENT_LIFECYCLE_STARTED
    if new_state in (power_state.SHUTDOWN, power_state.CRASHED):
        if old_state in (power_state.SHUTDOWN, power_state.CRASHED, None):
            return None
        return virtevent.EVENT_LIFECYCLE_STOPPED
    if new_state == power_state.PAUSED:
        return virtevent.EVENT_LIFECYCLE_PAUSED
    if new_state == power_state.SUSPENDED:
        return virtevent.EVENT_LIFECYCLE_SUSPENDED
    return None
