"""Fewer round trips on MySQL connections: no ROLLBACK or COMMIT for a
connection with no transaction open, no second SET NAMES on a new
connection.

SQLAlchemy's pool rolls a connection back when it is returned ("reset on
return"), even right after the Session committed or rolled back: every
oslo.db transaction on MariaDB cost four round trips (ping, statement,
COMMIT, ROLLBACK) -- and a reader's two ROLLBACKs in a row.  The pool cannot
know whether the DBAPI connection was used since, so it always asks.  We
can: every statement SQLAlchemy sends goes through the dialect's do_execute*
methods, and every transaction end through do_commit/do_rollback.  A
connection on which nothing ran since its last COMMIT or ROLLBACK has no
transaction open (the connection is not in autocommit mode, so InnoDB opens
one only at a statement), so a further rollback -- the pool's reset or an
explicit one -- and a commit of a transaction that sent nothing are skipped.
A connection not seen yet (fresh, or used outside the dialect) counts as
dirty, so it is rolled back or committed as before.

oslo.db builds every engine with ``pool_pre_ping=True``, as Nova runs it:
a ping at every checkout.  It is kept: skipping it for a connection that
answered a moment ago saved ~0.0003 CPU-s per boot (unmeasurable in
bench/boot.py) and would turn a connection a proxy dropped in that moment
(an HAProxy/Galera fail-over) into a failed request instead of a silent
reconnect.

SQLAlchemy's PyMySQL dialect inherits MySQLdb's connect hook, which sends
``SET NAMES <the connection's charset>``; PyMySQL (>= 1.1, as keel requires)
already sent that very statement while connecting, so the hook is dropped.

Installed once per process on the PyMySQL dialect class (every engine of
the process, like keel.db.pymysql_tls).
"""
_installed = False
_DIRTY = "_keel_dirty"


def _raw(connection):
    # The pool hands the dialect a _ConnectionFairy; the flags live on the
    # DBAPI connection it proxies, which outlives the fairy.
    return getattr(connection, "dbapi_connection", None) or connection


def _set(raw, name, value):
    try:
        setattr(raw, name, value)
    except AttributeError:
        pass


def _executing(execute):
    def do_execute(self, cursor, *args, **kwargs):
        raw = getattr(cursor, "connection", None)
        # Dirty before sending: a statement that fails may still have
        # opened a transaction (or left one open).
        _set(raw, _DIRTY, True)
        return execute(self, cursor, *args, **kwargs)
    return do_execute


def _connect_sets_names():
    import pymysql
    return tuple(pymysql.VERSION[:2]) >= (1, 1)


def install():
    global _installed
    if _installed:
        return
    try:
        from sqlalchemy.dialects.mysql import mysqldb as sa_mysqldb
        from sqlalchemy.dialects.mysql import pymysql as sa_pymysql
    except ImportError:
        return
    dialect = sa_pymysql.MySQLDialect_pymysql
    commit = dialect.do_commit
    rollback = dialect.do_rollback

    def do_commit(self, dbapi_connection):
        raw = _raw(dbapi_connection)
        if not getattr(raw, _DIRTY, True):
            return
        commit(self, dbapi_connection)
        # Only once the server said OK: a failed COMMIT leaves it dirty.
        _set(raw, _DIRTY, False)

    def do_rollback(self, dbapi_connection):
        raw = _raw(dbapi_connection)
        if not getattr(raw, _DIRTY, True):
            return
        rollback(self, dbapi_connection)
        _set(raw, _DIRTY, False)

    def on_connect(self):
        # Skips MySQLdb's hook (its only work is the SET NAMES PyMySQL sent).
        return super(sa_mysqldb.MySQLDialect_mysqldb, self).on_connect()

    for name in ("do_execute", "do_execute_no_params", "do_executemany"):
        setattr(dialect, name, _executing(getattr(dialect, name)))
    dialect.do_commit = do_commit
    dialect.do_rollback = do_rollback
    if _connect_sets_names():
        dialect.on_connect = on_connect
    _installed = True
