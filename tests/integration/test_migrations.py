"""Both migration trees on SQLite, MariaDB (PyMySQL) and PostgreSQL
(psycopg 3): ``keel manage api_db|db sync`` twice (the second a no-op) and
``version``; one run through the installed ``keel`` command."""
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from keel.cmd import manage
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import migration
from keel.db import session
from tests.fixtures import databases

pytestmark = pytest.mark.integration

BACKENDS = ["sqlite", "mysql", "postgresql"]


@pytest.fixture
def dbs(tmp_path):
    urls = []

    def make(backend, prefix):
        urls.append(databases.create(backend, prefix, tmp_path))
        return urls[-1]
    yield make
    session.reset()
    for url in urls:
        databases.drop(url)


def schema(url):
    """Every table with its columns, indexes and unique constraints."""
    eng = sa.create_engine(url)
    try:
        insp = sa.inspect(eng)
        return {t: (sorted((c["name"], str(c["type"]), c["nullable"])
                           for c in insp.get_columns(t)),
                    sorted(str(sorted(i.items()))
                           for i in insp.get_indexes(t)),
                    sorted(str(sorted(u.items()))
                           for u in insp.get_unique_constraints(t)))
                for t in insp.get_table_names()}
    finally:
        eng.dispose()


def write_conf(tmp_path, api_url, cell_url):
    conf = tmp_path / "nova.conf"
    conf.write_text(f"[api_database]\nconnection = {api_url}\n"
                    f"[database]\nconnection = {cell_url}\n")
    return conf


@pytest.mark.parametrize("backend", BACKENDS)
def test_sync_twice_and_version(backend, dbs, tmp_path, capsys):
    api_url, cell_url = dbs(backend, "nova_api"), dbs(backend, "nova")
    conf = write_conf(tmp_path, api_url, cell_url)

    def run(*argv):
        return manage.main(["--config-file", str(conf), *argv])

    capsys.readouterr()
    assert run("api_db", "version") == 0
    assert run("db", "version") == 0
    assert capsys.readouterr().out.split() == ["None", "None"]

    assert run("api_db", "sync") == 0
    assert run("db", "sync", "--local_cell") == 0
    first = {"api": schema(api_url), "main": schema(cell_url)}
    assert set(first["api"]) == \
        set(api_models.Base.metadata.tables) | {"alembic_version"}
    assert set(first["main"]) == \
        set(cell_models.Base.metadata.tables) | {"alembic_version"}

    capsys.readouterr()
    assert run("api_db", "sync") == 0
    assert run("db", "sync", "--local_cell") == 0
    assert {"api": schema(api_url), "main": schema(cell_url)} == first
    assert run("api_db", "version") == 0
    assert run("db", "version") == 0
    assert capsys.readouterr().out.split()[-2:] == [
        migration.BASELINE["api"], migration.BASELINE["main"]]


@pytest.mark.parametrize("backend", ["mysql", "postgresql"])
def test_models_work_on_the_migrated_schema(backend, dbs):
    """Soft delete and the shared PostgreSQL enum types on real servers."""
    url = dbs(backend, "nova")
    migration.db_sync("main", connection=url)
    eng = sa.create_engine(url)
    try:
        with sa.orm.Session(eng) as s:
            inst = cell_models.Instance(uuid="i-1", locked_by="admin")
            s.add(inst)
            s.add(cell_models.Migration(instance_uuid="i-1",
                                        migration_type="resize"))
            s.commit()
            inst.soft_delete(s)
            s.commit()
            assert inst.deleted == inst.id
            shadow = cell_models.Base.metadata.tables["shadow_migrations"]
            s.execute(shadow.insert().values(id=1, migration_type="resize",
                                             deleted=1))
            s.commit()
    finally:
        eng.dispose()


