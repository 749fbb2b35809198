"""keel.db.mysql_resets on the PyMySQL dialect, over a fake DBAPI connection
that records what would go to the server: no COMMIT/ROLLBACK without a
statement since the last one, no ping within PING_AFTER of the server's
last answer, no SET NAMES hook on connect."""
import pytest
from sqlalchemy.dialects.mysql import pymysql as sa_pymysql

from keel.db import mysql_resets
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


class _Clock:
    now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock()
    monkeypatch.setattr(mysql_resets, "_clock", fake)
    return fake


@pytest.fixture
def dialect():
    return sa_pymysql.MySQLDialect_pymysql()


def _statement(dialect, conn, sql="UPDATE t SET v = 1"):
    dialect.do_execute(conn.cursor(), sql, (), None)


def test_commit_and_rollback_only_after_a_statement(dialect, clock):
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


def test_failed_statement_leaves_the_connection_to_roll_back(dialect, clock):
    conn = _Conn()
    dialect.do_rollback(conn)

    class Failing(_Cursor):
        def execute(self, statement, parameters=None):
            raise RuntimeError("lost")
    with pytest.raises(RuntimeError):
        dialect.do_execute(Failing(conn), "UPDATE t SET v = 1", (), None)
    dialect.do_rollback(conn)
    assert conn.sent == ["ROLLBACK", "ROLLBACK"]


def test_ping_only_when_the_server_has_been_quiet(dialect, clock):
    conn = _Conn()
    assert dialect.do_ping(conn) is True        # never answered: pinged
    clock.now += mysql_resets.PING_AFTER / 2
    assert dialect.do_ping(conn) is True        # the ping just answered
    _statement(dialect, conn)
    dialect.do_commit(conn)
    clock.now += mysql_resets.PING_AFTER / 2
    dialect.do_ping(conn)                       # the COMMIT just answered
    clock.now += mysql_resets.PING_AFTER
    dialect.do_ping(conn)                       # idle: pinged again
    assert conn.sent == ["PING", "UPDATE t SET v = 1", "COMMIT", "PING"]


def test_ping_failure_still_reaches_the_pool(dialect, clock):
    class Dead(_Conn):
        def ping(self, reconnect=True):
            raise ConnectionError("gone")
    conn = Dead()
    with pytest.raises(ConnectionError):
        dialect.do_ping(conn)


def test_no_second_set_names_on_connect(dialect):
    hook = dialect.on_connect()
    if hook is not None:
        conn = _Conn()
        hook(conn)
        assert conn.sent == []
