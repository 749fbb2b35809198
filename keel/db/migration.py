"""Schema migrations of the API and cell databases, through Alembic.

Two trees live in the package (``keel/db/api/migrations`` and
``keel/db/cell/migrations``); no alembic.ini is needed. Besides upgrading
keel's own databases, ``db_sync`` takes over databases that upstream Nova 34
created: their ``alembic_version`` holds Nova's head revision and their
tables already are keel's baseline schema, so the row is replaced by keel's
baseline revision and no table is touched. A Nova database at any other
revision is refused: keel never rewrites a schema it does not know.

Connections go through oslo.db (keel.db.session), so an unreachable server
is retried per ``max_retries`` / ``retry_interval`` and then raises
``oslo_db.exception.DBConnectionError``.
"""
import contextlib
import logging

from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from alembic.util import exc as alembic_exc
from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from keel.conf import CONF
from keel.db import session

LOG = logging.getLogger(__name__)

API = "api"
MAIN = "main"

_SCRIPT_LOCATION = {API: "keel.db.api:migrations",
                    MAIN: "keel.db.cell:migrations"}

# keel's first revision of each tree: the Nova 34 schema.
BASELINE = {API: "keel_api_0001", MAIN: "keel_main_0001"}

# Upstream Nova's Alembic history. The head is the Nova 34 schema, which
# is keel's baseline; every earlier revision needs Nova's own upgrade first.
NOVA_HEAD = {API: "cdeec0c85668", MAIN: "ab450ba04102"}
NOVA_OLDER = {
    API: ("d67eeaabee36", "b30f573d3377"),
    MAIN: ("8f2f1571d55b", "16f1fbcab42b", "ccb0fa1a2252", "960aac0e09ea",
           "1b91788ec3a6", "1acf2c98e646", "13863f4e1612", "2903cd72dc14",
           "d60bddf7a903"),
}

_TITLE = {API: "API", MAIN: "cell"}


class MigrationRefused(Exception):
    """The database cannot be brought to keel's schema safely."""


def _check_database(database):
    if database not in _SCRIPT_LOCATION:
        raise ValueError(f"database must be 'api' or 'main', not {database!r}")


def _alembic_config(database, connection=None):
    cfg = alembic_config.Config()
    cfg.set_main_option("script_location", _SCRIPT_LOCATION[database])
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def script_directory(database):
    _check_database(database)
    return alembic_script.ScriptDirectory.from_config(
        _alembic_config(database))


def _engine_for_url(database, url):
    """An engine for an explicit URL, with the group's retry options."""
    if database == MAIN:
        return session.cell_engine(url), False
    group = CONF.api_database
    engine = engines.create_engine(url, max_retries=group.max_retries,
                                   retry_interval=group.retry_interval)
    return engine, True


@contextlib.contextmanager
def _connect(database, connection):
    """Yield a connection inside a transaction.

    ``connection`` is None (the configured database), a URL string, an
    Engine or an open Connection.
    """
    dispose = False
    if isinstance(connection, sa.engine.Connection):
        yield connection
        return
    if connection is None:
        engine = (session.api_engine() if database == API
                  else session.cell_engine())
    elif isinstance(connection, str):
        engine, dispose = _engine_for_url(database, connection)
    else:
        engine = connection
    try:
        with engine.begin() as conn:
            yield conn
    finally:
        if dispose:
            engine.dispose()


def _current(conn):
    heads = alembic_migration.MigrationContext.configure(
        conn).get_current_heads()
    if len(heads) > 1:
        raise MigrationRefused(
            f"the database has several Alembic revisions ({', '.join(heads)})"
            "; it was not created by Nova 34 or keel")
    return heads[0] if heads else None


def _user_tables(conn):
    return [t for t in sa.inspect(conn).get_table_names()
            if t != "alembic_version"]


def db_version(database, connection=None):
    """The database's current revision (None if it has no schema yet)."""
    _check_database(database)
    with _connect(database, connection) as conn:
        return _current(conn)


def _adopt_or_refuse(database, conn, current, script):
    """Decide what to do with the revision found; may stamp the baseline."""
    title = _TITLE[database]
    if current is None:
        tables = _user_tables(conn)
        if tables:
            raise MigrationRefused(
                f"the {title} database already has tables "
                f"({', '.join(sorted(tables)[:5])}, ...) but no Alembic "
                "revision; it was not created by Nova 34 or keel. "
                "Refusing to change it.")
        return
    if current == NOVA_HEAD[database]:
        # Nova 34's schema is keel's baseline: record that, touch nothing.
        LOG.info("Adopting the %s database created by Nova 34 (revision "
                 "%s) as keel revision %s", title, current,
                 BASELINE[database])
        command.stamp(_alembic_config(database, conn), BASELINE[database],
                      purge=True)
        return
    if current in NOVA_OLDER[database]:
        raise MigrationRefused(
            f"the {title} database is at upstream Nova revision {current}, "
            f"older than Nova 34 ({NOVA_HEAD[database]}). Upgrade it with "
            "Nova 34's own 'nova-manage "
            f"{'api_db' if database == API else 'db'} sync' first; keel does "
            "not run Nova's migrations.")
    try:
        script.get_revision(current)
    except alembic_exc.CommandError:
        raise MigrationRefused(
            f"the {title} database is at unknown revision {current}; it was "
            "created by neither Nova 34 nor this keel release. Refusing to "
            "change it.")


def _check_target(database, script, current, version):
    if version is None:
        return "head"
    try:
        target = script.get_revision(version)
    except alembic_exc.CommandError:
        target = None
    if target is None:
        raise MigrationRefused(f"unknown {_TITLE[database]} database version "
                               f"{version!r}")
    if current is not None and current != target.revision:
        ancestors = {r.revision for r in script.iterate_revisions(current,
                                                                  "base")}
        if target.revision in ancestors:
            raise MigrationRefused("downgrades are not supported")
    return target.revision


def db_sync(database, version=None, connection=None):
    """Bring the database to ``version`` (default: the newest).

    ``database`` is 'api' or 'main'; ``connection`` is None (the configured
    [api_database]/[database] connection), a URL, an Engine or a Connection.
    Running it again is a no-op. Raises MigrationRefused for databases keel
    must not change and oslo.db's DBConnectionError when unreachable.
    """
    _check_database(database)
    script = script_directory(database)
    with _connect(database, connection) as conn:
        current = _current(conn)
        _adopt_or_refuse(database, conn, current, script)
        current = _current(conn)
        target = _check_target(database, script, current, version)
        command.upgrade(_alembic_config(database, conn), target)
        return _current(conn)


def run_env(context, target_metadata):
    """Body of both trees' env.py: migrate over the connection we give."""
    config = context.config
    connection = config.attributes.get("connection")
    if connection is None:  # the alembic tool run by hand
        engine = sa.create_engine(config.get_main_option("sqlalchemy.url"))
        try:
            with engine.begin() as conn:
                _run_migrations(context, conn, target_metadata)
        finally:
            engine.dispose()
        return
    _run_migrations(context, connection, target_metadata)


def _run_migrations(context, connection, target_metadata):
    # render_as_batch: SQLite can only ALTER by copying tables, which
    # Alembic's batch mode does; other backends run plain ALTERs.
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
