"""``keel manage`` end to end on SQLite files: output and exit codes."""
import sqlalchemy as sa
import pytest

from keel.cmd import manage
from keel.cmd import manage_cell_v2
from keel.db import migration
from keel.db import session

CELL0 = "00000000-0000-0000-0000-000000000000"


@pytest.fixture
def env(tmp_path):
    """A nova.conf with SQLite API and cell databases; run(...) runs."""
    conf = tmp_path / "nova.conf"
    conf.write_text(
        "[DEFAULT]\n"
        "transport_url = rabbit://guest:s3cret@127.0.0.1:5672/\n"
        "[api_database]\n"
        f"connection = sqlite:///{tmp_path}/nova_api.sqlite\n"
        "max_retries = 2\nretry_interval = 0\n"
        "[database]\n"
        f"connection = sqlite:///{tmp_path}/nova.sqlite\n"
        "max_retries = 2\nretry_interval = 0\n")

    class Env:
        path = tmp_path
        api_url = f"sqlite:///{tmp_path}/nova_api.sqlite"
        cell_url = f"sqlite:///{tmp_path}/nova.sqlite"

        def run(self, *argv):
            return manage.main(["--config-file", str(conf), *argv])

        def api(self, sql):
            return _query(self.api_url, sql)

    session.reset()
    yield Env()
    session.reset()


def _query(url, sql):
    eng = sa.create_engine(url)
    try:
        with eng.begin() as conn:
            result = conn.exec_driver_sql(sql)
            return result.all() if result.returns_rows else None
    finally:
        eng.dispose()


def _out(capsys):
    return capsys.readouterr().out


def test_api_db_and_db_sync_and_version(env, capsys):
    assert env.run("api_db", "version") == 0
    assert _out(capsys).strip() == "None"
    assert env.run("api_db", "sync") == 0
    assert env.run("api_db", "sync") == 0  # no-op
    assert env.run("api_db", "sync", migration.BASELINE["api"]) == 0
    capsys.readouterr()
    assert env.run("api_db", "sync", "bogus") == 1
    assert "ERROR: unknown API database version 'bogus'" in _out(capsys)
    assert env.run("api_db", "version") == 0
    assert _out(capsys).strip() == migration.BASELINE["api"]

    assert env.run("db", "sync") == 0
    assert "WARNING: cell0 mapping not found - not syncing cell0." in \
        _out(capsys)
    assert env.run("db", "version") == 0
    assert _out(capsys).strip() == migration.BASELINE["main"]


def test_db_sync_fans_out_to_cell0_unless_local_cell(env, capsys):
    env.run("api_db", "sync")
    assert env.run("cell_v2", "map_cell0") == 0
    cell0_file = env.path / "nova_cell0.sqlite"
    assert env.api("SELECT name, transport_url, database_connection FROM "
                   "cell_mappings WHERE uuid = '%s'" % CELL0) == [
        ("cell0", "none:///", f"sqlite:///{cell0_file}")]

    assert env.run("db", "sync", "--local_cell") == 0
    assert not cell0_file.exists()
    assert env.run("db", "sync") == 0
    assert migration.db_version("main", f"sqlite:///{cell0_file}") == \
        migration.BASELINE["main"]
    assert "WARNING" not in _out(capsys)


def test_db_sync_reports_unreachable_cell0(env, capsys):
    env.run("api_db", "sync")
    env.run("cell_v2", "map_cell0", "--database_connection",
            "mysql+pymysql://nova:pw@127.0.0.1:9/nova_cell0")
    capsys.readouterr()
    assert env.run("db", "sync") == 1
    out = _out(capsys)
    assert "ERROR: Could not access cell0.\n" in out
    assert "SQL connection failed. 2 attempts left." in out  # oslo.db retry
    assert "Has \"nova-manage cell_v2 map_cell0\" been run?" in out


def test_sync_of_a_refused_database_is_a_clear_error(env, capsys):
    _query(env.api_url, "CREATE TABLE alembic_version (version_num "
                        "VARCHAR(32) NOT NULL PRIMARY KEY)")
    _query(env.api_url, "INSERT INTO alembic_version VALUES ('d67eeaabee36')")
    assert env.run("api_db", "sync") == 1
    out = _out(capsys)
    assert out.startswith("ERROR: the API database is at upstream Nova "
                          "revision d67eeaabee36")
    assert "Traceback" not in out


