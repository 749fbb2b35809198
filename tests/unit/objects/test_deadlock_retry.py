"""A database deadlock re-runs the object calls Nova retries (its
wrap_db_retry(max_retries=5, retry_on_deadlock=True)), once per outermost
transaction: on SQLite, and on the machine's MariaDB where the injected
error is the server's own (pymysql 1213, turned into DBDeadlock by oslo.db's
filters)."""
import types

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import pymysql
import pytest
import sqlalchemy as sa

from keel import context as keel_context
from keel.db import session
from keel import objects
from keel.objects import db_helpers as h
from tests.fixtures import databases

objects.register_all()


@pytest.fixture(params=["sqlite",
                        pytest.param("mysql", marks=pytest.mark.integration)])
def backend(request, tmp_path, monkeypatch):
    # oslo.db sleeps 1 s before the first retry: recorded, not waited.
    sleeps = []
    monkeypatch.setattr(oslo_db_api, "time",
                        types.SimpleNamespace(sleep=sleeps.append))
    with databases.keel_databases(request.param, tmp_path, "keel_dl"):
        yield request.param, sleeps


def _deadlock(backend_name):
    if backend_name == "mysql":
        # What the server answers; oslo.db's filter makes it DBDeadlock.
        return pymysql.err.OperationalError(
            1213, "Deadlock found when trying to get lock; "
                  "try restarting transaction")
    return db_exc.DBDeadlock()   # SQLite has no deadlock error of its own


class Injector(object):
    """Fails the first ``fail`` statements starting with ``prefix`` with
    a deadlock; counts those that then ran."""

    def __init__(self, backend_name, prefix, fail=1):
        self.backend_name = backend_name
        self.prefix = prefix
        self.fail = fail
        self.failed = 0
        self.ran = 0
        self.engine = session.cell_engine()
        sa.event.listen(self.engine, "before_cursor_execute", self._before)
        sa.event.listen(self.engine, "after_cursor_execute", self._after)

    def _before(self, conn, cursor, statement, *args):
        if statement.startswith(self.prefix) and self.failed < self.fail:
            self.failed += 1
            raise _deadlock(self.backend_name)

    def _after(self, conn, cursor, statement, *args):
        if statement.startswith(self.prefix):
            self.ran += 1

    def remove(self):
        sa.event.remove(self.engine, "before_cursor_execute", self._before)
        sa.event.remove(self.engine, "after_cursor_execute", self._after)


def _ctx():
    return keel_context.RequestContext(user_id="fake-user",
                                       project_id="fake-project")


def _instance(ctx):
    inst = objects.Instance(ctx, uuid=uuidutils.generate_uuid(),
                            project_id="fake-project", user_id="fake-user",
                            host="host1", vm_state="building",
                            task_state="scheduling", display_name="vm")
    inst.create()
    return inst


def _stored(ctx, uuid):
    return objects.Instance.get_by_uuid(ctx, uuid)


def test_save_retried_after_deadlock(backend):
    name, sleeps = backend
    ctx = _ctx()
    inst = _instance(ctx)
    inj = Injector(name, "UPDATE instances")
    try:
        inst.task_state = "spawning"
        inst.save(expected_task_state="scheduling")
    finally:
        inj.remove()
    assert (inj.failed, inj.ran) == (1, 1)
    assert len(sleeps) == 1
    assert _stored(ctx, inst.uuid).task_state == "spawning"
    assert not inst.obj_what_changed()


def test_save_in_outer_transaction_not_retried(backend):
    name, sleeps = backend
    ctx = _ctx()
    inst = _instance(ctx)
    inj = Injector(name, "UPDATE instances")
    try:
        with pytest.raises(db_exc.DBDeadlock):
            with h.cell_core_writer(ctx):
                inst.task_state = "spawning"
                inst.save(expected_task_state="scheduling")
    finally:
        inj.remove()
    # The caller's transaction is the one to re-run: save ran once.
    assert (inj.failed, inj.ran) == (1, 0)
    assert sleeps == []
    assert _stored(ctx, inst.uuid).task_state == "scheduling"


def test_deadlock_retries_are_bounded(backend):
    name, sleeps = backend
    ctx = _ctx()
    inst = _instance(ctx)
    inj = Injector(name, "UPDATE instances", fail=10)
    try:
        inst.display_name = "renamed"
        with pytest.raises(db_exc.DBDeadlock):
            inst.save()
    finally:
        inj.remove()
    assert inj.failed == 6 and len(sleeps) == 5   # 1 try + 5 retries


