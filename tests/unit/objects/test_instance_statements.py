"""Instance.create and Instance.save (and the InstanceMapping update of a
boot) leave the object as a re-read would, without the SELECTs of a re-read
(they run on every boot)."""
import contextlib
import datetime

import pytest
import sqlalchemy as sa

from keel.db import session
from keel import exception
from keel import objects
from tests.unit.objects.test_instance_db import _instance

_ALL = ["metadata", "system_metadata", "info_cache", "tags", "flavor",
        "security_groups"]


@contextlib.contextmanager
def _statements(engine=None):
    seen = []

    def hook(conn, cursor, statement, *args):
        verb = statement.split(None, 1)[0].upper()
        if verb not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(verb)

    engine = engine or session.cell_engine()
    sa.event.listen(engine, "before_cursor_execute", hook)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", hook)


def _save_statements():
    """What a save that writes the row runs: the UPDATE, which returns the
    row where the database can (SQLite, PostgreSQL), else the UPDATE and
    a SELECT of the row (MariaDB has no UPDATE ... RETURNING)."""
    if session.cell_engine().dialect.update_returning:
        return ["UPDATE"]
    return ["UPDATE", "SELECT"]


def _writes(seen):
    """The executions of ``_executed`` that are not SELECTs."""
    return [e for e in seen if not e[1].lstrip().upper().startswith("SELECT")]


def _naive(value):
    # MySQL's DATETIME keeps whole seconds; the object keeps what was
    # written, microseconds included (as Nova's objects do).
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None, microsecond=0)
    return value


def _same_as_reread(ctx, inst):
    got = objects.Instance.get_by_uuid(ctx, inst.uuid, expected_attrs=_ALL)
    for name in inst.fields:
        if name in ("flavor", "old_flavor", "new_flavor"):
            continue
        if name not in _ALL:
            assert inst.obj_attr_is_set(name) == got.obj_attr_is_set(name), \
                name
        if not got.obj_attr_is_set(name) or not inst.obj_attr_is_set(name):
            continue
        mine, theirs = getattr(inst, name), getattr(got, name)
        if name == "info_cache":
            mine, theirs = ([mine.network_info, mine.instance_uuid,
                             mine.deleted],
                            [theirs.network_info, theirs.instance_uuid,
                             theirs.deleted])
        elif name == "tags":
            mine = [(t.resource_id, t.tag) for t in mine]
            theirs = [(t.resource_id, t.tag) for t in theirs]
        elif name == "security_groups":
            mine, theirs = len(mine), len(theirs)
        assert _naive(mine) == _naive(theirs), name


def test_create_writes_without_reading_back(ctx):
    with _statements() as seen:
        inst = _instance(ctx, tags=objects.TagList(objects=[
            objects.Tag(tag="red"), objects.Tag(tag="blue")]))
    assert "SELECT" not in seen, seen
    assert inst.id and not inst.obj_what_changed()
    assert [t.tag for t in inst.tags] == ["blue", "red"]
    assert inst.info_cache.network_info == [] and not inst.deleted
    assert inst.created_at is not None and inst.updated_at is None
    _same_as_reread(ctx, inst)


def test_save_reads_the_row_back_with_its_update(ctx):
    inst = _instance(ctx)
    inst.vm_state = "active"
    inst.task_state = None
    with _statements() as seen:
        inst.save(expected_task_state=["scheduling"])
    assert seen == _save_statements(), seen
    assert inst.updated_at is not None and not inst.obj_what_changed()
    _same_as_reread(ctx, inst)
    # Nothing changed: no statement at all (Nova returns before its
    # UPDATE), updated_at left alone.
    stamp = inst.updated_at
    with _statements() as seen:
        inst.save(expected_vm_state=["active"])
    assert seen == [] and inst.updated_at == stamp


def test_info_cache_save_is_one_update(ctx):
    inst = _instance(ctx)
    cache = objects.InstanceInfoCache.get_by_instance_uuid(ctx, inst.uuid)
    cache.network_info = [{"id": "port-1", "address": "fa:16:3e:00:00:01"}]
    with _statements() as seen:
        cache.save()
    assert seen == ["UPDATE"], seen
    got = objects.InstanceInfoCache.get_by_instance_uuid(ctx, inst.uuid)
    assert [vif["id"] for vif in cache.network_info] == ["port-1"]
    assert got.network_info == cache.network_info
    assert _naive(got.updated_at) == _naive(cache.updated_at)
    assert not cache.obj_what_changed() and not cache.deleted
    # Through Instance.save as well (the compute's usual path): only the
    # cache's UPDATE, no field of the row changed.
    inst.info_cache.network_info = []
    with _statements() as seen:
        inst.save()
    assert seen == ["UPDATE"], seen
    assert objects.InstanceInfoCache.get_by_instance_uuid(
        ctx, inst.uuid).network_info == []


