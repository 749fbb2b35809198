"""instance.update follows [notifications]/notify_on_state_change."""
import datetime

import pytest

from keel import objects
from keel.notifications import audit
from keel.notifications import instance as notify
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications import conftest as c


def _old(vm_state, task_state, name="some-server"):
    return objects.Instance(vm_state=vm_state, task_state=task_state,
                            display_name=name)


@pytest.mark.parametrize("mode,old,expected", [
    # Not configured: nothing, whatever changed.
    (None, ("building", None), []),
    # vm_state mode: a task-only change is a plain update (old = new).
    ("vm_state", ("active", "powering-off"),
     [("active", "active", "powering-on", "powering-on")]),
    ("vm_state", ("building", "spawning"),
     [("building", "active", "spawning", "powering-on")]),
    ("vm_and_task_state", ("active", "powering-off"),
     [("active", "active", "powering-off", "powering-on")]),
])
def test_modes(ctx, mode, old, expected):
    inst = c.make_instance(ctx, vm_state="active", task_state="powering-on")
    with NotificationCapture(fmt="versioned",
                             notify_on_state_change=mode) as cap:
        notify.send_update(ctx, _old(*old), inst)
        got = [tuple(n["payload"]["nova_object.data"]["state_update"][
            "nova_object.data"][k] for k in (
                "old_state", "state", "old_task_state", "new_task_state"))
            for n in cap.versioned]
    assert got == expected


def test_rename_reports_the_old_name(ctx):
    inst = c.make_instance(ctx, display_name="after")
    with NotificationCapture(fmt="versioned",
                             notify_on_state_change="vm_state") as cap:
        notify.send_update(ctx, _old("active", None, "before"), inst)
        sent = cap.wait_for("instance.update")
    assert sent["payload"]["nova_object.data"]["old_display_name"] == \
        "before"


def test_a_failing_payload_never_fails_the_caller(ctx):
    inst = c.make_instance(ctx)
    # No flavor and no context to load it with: no payload can be built.
    delattr(inst, "flavor")
    inst._context = None
    with NotificationCapture(fmt="both",
                             notify_on_state_change="vm_state") as cap:
        notify.send_update(ctx, _old("building", None), inst)
        assert cap.all == []


@pytest.mark.parametrize("unit,now,begin,end", [
    ("month", datetime.datetime(2012, 10, 29, 13, 42),
     datetime.datetime(2012, 9, 1), datetime.datetime(2012, 10, 1)),
    ("month", datetime.datetime(2012, 1, 3),
     datetime.datetime(2011, 12, 1), datetime.datetime(2012, 1, 1)),
    ("month@15", datetime.datetime(2012, 10, 3),
     datetime.datetime(2012, 8, 15), datetime.datetime(2012, 9, 15)),
    ("day", datetime.datetime(2012, 10, 29, 13, 42),
     datetime.datetime(2012, 10, 28), datetime.datetime(2012, 10, 29)),
    ("hour", datetime.datetime(2012, 10, 29, 13, 42),
     datetime.datetime(2012, 10, 29, 12), datetime.datetime(2012, 10, 29,
                                                            13)),
    ("year", datetime.datetime(2012, 10, 29),
     datetime.datetime(2011, 1, 1), datetime.datetime(2012, 1, 1)),
])
def test_audit_periods(unit, now, begin, end):
    assert audit.last_completed_audit_period(unit, before=now) == (begin,
                                                                   end)