def test_unreachable_database_fails_cleanly(tmp_path, capsys):
    conf = tmp_path / "nova.conf"
    conf.write_text("[api_database]\n"
                    "connection = mysql+pymysql://root@127.0.0.1:9/nova_api\n"
                    "max_retries = 2\nretry_interval = 0\n")
    session.reset()
    assert manage.main(["--config-file", str(conf), "api_db", "sync"]) == 1
    out = _out(capsys)
    assert "SQL connection failed. 2 attempts left." in out
    assert "ERROR: could not connect to the database" in out
    assert "Traceback" not in out


def test_missing_connection_option(tmp_path, capsys):
    conf = tmp_path / "nova.conf"
    conf.write_text("[DEFAULT]\n")
    assert manage.main(["--config-file", str(conf), "api_db", "sync"]) == 1
    assert "[api_database]/connection is not set" in _out(capsys)


def test_usage_errors_exit_2(env, capsys):
    assert env.run("nosuchcategory", "x") == 2
    assert env.run("db") == 2
    assert env.run("cell_v2", "delete_cell") == 2  # --cell_uuid required
    err = capsys.readouterr().err
    assert "--cell_uuid" in err


def test_map_cell0_twice_and_default_urls(env, capsys):
    env.run("api_db", "sync")
    assert env.run("cell_v2", "map_cell0") == 0
    assert env.run("cell_v2", "map_cell0") == 0
    assert _out(capsys).strip() == "Cell0 is already setup"

    f = manage_cell_v2.cell0_default_connection
    assert f("mysql+pymysql://nova:p%40ss@db:3306/nova?charset=utf8") == \
        "mysql+pymysql://nova:p@ss@db:3306/nova_cell0?charset=utf8"
    assert f("postgresql+psycopg://n@db/nova") == \
        "postgresql+psycopg://n@db/nova_cell0"
    assert f("sqlite:////var/lib/keel/nova.sqlite") == \
        "sqlite:////var/lib/keel/nova_cell0.sqlite"
    with pytest.raises(ValueError):
        f("sqlite://")


def _cells(env):
    return env.api("SELECT name, uuid, transport_url, database_connection, "
                   "disabled FROM cell_mappings ORDER BY id")


def test_create_and_list_cells(env, capsys):
    env.run("api_db", "sync")
    env.run("cell_v2", "map_cell0")
    capsys.readouterr()
    assert env.run("cell_v2", "create_cell", "--name", "cell1",
                   "--verbose") == 0
    out = _out(capsys).splitlines()
    assert out[0] == ("--transport-url not provided in the command line, "
                      "using the value [DEFAULT]/transport_url from the "
                      "configuration file")
    cell1 = _cells(env)[1]
    assert out[-1] == cell1[1]
    assert cell1[2:] == ("rabbit://guest:s3cret@127.0.0.1:5672/",
                         env.cell_url, 0)

    # Same URLs as cell1: refused with 2.
    assert env.run("cell_v2", "create_cell", "--name", "again") == 2
    assert ("already exists for another cell with uuid %s." % cell1[1]) in \
        _out(capsys)
    assert env.run("cell_v2", "create_cell", "--transport-url", "nope",
                   "--database_connection", "sqlite:///x") == 1
    assert "Invalid transport URL" in _out(capsys)
    assert env.run("cell_v2", "create_cell", "--name", "cell2",
                   "--transport-url", "rabbit://u:pw@mq2:5672/",
                   "--database_connection", "sqlite:///c2.sqlite",
                   "--disabled") == 0
    assert _cells(env)[2][0] == "cell2" and _cells(env)[2][4] == 1

    capsys.readouterr()
    assert env.run("cell_v2", "list_cells") == 0
    table = _out(capsys)
    header = table.splitlines()[1]
    assert [c.strip() for c in header.split("|")[1:-1]] == [
        "Name", "UUID", "Transport URL", "Database Connection", "Disabled"]
    assert "rabbit://guest:****@127.0.0.1:5672/" in table
    assert "s3cret" not in table
    assert "none:///" in table
    rows = [line for line in table.splitlines() if "cell" in line]
    assert [r.split("|")[1].strip() for r in rows] == \
        ["cell0", "cell1", "cell2"]
    assert env.run("cell_v2", "list_cells", "--verbose") == 0
    assert "s3cret" in _out(capsys)


