"""keel's MariaDB schema against upstream Nova 34's (the reference DDL).

One database gets the DDL that Nova 34's own migrations produce
(../shared/reference/nova-schema), another gets keel's migrations; their
inspected schemas must be equal for every table keel models. A database
created from the reference DDL, with Nova's alembic_version row, must be
adopted by ``keel manage api_db sync`` / ``db sync`` without any change to
its tables.
"""
import pathlib
import re

import pytest
import sqlalchemy as sa

from keel.cmd import manage
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import migration
from keel.db import session
from tests.fixtures import databases

pytestmark = pytest.mark.integration

REFERENCE = pathlib.Path(__file__).resolve().parents[3] / "shared" / \
    "reference" / "nova-schema"
DDL = {"api": REFERENCE / "nova_api.sql", "main": REFERENCE / "nova.sql"}
METADATA = {"api": api_models.Base.metadata, "main": cell_models.Base.metadata}


def nova_revision(database):
    """Nova's head revision, from the comment at the end of the dump."""
    return re.search(r"^-- alembic_version: (\w+)$",
                     DDL[database].read_text(), re.M).group(1)


def load_reference(url, database):
    eng = sa.create_engine(url)
    try:
        with eng.begin() as conn:
            for stmt in DDL[database].read_text().split(";\n"):
                if stmt.strip() and not stmt.strip().startswith("--"):
                    conn.exec_driver_sql(stmt)
            conn.exec_driver_sql("INSERT INTO alembic_version VALUES ('%s')"
                                 % nova_revision(database))
    finally:
        eng.dispose()


def describe(url, tables):
    """What the contract covers, per table, as SQLAlchemy inspects it."""
    eng = sa.create_engine(url)
    try:
        insp = sa.inspect(eng)
        out = {}
        for t in tables:
            out[t] = {
                "columns": {
                    c["name"]: (c["type"].compile(dialect=eng.dialect),
                                c["nullable"], c.get("default"),
                                bool(c.get("autoincrement")))
                    for c in insp.get_columns(t)},
                "indexes": {
                    i["name"]: (tuple(i["column_names"]), bool(i["unique"]),
                                repr(i.get("dialect_options", {})))
                    for i in insp.get_indexes(t)},
                "unique": {u["name"]: tuple(u["column_names"])
                           for u in insp.get_unique_constraints(t)},
                "foreign_keys": sorted(
                    (tuple(f["constrained_columns"]), f["referred_table"],
                     tuple(f["referred_columns"]))
                    for f in insp.get_foreign_keys(t)),
                "primary_key": tuple(
                    insp.get_pk_constraint(t)["constrained_columns"]),
            }
        return out
    finally:
        eng.dispose()


def show_create_tables(url):
    eng = sa.create_engine(url)
    try:
        with eng.connect() as conn:
            names = [r[0] for r in conn.exec_driver_sql("SHOW TABLES")]
            return {n: conn.exec_driver_sql(
                f"SHOW CREATE TABLE `{n}`").one()[1] for n in names}
    finally:
        eng.dispose()


@pytest.fixture
def mariadb():
    urls = []

    def make(prefix):
        urls.append(databases.create_mariadb(prefix))
        return urls[-1]
    yield make
    session.reset()
    for url in urls:
        databases.drop(url)


@pytest.fixture(scope="module")
def nova_34():
    """Databases as Nova 34 created them: the DDL plus Nova's revision.

    Loaded once: the comparisons only read them and adoption only changes
    the alembic_version row, which no comparison looks at.
    """
    urls = {}
    try:
        for database, prefix in (("api", "nova_api"), ("main", "nova")):
            urls[database] = databases.create_mariadb(prefix)
            load_reference(urls[database], database)
        yield urls
    finally:
        session.reset()
        for url in urls.values():
            databases.drop(url)


def test_reference_heads_are_the_ones_keel_adopts():
    for database in ("api", "main"):
        assert nova_revision(database) == migration.NOVA_HEAD[database]


@pytest.mark.parametrize("database", ["api", "main"])
def test_keel_schema_equals_nova_34(nova_34, mariadb, database):
    ref, keel = nova_34[database], mariadb("keel")
    migration.db_sync(database, connection=keel)

    tables = sorted(METADATA[database].tables)
    expected, got = describe(ref, tables), describe(keel, tables)
    for table in tables:
        for aspect in expected[table]:
            assert got[table][aspect] == expected[table][aspect], \
                f"{table}: {aspect} differ"
    # keel creates nothing beyond its models (and Alembic's table).
    assert set(show_create_tables(keel)) == set(tables) | {"alembic_version"}


def test_nova_34_databases_are_adopted_unchanged(nova_34, tmp_path, capsys):
    api, cell = nova_34["api"], nova_34["main"]
    before = {"api": show_create_tables(api), "main": show_create_tables(cell)}
    conf = tmp_path / "nova.conf"
    conf.write_text(f"[api_database]\nconnection = {api}\n"
                    f"[database]\nconnection = {cell}\n")

    def run(*argv):
        return manage.main(["--config-file", str(conf), *argv])

    capsys.readouterr()
    assert run("api_db", "version") == 0
    assert capsys.readouterr().out.strip().endswith(nova_revision("api"))
    for _ in range(2):  # adoption, then a no-op
        assert run("api_db", "sync") == 0
        assert run("db", "sync", "--local_cell") == 0
        after = {"api": show_create_tables(api),
                 "main": show_create_tables(cell)}
        assert after == before
    assert migration.db_version("api", api) == migration.BASELINE["api"]
    assert migration.db_version("main", cell) == migration.BASELINE["main"]
    assert run("db", "version") == 0
    assert capsys.readouterr().out.strip().endswith(
        migration.BASELINE["main"])
