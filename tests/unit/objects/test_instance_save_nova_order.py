"""Instance.save in Nova's order: object fields first, then the row only if
a field of the row changed (no UPDATE, so no expected-state check, when
none did); the row's UPDATE of a user context is limited to its project
(Nova's project_only model_query), an admin or elevated one is not."""

import pytest
import sqlalchemy as sa

from keel import context as keel_context
from keel.db import session
from keel import exception
from keel.notifications.testing import NotificationCapture
from keel import objects
from keel.objects import instance_db
from tests.unit.objects.test_instance_db import _instance
from tests.unit.objects.test_instance_statements import _executed
from tests.unit.objects.test_instance_statements import _writes


def _row(ctx, uuid):
    table = instance_db.models.Instance.__table__
    with session.cell_reader(ctx) as s:
        return s.execute(sa.select(table).where(
            table.c.uuid == uuid)).first()


def test_nothing_to_write_runs_no_statement_and_checks_no_state(ctx):
    inst = _instance(ctx, task_state="spawning")
    before = _row(ctx, inst.uuid)
    with _executed() as seen:
        # Nova returns before adding the expected states: no conflict.
        inst.save(expected_task_state="deleting", expected_vm_state="error")
    assert seen == []
    assert _row(ctx, inst.uuid) == before


def test_nothing_to_write_on_a_deleted_instance_is_quiet(ctx):
    inst = _instance(ctx)
    objects.Instance.get_by_uuid(ctx, inst.uuid).destroy()
    inst.save(expected_task_state="scheduling")
    inst.vm_state = "active"
    with pytest.raises(exception.InstanceNotFound):
        inst.save()


def test_object_fields_only_are_written_without_the_state_check(ctx):
    inst = _instance(ctx, task_state="spawning")
    inst.numa_topology = objects.InstanceNUMATopology(
        instance_uuid=inst.uuid, cells=[objects.InstanceNUMACell(
            id=0, cpuset=set([0]), pcpuset=set(), memory=256)])
    inst.info_cache.network_info = [{"id": "port-9",
                                     "address": "fa:16:3e:00:00:09"}]
    before = _row(ctx, inst.uuid)
    with NotificationCapture(fmt="versioned",
                             notify_on_state_change="vm_and_task_state") \
            as cap:
        with _executed() as seen:
            inst.save(expected_task_state="deleting")
        verbs = [sql.split(None, 1)[0].upper() for _, sql, _ in seen]
        # instance_extra and the info cache only; the row is untouched.
        assert verbs == ["UPDATE", "UPDATE"], verbs
        assert all("instances " not in sql for _, sql, _ in seen)
        assert _row(ctx, inst.uuid) == before
        got = objects.Instance.get_by_uuid(
            ctx, inst.uuid, expected_attrs=["numa_topology", "info_cache"])
        assert [c.memory for c in got.numa_topology.cells] == [256]
        assert [v["id"] for v in got.info_cache.network_info] == ["port-9"]
        assert not inst.obj_what_changed()
        # As Nova's early return: no instance.update for that save; the
        # next save that writes the row sends the only one.
        inst.task_state = "networking"
        inst.save(expected_task_state="spawning")
        cap.wait_for("instance.update")
        assert cap.event_types().count("instance.update") == 1


def test_metadata_only_writes_the_row_checks_states_and_stamps(ctx):
    inst = _instance(ctx, task_state="spawning")
    assert inst.updated_at is None
    inst.metadata = {"role": "db"}
    with pytest.raises(exception.UnexpectedTaskStateError):
        inst.save(expected_task_state="deleting")
    inst.save(expected_task_state="spawning")
    # Nova's UPDATE sets updated_at (the column's onupdate) here too.
    assert inst.updated_at is not None
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["metadata"])
    assert got.metadata == {"role": "db"} and got.updated_at is not None


def _other_project_user(ctx):
    return keel_context.RequestContext(user_id="intruder",
                                       project_id="other-project")


def test_user_context_cannot_save_another_projects_instance(ctx):
    inst = _instance(ctx, task_state="spawning")
    before = _row(ctx, inst.uuid)
    for expected in ({}, {"expected_task_state": "spawning"},
                     {"expected_task_state": "deleting"}):
        theirs = objects.Instance.get_by_uuid(ctx, inst.uuid)
        theirs._context = _other_project_user(ctx)
        theirs.display_name = "stolen"
        theirs.metadata = {"owned": "yes"}
        # Not found, never a state conflict that would reveal the row.
        with pytest.raises(exception.InstanceNotFound):
            theirs.save(**expected)
    assert _row(ctx, inst.uuid) == before
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["metadata"])
    assert got.metadata == {"role": "web"}


@pytest.mark.parametrize("who", ["admin", "elevated", "no-identity",
                                 "owner"])
def test_owner_admin_and_elevated_contexts_still_save(ctx, who):
    inst = _instance(ctx)
    other = _other_project_user(ctx)
    saver = {"admin": keel_context.get_admin_context(),
             "elevated": other.elevated(),
             "no-identity": keel_context.get_context(),
             "owner": keel_context.RequestContext(
                 user_id="another-user", project_id="fake-project")}[who]
    theirs = objects.Instance.get_by_uuid(ctx, inst.uuid)
    theirs._context = saver
    theirs.display_name = who
    theirs.save(expected_task_state="scheduling")
    assert objects.Instance.get_by_uuid(ctx, inst.uuid).display_name == who


def test_project_filter_is_a_second_prebuilt_statement(ctx):
    mine = [_instance(ctx), _instance(ctx)]
    admin = keel_context.get_admin_context()
    with _executed() as seen:
        for inst in mine:
            inst.task_state = "networking"
            inst.save(expected_task_state="scheduling")
        for inst in mine:
            inst._context = admin
            inst.task_state = "spawning"
            inst.save(expected_task_state="networking")
    (user_a, sql_ua, params_ua), (user_b, sql_ub, _), \
        (admin_a, sql_aa, params_aa), (admin_b, _, _) = _writes(seen)
    # One statement object per variant, reused; the project is a bound
    # parameter, only in the user context's statement.
    assert user_a is user_b and admin_a is admin_b and user_a is not admin_a
    # (The WHERE clause: the RETURNING list names every column.)
    where_ua = sql_ua.split(" RETURNING ")[0].split(" WHERE ")[1]
    where_aa = sql_aa.split(" RETURNING ")[0].split(" WHERE ")[1]
    assert "project_id" in where_ua and "project_id" not in where_aa
    assert "fake-project" not in sql_ua
    assert "fake-project" in str(params_ua)
    assert "fake-project" not in str(params_aa)