def test_instance_mapping_save_is_one_update(ctx):
    cell = objects.CellMapping(
        ctx, uuid="5d2a3c1e-7b4f-4e6a-9c8d-0e1f2a3b4c5d", name="cell1",
        transport_url="none:///", database_connection="sqlite:///x.sqlite")
    cell.create()
    uuid = "0b9e8d7c-6a5f-4e3d-8c2b-1a0f9e8d7c6b"
    objects.InstanceMapping(ctx, instance_uuid=uuid, project_id="p",
                            user_id="u", cell_mapping=None).create()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)
    mapping.cell_mapping = cell
    with _statements(session.api_engine()) as seen:
        mapping.save()
    assert seen == ["UPDATE"], seen
    assert not mapping.obj_what_changed() and mapping.updated_at
    got = objects.InstanceMapping.get_by_instance_uuid(ctx, uuid)
    assert got.cell_mapping.uuid == cell.uuid
    assert _naive(got.updated_at) == _naive(mapping.updated_at)
    got.destroy()
    mapping.cell_mapping = None
    with pytest.raises(exception.InstanceMappingNotFound):
        mapping.save()


@contextlib.contextmanager
def _executed(engine=None):
    """(statement object, SQL text, parameters) of each execution."""
    seen = []

    def before(conn, clause, multiparams, params, options):
        seen.append([clause, None, None])

    def cursor(conn, cur, statement, parameters, *args):
        if seen and seen[-1][1] is None:
            seen[-1][1:] = [statement, parameters]

    engine = engine or session.cell_engine()
    sa.event.listen(engine, "before_execute", before)
    sa.event.listen(engine, "before_cursor_execute", cursor)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_execute", before)
        sa.event.remove(engine, "before_cursor_execute", cursor)


def _boot_save(inst, host):
    inst.host = host
    inst.node = host
    inst.task_state = "networking"
    inst.save(expected_task_state=("scheduling", None),
              expected_vm_state="building")


def test_save_runs_one_prebuilt_statement_with_bound_values(ctx):
    first = _instance(ctx)
    second = _instance(ctx)
    with _executed() as seen:
        _boot_save(first, "host-a")
        _boot_save(second, "host-b")
    (stmt_a, sql_a, params_a), (stmt_b, sql_b, params_b) = _writes(seen)
    # The same statement object both times: nothing built per save, and
    # the values travel as parameters, not in the SQL text.
    assert stmt_a is stmt_b and sql_a == sql_b
    assert "host-a" not in sql_a and first.uuid not in sql_a
    assert "host-a" in str(params_a) and "host-b" in str(params_b)
    for inst, host in ((first, "host-a"), (second, "host-b")):
        got = objects.Instance.get_by_uuid(ctx, inst.uuid)
        assert (got.host, got.node, got.task_state) == (
            host, host, "networking")
        _same_as_reread(ctx, inst)


def test_save_state_checks_with_null_and_values(ctx):
    inst = _instance(ctx, task_state=None)
    # (state, None): NULL matches as well as the named state.
    inst.task_state = "spawning"
    inst.save(expected_task_state=("scheduling", None))
    inst.task_state = "networking"
    inst.save(expected_task_state=("spawning", None))
    stale = objects.Instance.get_by_uuid(ctx, inst.uuid)
    stale.task_state = "block_device_mapping"
    with pytest.raises(exception.UnexpectedTaskStateError) as err:
        stale.save(expected_task_state=("scheduling", None))
    assert err.value.kwargs["actual"] == {"task_state": "networking"}
    assert err.value.kwargs["expected"] == {
        "task_state": ["scheduling", None]}
    assert objects.Instance.get_by_uuid(ctx, inst.uuid).task_state == \
        "networking"


def test_save_of_a_deleted_instance_is_instance_not_found(ctx):
    inst = _instance(ctx)
    objects.Instance.get_by_uuid(ctx, inst.uuid).destroy()
    inst.vm_state = "active"
    with pytest.raises(exception.InstanceNotFound):
        inst.save(expected_task_state=["scheduling"])
    inst.vm_state = "error"
    with pytest.raises(exception.InstanceNotFound):
        inst.save()


def test_save_writes_extra_blobs_with_a_prebuilt_update(ctx):
    inst = _instance(ctx)
    inst.vcpu_model = None
    inst.numa_topology = objects.InstanceNUMATopology(
        instance_uuid=inst.uuid, cells=[objects.InstanceNUMACell(
            id=0, cpuset=set([0]), pcpuset=set(), memory=128)])
    with _statements() as seen:
        inst.save()
    # instance_extra's UPDATE only: no field of the row changed.
    assert seen == ["UPDATE"], seen
    got = objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=["numa_topology", "vcpu_model"])
    assert got.vcpu_model is None
    assert [c.memory for c in got.numa_topology.cells] == [128]