def test_keel_command_in_a_separate_process(dbs, tmp_path):
    api_url = dbs("mysql", "nova_api")
    conf = write_conf(tmp_path, api_url, "sqlite://")
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    keel = [sys.executable, "-m", "keel.cmd.main", "manage",
            "--config-file", str(conf)]
    done = subprocess.run(keel + ["api_db", "sync"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert migration.db_version("api", api_url) == migration.BASELINE["api"]


def _create_named(backend, name):
    """A database with an exact name (map_cell0 derives cell0's)."""
    admin = {"mysql": databases.MARIADB_ADMIN_URL,
             "postgresql": databases.POSTGRESQL_ADMIN_URL}[backend]
    eng = sa.create_engine(admin, isolation_level="AUTOCOMMIT")
    q = "`" if backend == "mysql" else '"'
    with eng.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {q}{name}{q}")
    eng.dispose()


@pytest.mark.parametrize("backend", ["mysql", "postgresql"])
def test_cell_v2_commands_on_real_servers(backend, dbs, tmp_path, capsys):
    api_url, cell_url = dbs(backend, "nova_api"), dbs(backend, "nova")
    cell0_name = sa.engine.make_url(cell_url).database + "_cell0"
    _create_named(backend, cell0_name)
    cell0_url = str(sa.engine.make_url(cell_url).set(database=cell0_name))
    try:
        conf = write_conf(tmp_path, api_url, cell_url)

        def run(*argv):
            return manage.main(["--config-file", str(conf), *argv])

        assert run("api_db", "sync") == 0
        assert run("cell_v2", "map_cell0") == 0
        assert run("cell_v2", "map_cell0") == 0  # DBDuplicateEntry path
        assert run("db", "sync") == 0  # cell0 from its mapping, then main
        assert migration.db_version("main", cell0_url) == \
            migration.BASELINE["main"]
        capsys.readouterr()
        assert run("cell_v2", "create_cell", "--name", "cell1",
                   "--transport-url", "rabbit://u:p@mq:5672/",
                   "--verbose") == 0
        cell1 = capsys.readouterr().out.splitlines()[-1]

        eng = sa.create_engine(cell_url)
        with eng.begin() as conn:
            conn.execute(cell_models.ComputeNode.__table__.insert().values(
                host="cmp1", hypervisor_hostname="cmp1", uuid="node-1",
                vcpus=1, memory_mb=1, local_gb=1, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, hypervisor_type="kubevirt",
                hypervisor_version=1, cpu_info="{}", deleted=0, mapped=0))
        eng.dispose()
        assert run("cell_v2", "discover_hosts", "--strict") == 0
        assert run("cell_v2", "discover_hosts", "--strict") == 1
        capsys.readouterr()
        assert run("cell_v2", "list_hosts") == 0
        rows = [[c.strip() for c in line.split("|")[1:-1]]
                for line in capsys.readouterr().out.splitlines()
                if "cmp1" in line]
        assert rows == [["cell1", cell1, "cmp1"]]
        assert run("cell_v2", "update_cell", "--cell_uuid", cell1,
                   "--disable", "--transport-url", "rabbit://u:p@mq:5672/",
                   "--database_connection", cell_url) == 0
        assert run("cell_v2", "delete_cell", "--cell_uuid", cell1) == 2
        assert run("cell_v2", "delete_cell", "--force",
                   "--cell_uuid", cell1) == 0
        capsys.readouterr()
        assert run("cell_v2", "list_cells") == 0
        out = capsys.readouterr().out
        assert "cell0" in out and cell1 not in out
    finally:
        session.reset()
        databases.drop(cell0_url)


@pytest.mark.parametrize("backend", ["mysql", "postgresql"])
def test_archive_on_real_servers(backend, dbs):
    """Shadow tables take archived rows; live foreign keys hold."""
    from keel.db.cell import archive
    url = dbs(backend, "nova")
    migration.db_sync("main", connection=url)
    eng = session.cell_engine(url)
    with sa.orm.Session(eng) as s:
        s.add_all([cell_models.Instance(uuid="gone", locked_by="owner"),
                   cell_models.Instance(uuid="live")])
        s.flush()
        action = cell_models.InstanceAction(instance_uuid="gone",
                                            action="create")
        s.add(action)
        s.flush()
        s.add(cell_models.InstanceActionEvent(action_id=action.id,
                                              event="build"))
        s.add(cell_models.Migration(instance_uuid="gone",
                                    migration_type="resize"))
        s.commit()
        s.scalars(sa.select(cell_models.Migration)).one().soft_delete(s)
        s.scalars(sa.select(cell_models.Instance).filter_by(
            uuid="gone")).one().soft_delete(s)
        s.commit()
    run, uuids, total = archive.archive_deleted_rows(eng, 1000)
    assert run == {"instances": 1, "migrations": 1, "instance_actions": 1,
                   "instance_actions_events": 1}
    assert uuids == ["gone"] and total == 2
    with eng.connect() as conn:
        assert conn.exec_driver_sql(
            "SELECT uuid, locked_by FROM shadow_instances").all() == \
            [("gone", "owner")]
        assert conn.exec_driver_sql(
            "SELECT uuid FROM instances").all() == [("live",)]
    assert archive.purge_shadow_tables(eng) == 4
