"""Instance.save sends instance.update (Nova's Instance.save does) when
[notifications]/notify_on_state_change is set, and does no extra work
otherwise."""
import sqlalchemy as sa

from keel.db import session
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications import conftest as c


class _Statements:
    def __init__(self):
        self.sql = []
        self.engine = session.cell_engine()

    def _seen(self, conn, cursor, statement, *args):
        self.sql.append(statement)

    def __enter__(self):
        sa.event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *exc):
        sa.event.remove(self.engine, "before_cursor_execute", self._seen)


def test_state_change_sends_instance_update(ctx):
    inst = c.make_instance(ctx, vm_state="building", task_state="spawning")
    with NotificationCapture(fmt="both",
                             notify_on_state_change="vm_state") as cap:
        inst.vm_state = "active"
        inst.task_state = None
        inst.save(expected_task_state="spawning")
        versioned = cap.wait_for("instance.update")
        legacy = cap.wait_for("compute.instance.update", versioned=False)
    update = versioned["payload"]["nova_object.data"]["state_update"][
        "nova_object.data"]
    assert update == {"old_state": "building", "state": "active",
                      "old_task_state": "spawning", "new_task_state": None}
    assert (legacy["payload"]["old_state"], legacy["payload"]["state"]) == (
        "building", "active")
    # The saved object was not touched by the payload's lazy loads.
    assert not inst.obj_attr_is_set("tags")


def test_rename_is_a_plain_update(ctx):
    inst = c.make_instance(ctx, display_name="before")
    with NotificationCapture(fmt="versioned",
                             notify_on_state_change="vm_state") as cap:
        inst.display_name = "after"
        inst.save()
        sent = cap.wait_for("instance.update")
    assert sent["payload"]["nova_object.data"]["old_display_name"] == \
        "before"


def test_off_no_extra_statement_and_no_notification(ctx):
    inst = c.make_instance(ctx)
    with NotificationCapture(fmt="both") as cap:  # mode unset
        with _Statements() as off:
            inst.progress = 10
            inst.save()
        assert cap.all == []
    with NotificationCapture(fmt="both",
                             notify_on_state_change="vm_state") as cap:
        with _Statements() as on:
            inst.progress = 20
            inst.save()
        cap.wait_for("instance.update")
    def old_state_reads(sql):
        return [q for q in sql if q.startswith(
            "SELECT instances.vm_state, instances.task_state, "
            "instances.display_name")]
    assert len(old_state_reads(on.sql)) == 1
    assert old_state_reads(off.sql) == []
    # Off, the save is exactly its own statements: UPDATE + updated_at.
    assert len(off.sql) < len(on.sql)


def test_failed_compare_and_swap_sends_nothing(ctx):
    from keel import exception
    inst = c.make_instance(ctx, task_state="spawning")
    with NotificationCapture(fmt="both",
                             notify_on_state_change="vm_state") as cap:
        inst.vm_state = "active"
        try:
            inst.save(expected_task_state="deleting")
        except exception.UnexpectedTaskStateError:
            pass
        else:
            raise AssertionError("save should have failed")
        assert cap.all == []