def test_create_cell_without_database_connection(tmp_path, capsys):
    conf = tmp_path / "nova.conf"
    conf.write_text("[api_database]\n"
                    f"connection = sqlite:///{tmp_path}/api.sqlite\n")
    assert manage.main(["--config-file", str(conf), "cell_v2",
                        "create_cell"]) == 1
    # oslo.messaging's transport_url defaults to rabbit://, so only the
    # database connection is missing here (as with nova-manage).
    assert _out(capsys).splitlines()[-1] == (
        "Must specify --database_connection if [database]/connection is "
        "not set in the configuration file.")


def _add_compute(url, host, uuid, mapped=0):
    _query(url, "INSERT INTO compute_nodes (host, hypervisor_hostname, "
                "vcpus, memory_mb, local_gb, vcpus_used, memory_mb_used, "
                "local_gb_used, hypervisor_type, hypervisor_version, "
                "cpu_info, deleted, uuid, mapped) VALUES "
                f"('{host}', '{host}', 4, 4096, 40, 0, 0, 0, 'kubevirt', 1, "
                f"'{{}}', 0, '{uuid}', {mapped})")


def _add_service(url, host):
    _query(url, "INSERT INTO services (host, \"binary\", topic, "
                f"report_count, deleted) VALUES ('{host}', 'nova-compute', "
                "'compute', 0, 0)")


@pytest.fixture
def cell1(env, capsys):
    """API db synced, cell0 and cell1 mapped, cell1's database synced."""
    env.run("api_db", "sync")
    env.run("cell_v2", "map_cell0")
    env.run("db", "sync", "--local_cell")
    env.run("cell_v2", "create_cell", "--name", "cell1", "--verbose")
    uuid = _out(capsys).splitlines()[-1]
    return uuid


def test_discover_and_list_hosts(env, cell1, capsys):
    assert env.run("cell_v2", "discover_hosts", "--strict") == 1
    _add_compute(env.cell_url, "cmp1", "node-1")
    _add_compute(env.cell_url, "cmp2", "node-2")
    capsys.readouterr()
    assert env.run("cell_v2", "discover_hosts", "--verbose",
                   "--strict") == 0
    out = _out(capsys).splitlines()
    assert out == [
        "Found 2 cell mappings.",
        "Skipping cell0 since it does not contain hosts.",
        f"Getting computes from cell 'cell1': {cell1}",
        "Checking host mapping for compute host 'cmp1': node-1",
        "Creating host mapping for compute host 'cmp1': node-1",
        "Checking host mapping for compute host 'cmp2': node-2",
        "Creating host mapping for compute host 'cmp2': node-2",
        f"Found 2 unmapped computes in cell: {cell1}",
    ]
    assert _query(env.cell_url, "SELECT mapped FROM compute_nodes") == \
        [(1,), (1,)]
    # Nothing new: --strict fails, plain succeeds.
    assert env.run("cell_v2", "discover_hosts", "--strict") == 1
    assert env.run("cell_v2", "discover_hosts") == 0

    # A compute service without a node is found --by-service only.
    _add_service(env.cell_url, "cmp3")
    assert env.run("cell_v2", "discover_hosts", "--strict") == 1
    assert env.run("cell_v2", "discover_hosts", "--by-service",
                   "--cell_uuid", cell1, "--strict") == 0

    capsys.readouterr()
    assert env.run("cell_v2", "list_hosts") == 0
    rows = [[c.strip() for c in line.split("|")[1:-1]]
            for line in _out(capsys).splitlines() if "cmp" in line]
    assert rows == [["cell1", cell1, "cmp1"], ["cell1", cell1, "cmp2"],
                    ["cell1", cell1, "cmp3"]]
    assert env.run("cell_v2", "list_hosts", "--cell_uuid", CELL0) == 0
    assert "cmp" not in _out(capsys)
    assert env.run("cell_v2", "list_hosts", "--cell_uuid", "nope") == 1
    assert _out(capsys).strip() == "Cell with uuid nope was not found."


