"""A compute host's objects work with no database: every remotable call
crosses a (serialized) conductor stand-in that owns the database."""
import contextlib

import pytest
from oslo_utils import uuidutils

from keel import exception
from keel import objects
from keel.db import session
from keel.objects import base


class SerializingConductor:
    """Does what the conductor's object_* RPC methods do, with every
    argument and result passed through the RPC serializer."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.ser = base.KeelObjectSerializer()
        self.calls = []

    def _wire(self, value):
        return self.ser.deserialize_entity(
            self.ctx, self.ser.serialize_entity(self.ctx, value))

    @contextlib.contextmanager
    def _conductor_side(self):
        saved = base.KeelObject.indirection_api
        base.KeelObject.indirection_api = None
        with _database_allowed():
            try:
                yield
            finally:
                base.KeelObject.indirection_api = saved

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        self.calls.append((objname, objmethod))
        args, kwargs = self._wire(list(args)), self._wire(kwargs)
        with self._conductor_side():
            cls = base.KeelObjectRegistry.obj_classes()[objname][0]
            result = getattr(cls, objmethod)(context, *args, **kwargs)
        return self._wire(result)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        self.calls.append((objinst.obj_name(), objmethod))
        objinst = self._wire(objinst)
        args, kwargs = self._wire(list(args)), self._wire(kwargs)
        with self._conductor_side():
            old = base.snapshot_fields(objinst)
            result = getattr(objinst, objmethod)(*args, **kwargs)
        updates = {}
        for name in base.fields_changed_since(objinst, old):
            field = objinst.fields[name]
            updates[name] = field.to_primitive(objinst, name,
                                               getattr(objinst, name))
        updates["obj_what_changed"] = objinst.obj_what_changed()
        return updates, self._wire(result)


_allowed = [True]


@contextlib.contextmanager
def _database_allowed():
    _allowed.append(True)
    try:
        yield
    finally:
        _allowed.pop()


@pytest.fixture
def compute_host(ctx, monkeypatch):
    """Objects as on a compute: indirection set, database calls fail."""
    def _guard(real):
        def wrapper(context):
            if not _allowed[-1]:
                raise AssertionError("compute opened the database")
            return real(context)
        return wrapper

    for name in ("cell_reader", "cell_writer", "api_reader", "api_writer"):
        monkeypatch.setattr(session, name, _guard(getattr(session, name)))
    conductor = SerializingConductor(ctx)
    base.KeelObject.indirection_api = conductor
    _allowed.append(False)
    yield conductor
    _allowed.pop()
    base.KeelObject.indirection_api = None


def test_compute_side_instance_lifecycle_goes_through_conductor(
        ctx, compute_host):
    with _database_allowed():
        base.KeelObject.indirection_api = None
        inst = objects.Instance(ctx, uuid=uuidutils.generate_uuid(),
                                project_id=ctx.project_id,
                                host="h1", vm_state="building",
                                task_state="spawning", metadata={"a": "1"})
        inst.create()
        base.KeelObject.indirection_api = compute_host
    local = objects.Instance.get_by_uuid(ctx, inst.uuid)
    assert local.host == "h1"
    # Lazy load through the conductor too.
    assert local.metadata == {"a": "1"}
    local.vm_state = "active"
    local.task_state = None
    local.save(expected_task_state=["spawning"])
    assert not local.obj_what_changed()
    stale = objects.Instance.get_by_uuid(ctx, inst.uuid)
    stale.task_state = "deleting"
    with pytest.raises(exception.UnexpectedTaskStateError):
        stale.save(expected_task_state=["spawning"])
    objects.InstanceAction.action_start(ctx, inst.uuid, "create")
    objects.InstanceActionEvent.event_start(ctx, inst.uuid, "spawn")
    objects.InstanceActionEvent.event_finish_with_failure(
        ctx, inst.uuid, "spawn", exc_val=ValueError("boom"))
    assert ("InstanceActionEvent", "event_finish_with_failure") in \
        compute_host.calls
    with _database_allowed():
        base.KeelObject.indirection_api = None
        fresh = objects.Instance.get_by_uuid(ctx, inst.uuid)
        event = objects.InstanceActionEventList.get_by_action(
            ctx, objects.InstanceAction.get_by_request_id(
                ctx, inst.uuid, ctx.request_id).id)[0]
    assert (fresh.vm_state, fresh.task_state) == ("active", None)
    assert event.result == "Error" and event.details == "boom"


def test_compute_side_database_access_is_caught(ctx, compute_host):
    with pytest.raises(AssertionError):
        with session.cell_reader(ctx):
            pass
