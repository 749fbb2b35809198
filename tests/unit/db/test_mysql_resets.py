"""keel.db.mysql_resets on the PyMySQL dialect, over a fake DBAPI connection
that records what would go to the server: no COMMIT/ROLLBACK without a
statement since the last one, no SET NAMES hook on connect; the pool's
ping at checkout kept."""
import pytest
from sqlalchemy.dialects.mysql import pymysql as sa_pymysql

from keel.db import session  # noqa: F401 - installs the hooks


class _Conn:
    def __init__(self):
        self.sent = []

    def commit(self):
        self.sent.append("COMMIT")

    def rollback(self):
        self.sent.append("ROLLBACK")

    def ping(self, reconnect=True):
        self.sent.append("PING")

    def cursor(self):
        return _Cursor(self)

    def character_set_name(self):
        return "utf8mb4"


class _Cursor:
    def __init__(self, conn):
        self.connection = conn

    def execute(self, statement, parameters=None):
        self.connection.sent.append(statement)

    def close(self):
        pass


@pytest.fixture
def dialect():
    return sa_pymysql.MySQLDialect_pymysql()


def _statement(dialect, conn, sql="UPDATE t SET v = 1"):
    dialect.do_execute(conn.cursor(), sql, (), None)


def test_commit_and_rollback_only_after_a_statement(dialect):
    conn = _Conn()
    dialect.do_commit(conn)          # unknown connection: sent as before
    dialect.do_commit(conn)          # nothing ran since: no transaction
    dialect.do_rollback(conn)
    _statement(dialect, conn)
    dialect.do_commit(conn)
    _statement(dialect, conn, "SELECT 1")
    dialect.do_rollback(conn)
    dialect.do_rollback(conn)        # the pool's reset after a rollback
    assert conn.sent == ["COMMIT", "UPDATE t SET v = 1", "COMMIT",
                         "SELECT 1", "ROLLBACK"]


def test_failed_statement_leaves_the_connection_to_roll_back(dialect):
    conn = _Conn()
    dialect.do_rollback(conn)

    class Failing(_Cursor):
        def execute(self, statement, parameters=None):
            raise RuntimeError("lost")
    with pytest.raises(RuntimeError):
        dialect.do_execute(Failing(conn), "UPDATE t SET v = 1", (), None)
    dialect.do_rollback(conn)
    assert conn.sent == ["ROLLBACK", "ROLLBACK"]


def test_every_checkout_still_pings(dialect):
    conn = _Conn()
    _statement(dialect, conn)
    dialect.do_commit(conn)
    assert dialect.do_ping(conn) is True
    assert conn.sent == ["UPDATE t SET v = 1", "COMMIT", "PING"]


def test_no_second_set_names_on_connect(dialect):
    hook = dialect.on_connect()
    if hook is not None:
        conn = _Conn()
        hook(conn)
        assert conn.sent == []
