"""``keel manage db archive_deleted_rows`` and ``db purge`` on SQLite
(foreign keys enforced, as keel's SQLite sessions set them)."""
import pytest
import sqlalchemy as sa

from keel.cmd import manage
from keel.db import session


@pytest.fixture
def env(tmp_path):
    api_url = f"sqlite:///{tmp_path}/nova_api.sqlite"
    cell_url = f"sqlite:///{tmp_path}/nova.sqlite"
    conf = tmp_path / "nova.conf"
    conf.write_text(f"[api_database]\nconnection = {api_url}\n"
                    f"[database]\nconnection = {cell_url}\n")

    class Env:
        def run(self, *argv):
            return manage.main(["--config-file", str(conf), *argv])

        def cell(self, sql):
            return _query(cell_url, sql)

        def api(self, sql):
            return _query(api_url, sql)

    session.reset()
    e = Env()
    assert e.run("api_db", "sync") == 0
    assert e.run("db", "sync", "--local_cell") == 0
    yield e
    session.reset()


def _query(url, sql):
    eng = sa.create_engine(url)
    try:
        with eng.begin() as conn:
            conn.exec_driver_sql("PRAGMA foreign_keys = ON")
            result = conn.exec_driver_sql(sql)
            return result.all() if result.returns_rows else None
    finally:
        eng.dispose()


def _populate(env):
    """i-live stays; i-gone is deleted with children in both states."""
    env.cell("INSERT INTO instances (id, uuid, deleted) VALUES "
             "(1, 'i-live', 0), (2, 'i-gone', 0)")
    env.cell("INSERT INTO instance_extra (instance_uuid, deleted) VALUES "
             "('i-live', 0), ('i-gone', 0)")
    env.cell("INSERT INTO instance_system_metadata (instance_uuid, key, "
             "value, deleted) VALUES ('i-gone', 'k', 'v', 0)")
    env.cell("INSERT INTO block_device_mapping (instance_uuid, deleted) "
             "VALUES ('i-live', 0), ('i-gone', 0)")
    # Actions and events are never soft-deleted: they go with the instance.
    env.cell("INSERT INTO instance_actions (id, instance_uuid, action, "
             "deleted) VALUES (1, 'i-gone', 'create', 0)")
    env.cell("INSERT INTO instance_actions_events (action_id, event, "
             "deleted) VALUES (1, 'compute_build', 0)")
    env.cell("INSERT INTO services (host, \"binary\", topic, report_count, "
             "deleted) VALUES ('old', 'nova-compute', 'compute', 0, 0)")
    # Soft delete as Nova does it: deleted = id.
    stamp = "deleted_at = '2026-01-01 00:00:00', deleted = id"
    env.cell(f"UPDATE instances SET {stamp} WHERE uuid = 'i-gone'")
    for table in ("instance_extra", "instance_system_metadata",
                  "block_device_mapping"):
        env.cell(f"UPDATE {table} SET {stamp} WHERE instance_uuid = 'i-gone'")
    env.cell(f"UPDATE services SET {stamp}")

    env.api("INSERT INTO instance_groups (id, uuid) VALUES (1, 'g')")
    for uuid in ("i-live", "i-gone"):
        env.api("INSERT INTO instance_mappings (instance_uuid, project_id) "
                f"VALUES ('{uuid}', 'p')")
        env.api("INSERT INTO request_specs (instance_uuid, spec) "
                f"VALUES ('{uuid}', '{{}}')")
        env.api("INSERT INTO instance_group_member (instance_uuid, group_id)"
                f" VALUES ('{uuid}', 1)")


def _table(out):
    return {row[0]: int(row[1]) for row in (
        [c.strip() for c in line.split("|")[1:-1]]
        for line in out.splitlines() if line.startswith("| "))
        if row[0] != "Table"}


def test_archive_moves_deleted_rows_with_dependents(env, capsys):
    _populate(env)
    capsys.readouterr()
    assert env.run("db", "archive_deleted_rows", "--verbose") == 1
    assert _table(capsys.readouterr().out) == {
        "instances": 1, "instance_extra": 1, "instance_system_metadata": 1,
        "block_device_mapping": 1, "instance_actions": 1,
        "instance_actions_events": 1, "services": 1,
        "API_DB.instance_mappings": 1, "API_DB.request_specs": 1,
        "API_DB.instance_group_member": 1}
    assert env.cell("SELECT uuid FROM instances") == [("i-live",)]
    assert env.cell("SELECT uuid, deleted FROM shadow_instances") == \
        [("i-gone", 2)]
    assert env.cell("SELECT instance_uuid FROM block_device_mapping") == \
        [("i-live",)]
    assert env.cell("SELECT event FROM shadow_instance_actions_events") == \
        [("compute_build",)]
    assert env.api("SELECT instance_uuid FROM instance_mappings") == \
        [("i-live",)]
    assert env.api("SELECT instance_uuid FROM request_specs") == \
        [("i-live",)]

    assert env.run("db", "archive_deleted_rows", "--verbose") == 0
    assert capsys.readouterr().out.strip().endswith("Nothing was archived.")


