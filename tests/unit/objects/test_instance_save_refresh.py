"""Instance.save leaves the object as the row is after the write, as Nova's
save does (instance_update_and_get_original, then _from_db_object of the
updated row): columns another writer changed meanwhile come back to the
caller, and the instance.update notification carries them.

KEEL_OBJECTS_TEST_BACKEND=mysql / postgresql runs these on the real
servers (MariaDB reads the row with a SELECT, the others with RETURNING).
"""
import pytest

from keel import exception
from keel.notifications.testing import NotificationCapture
from keel import objects
from tests.unit.objects.test_instance_db import _instance
from tests.unit.objects.test_instance_statements import _naive
from tests.unit.objects.test_instance_statements import _save_statements
from tests.unit.objects.test_instance_statements import _statements


def _meanwhile(ctx, uuid, **values):
    """Another writer (the API renaming or locking the server)."""
    other = objects.Instance.get_by_uuid(ctx, uuid)
    for name, value in values.items():
        setattr(other, name, value)
    other.save()
    return other


def test_save_brings_back_columns_changed_by_another_writer(ctx):
    inst = _instance(ctx)
    _meanwhile(ctx, inst.uuid, display_name="renamed", locked=True,
               locked_by="owner", access_ip_v4="192.0.2.7")
    inst.task_state = "spawning"
    with _statements() as seen:
        inst.save(expected_task_state="scheduling")
    # Nothing more than the write needs: RETURNING, or one SELECT.
    assert seen == _save_statements(), seen
    assert inst.display_name == "renamed"
    assert inst.locked is True and inst.locked_by == "owner"
    assert str(inst.access_ip_v4) == "192.0.2.7"
    assert inst.task_state == "spawning"
    assert not inst.obj_what_changed()
    got = objects.Instance.get_by_uuid(ctx, inst.uuid)
    for name in ("display_name", "locked", "task_state", "updated_at",
                 "created_at", "launched_at", "host", "access_ip_v4"):
        assert _naive(getattr(inst, name)) == _naive(getattr(got, name)), \
            name
    # The next save writes this save's change only, not the old name.
    inst.vm_state = "active"
    inst.save()
    assert objects.Instance.get_by_uuid(ctx, inst.uuid).display_name == \
        "renamed"


def test_update_notification_carries_the_other_writers_name(ctx):
    inst = _instance(ctx)
    _meanwhile(ctx, inst.uuid, display_name="renamed")
    inst.task_state = "spawning"
    with NotificationCapture(fmt="versioned",
                             notify_on_state_change="vm_and_task_state") \
            as captured:
        inst.save(expected_task_state="scheduling")
        update = captured.wait_for("instance.update")
    payload = update["payload"]["nova_object.data"]
    assert payload["display_name"] == "renamed"


def test_failed_state_check_leaves_the_object_as_it_was(ctx):
    inst = _instance(ctx)
    _meanwhile(ctx, inst.uuid, display_name="renamed",
               task_state="deleting")
    inst.task_state = "spawning"
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        inst.save(expected_task_state="scheduling")
    assert inst.display_name == "vm"
    assert "task_state" in inst.obj_what_changed()


def test_save_of_object_fields_only_reads_nothing_back(ctx):
    # Nova returns before instance_update_and_get_original: no refresh.
    inst = _instance(ctx)
    _meanwhile(ctx, inst.uuid, display_name="renamed")
    inst.info_cache.network_info = [{"id": "port-1"}]
    with _statements() as seen:
        inst.save()
    assert seen == ["UPDATE"], seen
    assert inst.display_name == "vm"
