"""keel.db.migration on SQLite: sync, no-op re-sync, adoption, refusals."""
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from keel.conf import CONF
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import migration
from keel.db import session

METADATA = {"api": api_models.Base.metadata, "main": cell_models.Base.metadata}


@pytest.fixture(autouse=True)
def _fresh_sessions():
    session.reset()
    yield
    session.reset()


def _url(tmp_path, name="db"):
    return f"sqlite:///{tmp_path}/{name}.sqlite"


def _snapshot(url):
    """Tables with their columns and indexes, and the alembic revision."""
    eng = sa.create_engine(url)
    try:
        insp = sa.inspect(eng)
        tables = {}
        for t in insp.get_table_names():
            tables[t] = (
                [(c["name"], str(c["type"]), c["nullable"])
                 for c in insp.get_columns(t)],
                sorted(i["name"] for i in insp.get_indexes(t)))
        with eng.connect() as conn:
            rev = MigrationContext.configure(conn).get_current_revision()
        return tables, rev
    finally:
        eng.dispose()


@pytest.mark.parametrize("database", ["api", "main"])
def test_sync_creates_baseline_and_second_sync_is_noop(tmp_path, database):
    url = _url(tmp_path)
    assert migration.db_version(database, url) is None
    assert migration.db_sync(database, connection=url) == \
        migration.BASELINE[database]
    first = _snapshot(url)
    assert migration.db_sync(database, connection=url) == \
        migration.BASELINE[database]
    assert _snapshot(url) == first
    assert migration.db_version(database, url) == migration.BASELINE[database]
    # Every modelled table exists, and nothing else but alembic_version.
    assert set(first[0]) == set(METADATA[database].tables) | {
        "alembic_version"}


@pytest.mark.parametrize("database", ["api", "main"])
def test_migrated_schema_matches_models(tmp_path, database):
    """Alembic's own diff between the migrated DB and the models is empty."""
    url = _url(tmp_path)
    migration.db_sync(database, connection=url)
    eng = sa.create_engine(url)
    try:
        with eng.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(
                conn, opts={"compare_type": True}), METADATA[database])
    finally:
        eng.dispose()
    assert diff == []


def _nova_created(url, database, revision):
    """A database as upstream Nova leaves it: tables + its alembic row."""
    eng = sa.create_engine(url)
    METADATA[database].create_all(eng)
    with eng.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL "
            "PRIMARY KEY)")
        conn.exec_driver_sql(
            f"INSERT INTO alembic_version VALUES ('{revision}')")
    return eng


def test_nova_34_database_is_adopted_without_table_change(tmp_path):
    url = _url(tmp_path)
    eng = _nova_created(url, "main", migration.NOVA_HEAD["main"])
    with eng.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO services (host, \"binary\", topic, report_count, "
            "deleted) VALUES ('h1', 'nova-compute', 'compute', 3, 0)")
    eng.dispose()
    tables_before, rev_before = _snapshot(url)
    assert rev_before == migration.NOVA_HEAD["main"]
    assert migration.db_version("main", url) == migration.NOVA_HEAD["main"]

    assert migration.db_sync("main", connection=url) == \
        migration.BASELINE["main"]
    tables_after, rev_after = _snapshot(url)
    assert tables_after == tables_before
    assert rev_after == migration.BASELINE["main"]
    eng = sa.create_engine(url)
    with eng.connect() as conn:
        assert conn.exec_driver_sql(
            "SELECT host, report_count FROM services").all() == [("h1", 3)]
    eng.dispose()


def test_older_nova_revision_is_refused_untouched(tmp_path):
    url = _url(tmp_path)
    _nova_created(url, "api", "b30f573d3377").dispose()
    before = _snapshot(url)
    with pytest.raises(migration.MigrationRefused) as exc:
        migration.db_sync("api", connection=url)
    msg = str(exc.value)
    assert "b30f573d3377" in msg and "older than Nova 34" in msg
    assert "nova-manage api_db sync" in msg
    assert _snapshot(url) == before


def test_unknown_revision_is_refused(tmp_path):
    url = _url(tmp_path)
    _nova_created(url, "main", "0123456789ab").dispose()
    with pytest.raises(migration.MigrationRefused,
                       match="unknown revision 0123456789ab"):
        migration.db_sync("main", connection=url)


def test_tables_without_alembic_history_are_refused(tmp_path):
    url = _url(tmp_path)
    eng = sa.create_engine(url)
    with eng.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE instances (id INTEGER)")
    eng.dispose()
    with pytest.raises(migration.MigrationRefused, match="no Alembic"):
        migration.db_sync("main", connection=url)
    assert _snapshot(url)[0].keys() == {"instances"}


def test_explicit_version(tmp_path):
    url = _url(tmp_path)
    with pytest.raises(migration.MigrationRefused, match="unknown API"):
        migration.db_sync("api", version="nope", connection=url)
    assert migration.db_sync("api", version=migration.BASELINE["api"],
                             connection=url) == migration.BASELINE["api"]


def test_configured_connection_is_the_default(tmp_path):
    CONF.set_override("connection", _url(tmp_path, "api"),
                      group="api_database")
    try:
        migration.db_sync("api")
        assert migration.db_version("api") == migration.BASELINE["api"]
    finally:
        CONF.clear_override("connection", group="api_database")


def test_unreachable_database_retries_then_raises(tmp_path):
    CONF.set_override("max_retries", 2, group="api_database")
    CONF.set_override("retry_interval", 0, group="api_database")
    try:
        with pytest.raises(db_exc.DBConnectionError):
            # Nothing listens on port 9 of localhost.
            migration.db_sync(
                "api", connection="mysql+pymysql://root@127.0.0.1:9/nova_api")
    finally:
        CONF.clear_override("max_retries", group="api_database")
        CONF.clear_override("retry_interval", group="api_database")


def test_bad_database_name():
    with pytest.raises(ValueError):
        migration.db_version("cell")
