"""db_helpers.cell_core_writer / cell_core_reader: object calls whose
statements are all Core run on oslo.db's connection-mode transaction; the
rare ORM work they may still do shares that transaction."""
import pytest
import sqlalchemy as sa

from keel.db.cell import models
from keel import objects
from keel.objects import db_helpers as h
from tests.unit.objects.test_instance_db import _instance


def _tag_rows(ctx, uuid):
    """The instance's tags written here (the test instance has others)."""
    with h.cell_reader(ctx) as s:
        return sorted(t for t in s.execute(sa.select(models.Tag.tag).where(
            models.Tag.resource_id == uuid)).scalars()
            if t in ("core", "orm", "inner"))


def _insert_tag(conn, uuid, tag):
    conn.execute(sa.insert(models.Tag.__table__),
                 {"resource_id": uuid, "tag": tag})


def test_core_work_commits_without_an_orm_session(ctx):
    inst = _instance(ctx)
    with h.cell_core_writer(ctx) as tx:
        assert isinstance(tx.connection(), sa.engine.Connection)
        _insert_tag(tx.connection(), inst.uuid, "core")
        assert tx._session is None
    assert _tag_rows(ctx, inst.uuid) == ["core"]


def test_orm_work_shares_the_transaction_and_is_flushed(ctx):
    inst = _instance(ctx)
    with h.cell_core_writer(ctx) as tx:
        _insert_tag(tx.connection(), inst.uuid, "core")
        # An ORM query sees the Core write (same connection) ...
        rows = tx.execute(sa.select(models.Tag).where(
            models.Tag.resource_id == inst.uuid)).scalars().all()
        assert "core" in [r.tag for r in rows]
        # ... and what is added is flushed before the commit.
        tx.add(models.Tag(resource_id=inst.uuid, tag="orm"))
    assert _tag_rows(ctx, inst.uuid) == ["core", "orm"]


def test_an_error_rolls_back_core_and_orm_work(ctx):
    inst = _instance(ctx)
    with pytest.raises(RuntimeError):
        with h.cell_core_writer(ctx) as tx:
            _insert_tag(tx.connection(), inst.uuid, "core")
            tx.add(models.Tag(resource_id=inst.uuid, tag="orm"))
            raise RuntimeError("boom")
    assert _tag_rows(ctx, inst.uuid) == []


def test_inside_an_outer_transaction_it_is_part_of_it(ctx):
    inst = _instance(ctx)
    with pytest.raises(RuntimeError):
        with h.cell_writer(ctx):
            with h.cell_core_writer(ctx) as tx:
                _insert_tag(tx.connection(), inst.uuid, "inner")
            raise RuntimeError("outer fails")
    assert _tag_rows(ctx, inst.uuid) == []


def test_instance_save_of_metadata_goes_through_the_orm_session(ctx):
    inst = _instance(ctx)
    inst.metadata = {"a": "1"}
    inst.system_metadata = {"b": "2"}
    inst.save()
    got = objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=["metadata", "system_metadata"])
    assert (got.metadata, got.system_metadata) == ({"a": "1"}, {"b": "2"})


def test_disabled_database_access_is_refused(ctx):
    from keel import exception
    h.disable_db_access()
    try:
        with pytest.raises(exception.DBNotAllowed):
            with h.cell_core_writer(ctx):
                pass
    finally:
        h.enable_db_access()