def test_discover_hosts_race_is_exit_2(env, cell1, capsys, monkeypatch):
    _add_compute(env.cell_url, "cmp1", "node-1")
    # Another discover_hosts mapped the host between our check and insert.
    monkeypatch.setattr(manage_cell_v2, "_host_is_mapped", lambda host: False)
    env.api("INSERT INTO host_mappings (cell_id, host) VALUES (1, 'cmp1')")
    capsys.readouterr()
    assert env.run("cell_v2", "discover_hosts") == 2
    assert _out(capsys).startswith(
        "ERROR: Duplicate host mapping was encountered.")


def test_update_cell(env, cell1, capsys):
    assert env.run("cell_v2", "update_cell", "--cell_uuid", "nope") == 1
    assert env.run("cell_v2", "update_cell", "--cell_uuid", cell1,
                   "--disable", "--enable") == 4
    # As nova-manage, omitted URLs default to the configured ones, which
    # are cell1's: that is a conflict (3) before anything else.
    assert env.run("cell_v2", "update_cell", "--cell_uuid", CELL0,
                   "--disable") == 3
    assert env.run("cell_v2", "update_cell", "--cell_uuid", CELL0,
                   "--disable", "--transport-url", "none:///",
                   "--database_connection", _cells(env)[0][3]) == 5
    assert "Cell0 cannot be disabled." in _out(capsys)
    assert env.run("cell_v2", "update_cell", "--cell_uuid", cell1,
                   "--name", "renamed", "--disable",
                   "--transport-url", "rabbit://x:y@mq9:5672/") == 0
    assert _cells(env)[1][0] == "renamed"
    assert _cells(env)[1][2] == "rabbit://x:y@mq9:5672/"
    assert _cells(env)[1][4] == 1
    capsys.readouterr()
    assert env.run("cell_v2", "update_cell", "--cell_uuid", cell1,
                   "--disable") == 0
    assert f"Cell {cell1} is already disabled" in _out(capsys)
    # cell0's database URL cannot be given to cell1.
    cell0_db = _cells(env)[0][3]
    assert env.run("cell_v2", "update_cell", "--cell_uuid", cell1,
                   "--database_connection", cell0_db) == 3


def test_delete_cell(env, cell1, capsys):
    assert env.run("cell_v2", "delete_cell", "--cell_uuid", "nope") == 1
    assert _out(capsys).strip() == "Cell with uuid nope was not found."
    _add_compute(env.cell_url, "cmp1", "node-1")
    env.run("cell_v2", "discover_hosts")
    capsys.readouterr()
    assert env.run("cell_v2", "delete_cell", "--cell_uuid", cell1) == 2
    assert _out(capsys).strip() == (
        f"There are existing hosts mapped to cell with uuid {cell1}.")

    _query(env.cell_url, "INSERT INTO instances (uuid, deleted) "
                         "VALUES ('inst-1', 0)")
    env.api("INSERT INTO instance_mappings (instance_uuid, cell_id, "
            "project_id) SELECT 'inst-1', id, 'p' FROM cell_mappings "
            f"WHERE uuid = '{cell1}'")
    assert env.run("cell_v2", "delete_cell", "--force",
                   "--cell_uuid", cell1) == 3
    _query(env.cell_url, "UPDATE instances SET deleted = id")
    capsys.readouterr()
    assert env.run("cell_v2", "delete_cell", "--cell_uuid", cell1) == 2
    assert env.run("cell_v2", "delete_cell", "--force",
                   "--cell_uuid", cell1) == 0
    assert [c[0] for c in _cells(env)] == ["cell0"]
    assert env.api("SELECT COUNT(*) FROM host_mappings") == [(0,)]
    assert env.api("SELECT COUNT(*) FROM instance_mappings") == [(0,)]
    # The node can be discovered again into another cell.
    assert _query(env.cell_url, "SELECT mapped FROM compute_nodes") == [(0,)]


def test_delete_cell_with_only_deleted_instances_needs_archive(
        env, cell1, capsys):
    env.api("INSERT INTO instance_mappings (instance_uuid, cell_id, "
            "project_id) SELECT 'inst-1', id, 'p' FROM cell_mappings "
            f"WHERE uuid = '{cell1}'")
    capsys.readouterr()
    assert env.run("cell_v2", "delete_cell", "--cell_uuid", cell1) == 4
    assert _out(capsys).splitlines() == [
        f"There are instance mappings to cell with uuid {cell1}, but all "
        "instances have been deleted in the cell.",
        "So execute 'nova-manage db archive_deleted_rows' to delete the "
        "instance mappings."]
    assert env.run("cell_v2", "delete_cell", "--cell_uuid", cell1,
                   "--force") == 0