def test_action_event_start_retried_once(backend):
    name, sleeps = backend
    ctx = _ctx()
    inst = _instance(ctx)
    objects.InstanceAction.action_start(ctx, inst.uuid, "create")
    inj = Injector(name, "INSERT INTO instance_actions_events")
    try:
        objects.InstanceActionEvent.event_start(ctx, inst.uuid,
                                                "compute__do_build")
    finally:
        inj.remove()
    assert (inj.failed, inj.ran) == (1, 1)
    action = objects.InstanceAction.get_by_request_id(ctx, inst.uuid,
                                                      ctx.request_id)
    events = objects.InstanceActionEventList.get_by_action(ctx, action.id)
    assert [e.event for e in events] == ["compute__do_build"]


def test_action_start_not_retried_as_nova(backend):
    # Nova's action_start has no deadlock retry: the error surfaces.
    name, sleeps = backend
    ctx = _ctx()
    inst = _instance(ctx)
    inj = Injector(name, "INSERT INTO instance_actions ")
    try:
        with pytest.raises(db_exc.DBDeadlock):
            objects.InstanceAction.action_start(ctx, inst.uuid, "create")
    finally:
        inj.remove()
    assert sleeps == []


def test_unknown_update_conflict_retried(backend, monkeypatch):
    from keel import exception
    from keel.objects import instance_db
    name, sleeps = backend
    ctx = _ctx()
    inst = _instance(ctx)
    real = instance_db.compare_and_swap
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise exception.UnknownInstanceUpdateConflict(
                instance_uuid=inst.uuid, expected={}, actual={})
        return real(*args, **kwargs)
    monkeypatch.setattr(instance_db, "compare_and_swap", flaky)
    inst.task_state = "spawning"
    inst.save(expected_task_state="scheduling")
    assert len(calls) == 2 and len(sleeps) == 1
    assert _stored(ctx, inst.uuid).task_state == "spawning"


def test_in_transaction_sees_the_open_one(backend):
    ctx = _ctx()
    assert not session.in_transaction(ctx)
    with h.cell_core_writer(ctx):
        assert session.in_transaction(ctx)
        with h.cell_writer(ctx):        # joined: still the caller's
            assert session.in_transaction(ctx)
    assert not session.in_transaction(ctx)
    with h.api_reader(ctx):
        assert session.in_transaction(ctx)
    assert not session.in_transaction(ctx)


class CommitDeadlock(object):
    """Fails the next ``fail`` COMMITs of the cell engine with a deadlock,
    as Galera reports a certification failure: at COMMIT, after every
    statement of the transaction went through."""

    def __init__(self, fail=1):
        self.fail = fail
        self.failed = 0
        self.engine = session.cell_engine()
        sa.event.listen(self.engine, "commit", self._commit)

    def _commit(self, conn):
        if self.failed < self.fail:
            self.failed += 1
            raise db_exc.DBDeadlock()

    def remove(self):
        sa.event.remove(self.engine, "commit", self._commit)


def test_create_retried_after_deadlock_at_commit(backend):
    _name, sleeps = backend
    ctx = _ctx()
    inst = objects.Instance(ctx, uuid=uuidutils.generate_uuid(),
                            project_id="fake-project", user_id="fake-user",
                            vm_state="building", task_state="scheduling",
                            display_name="vm", metadata={"k": "v"},
                            tags=objects.TagList(objects=[
                                objects.Tag(tag="red")]))
    dl = CommitDeadlock()
    try:
        inst.create()
    finally:
        dl.remove()
    # The retry found the object still not created and created it once.
    assert dl.failed == 1 and len(sleeps) == 1
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["metadata", "tags"])
    assert got.id == inst.id and got.metadata == {"k": "v"}
    assert [t.tag for t in got.tags] == ["red"]
    assert not inst.obj_what_changed()
    live = objects.InstanceList.get_by_filters(ctx, {"uuid": inst.uuid})
    assert len(live) == 1


def test_save_retried_after_deadlock_at_commit(backend):
    _name, sleeps = backend
    ctx = _ctx()
    inst = _instance(ctx)
    dl = CommitDeadlock()
    try:
        inst.task_state = "spawning"
        inst.save(expected_task_state="scheduling")
    finally:
        dl.remove()
    assert dl.failed == 1 and len(sleeps) == 1
    assert _stored(ctx, inst.uuid).task_state == "spawning"
    assert inst.task_state == "spawning" and not inst.obj_what_changed()
