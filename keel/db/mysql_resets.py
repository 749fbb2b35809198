"""No ROLLBACK round trip for a MySQL connection that has nothing to roll back.

SQLAlchemy's pool rolls a connection back when it is returned ("reset on
return"), even right after the Session committed or rolled back: every
oslo.db transaction on MariaDB cost four round trips (ping, statement,
COMMIT, ROLLBACK) -- and a reader's two ROLLBACKs in a row.  The pool cannot
know whether the DBAPI connection was used since, so it always asks.  We
can: every statement SQLAlchemy sends goes through the dialect's do_execute*
methods, and every transaction end through do_commit/do_rollback.  A
connection on which nothing ran since its last COMMIT or ROLLBACK has no
transaction open, so a further rollback -- the pool's reset or an explicit
one -- is skipped.  A connection not seen yet (fresh, or used outside the
dialect) counts as dirty, so it is rolled back as before.

Installed once per process on the PyMySQL dialect class (every engine of
the process, like keel.db.pymysql_tls).
"""
_installed = False
_DIRTY = "_keel_dirty"


def _raw(connection):
    # The pool hands the dialect a _ConnectionFairy; the flag lives on the
    # DBAPI connection it proxies, which outlives the fairy.
    return getattr(connection, "dbapi_connection", None) or connection


def _mark(cursor):
    try:
        setattr(cursor.connection, _DIRTY, True)
    except AttributeError:
        pass


def install():
    global _installed
    if _installed:
        return
    try:
        from sqlalchemy.dialects.mysql import pymysql as sa_pymysql
    except ImportError:
        return
    dialect = sa_pymysql.MySQLDialect_pymysql
    execute = dialect.do_execute
    execute_no_params = dialect.do_execute_no_params
    executemany = dialect.do_executemany
    commit = dialect.do_commit
    rollback = dialect.do_rollback

    def do_execute(self, cursor, statement, parameters, context=None):
        _mark(cursor)
        return execute(self, cursor, statement, parameters, context)

    def do_execute_no_params(self, cursor, statement, context=None):
        _mark(cursor)
        return execute_no_params(self, cursor, statement, context)

    def do_executemany(self, cursor, statement, parameters, context=None):
        _mark(cursor)
        return executemany(self, cursor, statement, parameters, context)

    def do_commit(self, dbapi_connection):
        commit(self, dbapi_connection)
        # Only once the server said OK: a failed COMMIT leaves it dirty.
        setattr(_raw(dbapi_connection), _DIRTY, False)

    def do_rollback(self, dbapi_connection):
        raw = _raw(dbapi_connection)
        if not getattr(raw, _DIRTY, True):
            return
        rollback(self, dbapi_connection)
        setattr(raw, _DIRTY, False)

    dialect.do_execute = do_execute
    dialect.do_execute_no_params = do_execute_no_params
    dialect.do_executemany = do_executemany
    dialect.do_commit = do_commit
    dialect.do_rollback = do_rollback
    _installed = True
