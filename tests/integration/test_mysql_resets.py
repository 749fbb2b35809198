"""keel.db.mysql_resets against a real MariaDB: a connection with nothing to
roll back is returned to the pool without a ROLLBACK round trip, and one
with work outstanding is still rolled back (its row locks released); a
connection the server dropped is replaced at checkout; a new connection
sends SET NAMES once."""

import pytest
import sqlalchemy as sa
from oslo_db.sqlalchemy import enginefacade

from keel.db import session  # noqa: F401 - installs keel.db.mysql_resets
from tests.fixtures import databases

pytestmark = pytest.mark.integration


@pytest.fixture
def mariadb():
    url = databases.create_mariadb("keelreset")
    facade = enginefacade.transaction_context()
    facade.configure(connection=url, max_pool_size=1, max_overflow=0)
    engine = facade.writer.get_engine()
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE t (id INT PRIMARY KEY, v INT)"))
        conn.execute(sa.text("INSERT INTO t VALUES (1, 0)"))
    yield facade, engine
    engine.dispose()
    databases.drop(url)


class _Ctx:
    pass


def _session_rollbacks(engine):
    # One pooled connection (max_pool_size 1): the session counter is the
    # one connection every transaction below used.
    with engine.connect() as conn:
        return int(conn.execute(sa.text(
            "SHOW SESSION STATUS LIKE 'Com_rollback'")).fetchone()[1])


def test_committed_transactions_send_no_rollback(mariadb):
    facade, engine = mariadb

    before = _session_rollbacks(engine)
    for _ in range(20):
        with facade.writer.using(_Ctx()) as s:
            s.execute(sa.text("UPDATE t SET v = v + 1 WHERE id = 1"))
    # Only the first counter read's own reset (a SELECT left it dirty);
    # before keel.db.mysql_resets every commit was followed by a ROLLBACK.
    assert _session_rollbacks(engine) - before == 1
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT v FROM t")).scalar() == 20


def test_open_work_is_still_rolled_back_on_return(mariadb):
    facade, engine = mariadb
    with engine.connect() as conn:
        conn.execute(sa.text("UPDATE t SET v = 99 WHERE id = 1"))
        conn.execute(sa.text("SELECT v FROM t WHERE id = 1 FOR UPDATE"))
        # closed without commit: the pool must roll it back
    with engine.connect() as other:
        other.execute(sa.text("SET SESSION innodb_lock_wait_timeout = 1"))
        row = other.execute(sa.text(
            "SELECT v FROM t WHERE id = 1 FOR UPDATE")).scalar()
        assert row == 0     # the update was undone and the lock released
        other.rollback()
    with facade.writer.using(_Ctx()) as s:
        s.execute(sa.text("UPDATE t SET v = 5 WHERE id = 1"))
        s.rollback()
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT v FROM t")).scalar() == 0


def _session_status(engine, name):
    with engine.connect() as conn:
        return int(conn.execute(sa.text(
            "SHOW SESSION STATUS LIKE :n"), {"n": name}).fetchone()[1])


def test_connection_dropped_by_the_server_is_replaced(mariadb):
    facade, engine = mariadb
    with engine.connect() as conn:
        old_id = conn.execute(sa.text("SELECT CONNECTION_ID()")).scalar()
    admin = sa.create_engine(databases.MARIADB_ADMIN_URL)
    with admin.connect() as conn:
        conn.execute(sa.text("KILL %d" % old_id))
    admin.dispose()
    with facade.writer.using(_Ctx()) as s:
        new_id = s.execute(sa.text("SELECT CONNECTION_ID()")).scalar()
    assert new_id != old_id


def test_transaction_without_statements_sends_no_commit(mariadb):
    facade, engine = mariadb
    before = _session_status(engine, "Com_commit")
    for _ in range(5):
        with facade.writer.connection.using(_Ctx()):
            pass
    assert _session_status(engine, "Com_commit") == before


def test_new_connection_sends_set_names_once(mariadb):
    facade, engine = mariadb
    with engine.connect() as conn:
        conn.invalidate()       # the pool's next checkout connects anew
    # PyMySQL's SET NAMES and SET AUTOCOMMIT, oslo.db's sql_mode: three;
    # SQLAlchemy's MySQLdb hook used to send SET NAMES a second time.
    assert _session_status(engine, "Com_set_option") == 3