def test_state_conflicts_are_reported_as_nova_does(ctx):
    inst = _instance(ctx, task_state="spawning")
    inst.vm_state = "active"
    with pytest.raises(exception.UnexpectedTaskStateError) as err:
        inst.save(expected_task_state="networking",
                  expected_vm_state=["stopped", "error"])
    # A kind of InstanceUpdateConflict, as Nova's: code catching the base
    # class (or it over RPC) sees task-state conflicts too.
    assert isinstance(err.value, exception.InstanceUpdateConflict)
    # Every conflicting state, expected values as a list.
    assert err.value.kwargs["expected"] == {
        "task_state": ["networking"], "vm_state": ["stopped", "error"]}
    assert err.value.kwargs["actual"] == {"task_state": "spawning",
                                          "vm_state": "building"}
    assert str(err.value) == (
        "Conflict updating instance %s. Expected: {'task_state': "
        "['networking'], 'vm_state': ['stopped', 'error']}. Actual: "
        "{'task_state': 'spawning', 'vm_state': 'building'}" % inst.uuid)
    # Only the vm_state conflicts: Nova's plain InstanceUpdateConflict
    # naming it alone (not a task-state error, which callers treat apart).
    with pytest.raises(exception.InstanceUpdateConflict) as err:
        inst.save(expected_task_state="spawning",
                  expected_vm_state="stopped")
    assert type(err.value) is exception.InstanceUpdateConflict
    assert err.value.kwargs["expected"] == {"vm_state": ["stopped"]}
    assert err.value.kwargs["actual"] == {"vm_state": "building"}


def _cache_made_by_compute(uuid, vif_id):
    # What a compute sends: a cache it built, not read from the row.
    cache = objects.InstanceInfoCache(instance_uuid=uuid)
    cache.network_info = [{"id": vif_id, "address": "fa:16:3e:00:00:02"}]
    return cache


def _cache_row(ctx, uuid):
    from keel.db.cell import models
    with session.cell_engine().connect() as conn:
        return conn.execute(sa.select(
            models.InstanceInfoCache.__table__).where(
            models.InstanceInfoCache.instance_uuid == uuid)).first()


@pytest.mark.parametrize("row", ["live", "deleted", "missing"])
def test_info_cache_save_of_a_cache_not_read_from_its_row(ctx, row):
    from keel.db.cell import models
    inst = _instance(ctx)
    if row == "deleted":
        objects.Instance.get_by_uuid(ctx, inst.uuid).destroy()
    elif row == "missing":
        with session.cell_engine().begin() as conn:
            conn.execute(sa.delete(models.InstanceInfoCache.__table__))
    before = _cache_row(ctx, inst.uuid)
    cache = _cache_made_by_compute(inst.uuid, "port-9")
    cache._context = ctx
    cache.save()
    after = _cache_row(ctx, inst.uuid)
    # The row (made if missing) is live with the new network info, and
    # the object holds what the row holds.
    assert after.deleted == 0 and after.deleted_at is None
    assert '"port-9"' in after.network_info
    if before is not None:
        assert after.id == before.id
        assert after.created_at == before.created_at
    assert after.updated_at is not None or row == "missing"
    assert [v["id"] for v in cache.network_info] == ["port-9"]
    assert _naive(cache.created_at) == _naive(after.created_at)
    assert _naive(cache.updated_at) == _naive(after.updated_at)
    assert cache.deleted is False and cache.deleted_at is None


def test_save_leaves_nothing_changed_in_nested_objects(ctx):
    inst = objects.Instance.get_by_uuid(
        ctx, _instance(ctx).uuid,
        expected_attrs=["info_cache", "flavor", "metadata"])
    inst.info_cache.network_info = [{"id": "port-3"}]
    inst.flavor.extra_specs = {"hw:cpu_policy": "shared"}
    inst.metadata["k"] = "v"
    inst.task_state = "spawning"
    assert {"info_cache", "flavor", "metadata", "task_state"} <= \
        inst.obj_what_changed()
    inst.save()
    assert not inst.obj_what_changed()
    assert not inst.info_cache.obj_what_changed()
    assert not inst.flavor.obj_what_changed()
    got = objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=["info_cache", "flavor", "metadata"])
    assert [v["id"] for v in got.info_cache.network_info] == ["port-3"]
    assert got.flavor.extra_specs == {"hw:cpu_policy": "shared"}
    assert got.metadata["k"] == "v" and got.task_state == "spawning"
