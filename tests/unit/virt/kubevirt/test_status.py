"""The design note's status table and the lifecycle transitions."""
import pytest

from keel.virt import event as ev
from keel.virt import power_state as ps
from keel.virt.kubevirt import status


def vm(printable, deleting=False, suspended=False, failure=None):
    md = {"name": "g"}
    if deleting:
        md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if suspended:
        md["annotations"] = {status.SUSPENDED_ANNOTATION: "true"}
    st = {"printableStatus": printable}
    if failure:
        st["conditions"] = [{"type": "Failure", "status": "True",
                             "reason": "Unschedulable", "message": failure}]
    return {"metadata": md, "status": st}


def vmi(phase, paused=False):
    conds = [{"type": "Paused", "status": "True"}] if paused else []
    return {"metadata": {"name": "g"},
            "status": {"phase": phase, "conditions": conds}}


@pytest.mark.parametrize("the_vm,the_vmi,expected", [
    (vm("Stopped"), None, ps.SHUTDOWN),
    (vm("Starting"), vmi("Pending"), ps.NOSTATE),
    (vm("Starting"), vmi("Scheduling"), ps.NOSTATE),
    (vm("Provisioning"), None, ps.NOSTATE),
    (vm("Running"), vmi("Running"), ps.RUNNING),
    (vm("Migrating"), vmi("Running"), ps.RUNNING),
    (vm("Paused"), vmi("Running", paused=True), ps.PAUSED),
    (vm("Paused", suspended=True), vmi("Running", paused=True),
     ps.SUSPENDED),
    (vm("Stopped"), vmi("Succeeded"), ps.SHUTDOWN),
    (vm("Running"), vmi("Failed"), ps.CRASHED),
    (vm("CrashLoopBackOff"), None, ps.CRASHED),
    (vm("Running"), vmi("Unknown"), ps.NOSTATE),
    (vm("ErrorUnschedulable"), vmi("Pending"), ps.NOSTATE),
    (vm("ErrorUnschedulable"), None, ps.SHUTDOWN),
    (vm("DataVolumeError"), None, ps.SHUTDOWN),
    (vm("Terminating", deleting=True), vmi("Running"), ps.NOSTATE),
    (vm("Running"), None, ps.NOSTATE),        # status lags the VMI's delete
    (None, vmi("Running"), ps.RUNNING),
])
def test_power_state_table(the_vm, the_vmi, expected):
    assert status.power_state_of(the_vm, the_vmi) == expected


@pytest.mark.parametrize("old,new,expected", [
    (None, ps.RUNNING, ev.EVENT_LIFECYCLE_STARTED),
    (ps.SHUTDOWN, ps.RUNNING, ev.EVENT_LIFECYCLE_STARTED),
    (ps.RUNNING, ps.SHUTDOWN, ev.EVENT_LIFECYCLE_STOPPED),
    (ps.PAUSED, ps.SHUTDOWN, ev.EVENT_LIFECYCLE_STOPPED),
    (ps.RUNNING, ps.CRASHED, ev.EVENT_LIFECYCLE_STOPPED),
    (ps.RUNNING, ps.PAUSED, ev.EVENT_LIFECYCLE_PAUSED),
    (ps.PAUSED, ps.RUNNING, ev.EVENT_LIFECYCLE_RESUMED),
    (ps.RUNNING, ps.SUSPENDED, ev.EVENT_LIFECYCLE_SUSPENDED),
    (ps.SUSPENDED, ps.RUNNING, ev.EVENT_LIFECYCLE_RESUMED),
    (None, ps.SHUTDOWN, None),
    (ps.RUNNING, ps.RUNNING, None),
])
def test_transitions(old, new, expected):
    assert status.transition(old, new) == expected


def test_build_errors():
    assert status.build_error(vm("Starting")) is None
    msg = status.build_error(vm("ErrorUnschedulable",
                                failure="0/3 nodes are available"))
    assert "ErrorUnschedulable" in msg and "0/3 nodes" in msg
    failed_dv = {"metadata": {"name": "root"}, "status": {
        "phase": "Failed", "conditions": [{"type": "Running",
                                           "message": "quota"}]}}
    assert status.build_error(vm("Provisioning"), [failed_dv]) == \
        "DataVolume root failed: quota"