def test_delete_host(env, cell1, capsys):
    _add_compute(env.cell_url, "cmp1", "node-1")
    env.run("cell_v2", "discover_hosts")
    capsys.readouterr()
    assert env.run("cell_v2", "delete_host", "--cell_uuid", "nope",
                   "--host", "cmp1") == 1
    assert env.run("cell_v2", "delete_host", "--cell_uuid", cell1,
                   "--host", "other") == 2
    assert env.run("cell_v2", "delete_host", "--cell_uuid", CELL0,
                   "--host", "cmp1") == 3
    _query(env.cell_url, "INSERT INTO instances (uuid, host, deleted) "
                         "VALUES ('inst-1', 'cmp1', 0)")
    assert env.run("cell_v2", "delete_host", "--cell_uuid", cell1,
                   "--host", "cmp1") == 4
    assert _out(capsys).splitlines() == [
        "Cell with uuid nope was not found.",
        "The host other was not found.",
        f"The host cmp1 was not found in the cell {CELL0}.",
        "There are instances on the host cmp1."]
    _query(env.cell_url, "UPDATE instances SET deleted = id")
    assert env.run("cell_v2", "delete_host", "--cell_uuid", cell1,
                   "--host", "cmp1") == 0
    assert env.api("SELECT COUNT(*) FROM host_mappings") == [(0,)]
    assert _query(env.cell_url, "SELECT mapped FROM compute_nodes") == [(0,)]
    # ... so discover_hosts maps it again.
    assert env.run("cell_v2", "discover_hosts", "--strict") == 0


def test_verify_instance(env, cell1, capsys):
    def map_instance(uuid, cell_uuid):
        cell_id = "NULL" if cell_uuid is None else (
            f"(SELECT id FROM cell_mappings WHERE uuid = '{cell_uuid}')")
        env.api("INSERT INTO instance_mappings (instance_uuid, cell_id, "
                f"project_id) VALUES ('{uuid}', {cell_id}, 'p')")

    map_instance("building", None)
    for uuid, deleted in (("live", "0"), ("gone", "id")):
        _query(env.cell_url, "INSERT INTO instances (uuid, deleted) "
                             f"VALUES ('{uuid}', 0)")
        _query(env.cell_url, f"UPDATE instances SET deleted = {deleted} "
                             f"WHERE uuid = '{uuid}'")
        map_instance(uuid, cell1)
    map_instance("archived", cell1)
    capsys.readouterr()
    codes = [env.run("cell_v2", "verify_instance", "--uuid", u)
             for u in ("live", "nope", "building", "gone", "archived")]
    assert codes == [0, 1, 2, 3, 4]
    assert _out(capsys).splitlines() == [
        f"Instance live is in cell: cell1 ({cell1})",
        "Instance nope is not mapped to a cell (upgrade is incomplete) or "
        "instance does not exist",
        "Instance building is not mapped to a cell",
        "The instance with uuid gone has been deleted.",
        "Execute `nova-manage db archive_deleted_rows` command to archive "
        "this deleted instance and remove its instance_mapping.",
        "The instance with uuid archived has been archived.",
        "However its instance_mapping remains."]
    assert env.run("cell_v2", "verify_instance", "--uuid", "gone",
                   "--quiet") == 3
    assert _out(capsys) == ""


def test_category_registry_is_extensible(env, capsys):
    calls = []

    @manage.category("zz_test")
    class ZzCommands:
        """Test category."""

        @manage.args("--flag", action="store_true")
        @manage.args("name", nargs="?", help="a name")
        def act(self, name=None, flag=False):
            calls.append((name, flag))
            return 7

    try:
        assert env.run("zz_test", "act", "bob", "--flag") == 7
        assert calls == [("bob", True)]
    finally:
        del manage.CATEGORIES["zz_test"]
    assert env.run("zz_test", "act") == 2


def test_conf_is_reusable_after_a_run(env):
    """A later plain parse must not ask for a manage category."""
    from keel.cmd import common
    from keel.conf import CONF
    env.run("api_db", "version")
    common.parse_args([], "other", setup_logging=False)
    assert CONF.api_database.connection is None