def test_archive_limits_and_dates(env, capsys):
    _populate(env)
    assert env.run("db", "archive_deleted_rows", "--before",
                   "2025-06-01") == 0
    assert env.cell("SELECT COUNT(*) FROM shadow_instances") == [(0,)]
    # One soft-deleted row per batch, until everything is done.
    capsys.readouterr()
    assert env.run("db", "archive_deleted_rows", "--max_rows", "1") == 1
    assert env.cell("SELECT COUNT(*) FROM shadow_services") == [(0,)]
    assert env.cell("SELECT COUNT(*) FROM instances") == [(2,)]
    assert env.run("db", "archive_deleted_rows", "--max_rows", "1",
                   "--until-complete", "--verbose") == 1
    out = capsys.readouterr().out
    assert out.startswith("Archiving..") and ".complete" in out
    assert env.cell("SELECT COUNT(*) FROM instances WHERE deleted != 0") == \
        [(0,)]
    assert env.cell("SELECT COUNT(*) FROM services") == [(0,)]

    assert env.run("db", "archive_deleted_rows", "--max_rows", "-1") == 2
    assert env.run("db", "archive_deleted_rows", "--before", "nonsense") == 4
    out = capsys.readouterr().out
    assert "Must supply a positive value for max_rows" in out
    assert "Invalid value for --before:" in out


def test_archive_all_cells_prefixes_tables(env, capsys):
    _populate(env)
    env.run("cell_v2", "map_cell0")
    env.run("db", "sync")
    env.run("cell_v2", "create_cell", "--name", "cell1",
            "--transport-url", "rabbit://h/")
    capsys.readouterr()
    assert env.run("db", "archive_deleted_rows", "--all-cells",
                   "--verbose") == 1
    table = _table(capsys.readouterr().out)
    assert table["cell1.instances"] == 1
    assert table["API_DB.instance_mappings"] == 1


def test_purge(env, capsys):
    _populate(env)
    env.run("db", "archive_deleted_rows")
    capsys.readouterr()
    assert env.run("db", "purge") == 1
    assert env.run("db", "purge", "--before", "nonsense") == 2
    # Everything was deleted on 2026-01-01: nothing older than 2025.
    assert env.run("db", "purge", "--before", "2025-01-01") == 3
    assert env.run("db", "purge", "--all", "--verbose") == 0
    out = capsys.readouterr().out
    assert "Either --before or --all is required" in out
    assert "DB: Deleted 1 rows from shadow_instances" in out
    assert env.cell("SELECT COUNT(*) FROM shadow_instances") == [(0,)]
    assert env.run("db", "purge", "--all") == 3


def test_archive_then_purge_in_one_run(env, capsys):
    _populate(env)
    capsys.readouterr()
    assert env.run("db", "archive_deleted_rows", "--purge", "--verbose") == 1
    out = capsys.readouterr().out
    assert "Rows were archived, running purge..." in out
    assert env.cell("SELECT COUNT(*) FROM shadow_services") == [(0,)]


def test_row_still_referenced_is_left_for_later(env, capsys):
    """share_mapping has no shadow table: its instance stays live."""
    _populate(env)
    env.cell("INSERT INTO share_mapping (instance_uuid, share_id) "
             "VALUES ('i-gone', 's1')")
    capsys.readouterr()
    assert env.run("db", "archive_deleted_rows", "--verbose") == 1
    out = capsys.readouterr().out
    assert "IntegrityError detected when archiving table instances" in out
    table = _table(out)
    assert "instances" not in table and table["services"] == 1
    assert env.cell("SELECT uuid FROM instances ORDER BY id") == \
        [("i-live",), ("i-gone",)]
    # Its instance actions were rolled back with it, not lost.
    assert env.cell("SELECT COUNT(*) FROM instance_actions") == [(1,)]


def test_online_data_migrations_has_nothing_to_do(env, capsys):
    capsys.readouterr()
    assert env.run("db", "online_data_migrations") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Running batches of 50 until complete"
    assert [c.strip() for c in out[2].split("|")[1:-1]] == [
        "Migration", "Total Needed", "Completed"]
    assert env.run("db", "online_data_migrations", "--max-count", "0") == 127
    assert env.run("db", "online_data_migrations", "--max-count", "5") == 0
