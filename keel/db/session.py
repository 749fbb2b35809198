"""Engines and transactions for the API database and every cell database.

oslo.db's enginefacade does the engine work (pooling, connect retries with
``max_retries``/``retry_interval``, MySQL sql_mode, SQLite pragmas); this module
only keeps one transaction context per database URL so that every cell is
opened once per process.

Use::

    with session.api_writer(ctx) as s: ...
    with session.cell_reader(ctx) as s: ...   # ctx targeted at a cell, or
                                             # [database]/connection
"""
import threading

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

from keel import benchcounters
from keel.conf import CONF

if benchcounters.ENABLED:  # bench/boot.py only; nothing installed otherwise
    benchcounters.install_sql()

_lock = threading.Lock()
_api_context = None
_cell_contexts = {}


def _db_options(group):
    conf_group = getattr(CONF, group)
    names = ("connection", "slave_connection", "sqlite_synchronous",
             "connection_debug", "max_pool_size", "max_overflow",
             "pool_timeout", "max_retries", "retry_interval",
             "connection_recycle_time", "connection_trace", "mysql_sql_mode",
             "db_max_retries", "db_retry_interval")
    out = {}
    for name in names:
        try:
            out[name] = conf_group[name]
        except Exception:  # option not present in this oslo.db release
            continue
    return out


def _is_sqlite_file_url(url):
    return (url.startswith("sqlite") and ":memory:" not in url
            and "mode=memory" not in url
            and url.split("://", 1)[-1] not in ("", "/"))


def _new_context_manager(**options):
    url = options.get("connection") or ""
    if _is_sqlite_file_url(url) and not options.get("slave_connection"):
        # Readers get an engine of their own that keeps SQLite's deferred
        # BEGIN: under WAL they read a snapshot beside the writer, instead
        # of queuing for the write lock every writer takes up front (BEGIN
        # IMMEDIATE) -- list and show calls must not wait out a boot storm.
        options = dict(options, slave_connection=url,
                       synchronous_reader=False)
    ctx_mgr = enginefacade.transaction_context()
    ctx_mgr.configure(**{k: v for k, v in options.items() if v is not None})
    return ctx_mgr


def _install_sqlite_engines(ctx_mgr):
    _install_sqlite_pragmas(ctx_mgr.writer.get_engine())
    reader = ctx_mgr.reader.get_engine()
    if reader is not ctx_mgr.writer.get_engine():
        _install_sqlite_pragmas(reader, immediate=False)


def _is_sqlite_file(dbapi_conn):
    row = dbapi_conn.execute("PRAGMA database_list").fetchone()
    return bool(row and row[2])


def _sqlite_on_connect(dbapi_conn, _record):
    # oslo.db already puts pysqlite in driver-level autocommit and emits
    # BEGIN itself; WAL lets readers run beside the writer and the busy
    # timeout makes writers queue instead of failing.
    dbapi_conn.execute("PRAGMA busy_timeout = 30000")
    dbapi_conn.execute("PRAGMA foreign_keys = ON")
    if _is_sqlite_file(dbapi_conn):
        dbapi_conn.execute("PRAGMA journal_mode = WAL")


def _sqlite_on_begin(conn):
    # BEGIN IMMEDIATE: a deferred transaction that reads and then writes
    # fails at once with "database is locked" when another writer got in
    # between (busy_timeout cannot help an upgrade); taking the write lock
    # up front makes concurrent writers wait their turn instead.
    # Replaces oslo.db's own "begin" hook (a plain deferred BEGIN); the
    # marker is the one oslo.db's commit/rollback hooks clear.
    if "in_transaction" not in conn.info:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        conn.info["in_transaction"] = True


def _install_sqlite_pragmas(engine, immediate=True):
    """SQLite shared by many threads of one process (the all-in-one)."""
    if engine.dialect.name != "sqlite":
        return
    sa.event.listen(engine, "connect", _sqlite_on_connect)
    if immediate:
        for fn in list(engine.dispatch.begin):
            if getattr(fn, "__name__", "") == "_sqlite_emit_begin":
                sa.event.remove(engine, "begin", fn)
        sa.event.listen(engine, "begin", _sqlite_on_begin)
    _pool_connections(engine)
    # oslo.db opened a first connection to test the URL before these
    # listeners existed; drop it so every pooled connection has them.
    engine.dispose()


def _pool_connections(engine):
    """Keep SQLite connections open between transactions.

    oslo.db gives file-based SQLite a NullPool, so every transaction opens
    the file and replays the connect pragmas: ~1.5 ms of a ~4 ms object
    read. A QueuePool built the way SQLAlchemy's own Pool.recreate() does
    (same creator, same event dispatch) keeps every listener in place.
    """
    old = engine.pool
    if not isinstance(old, sa.pool.NullPool):
        return
    engine.pool = sa.pool.QueuePool(
        old._creator, pool_size=5, max_overflow=64, timeout=60,
        recycle=old._recycle, echo=old.echo,
        logging_name=old._orig_logging_name,
        reset_on_return=old._reset_on_return, pre_ping=old._pre_ping,
        _dispatch=old.dispatch, dialect=old._dialect)


def api_context_manager():
    global _api_context
    with _lock:
        if _api_context is None:
            opts = _db_options("api_database")
            if not opts.get("connection"):
                raise RuntimeError("[api_database]/connection is not set")
            _api_context = _new_context_manager(**opts)
            _install_sqlite_engines(_api_context)
        return _api_context


def cell_context_manager(connection=None):
    """The transaction context for a cell database URL (default [database])."""
    opts = _db_options("database")
    if connection is not None:
        opts["connection"] = connection
        opts.pop("slave_connection", None)
    url = opts.get("connection")
    if not url:
        raise RuntimeError("[database]/connection is not set")
    with _lock:
        ctx_mgr = _cell_contexts.get(url)
        if ctx_mgr is not None:
            return ctx_mgr
        ctx_mgr = _new_context_manager(**opts)
        if url.startswith("sqlite"):
            # SQLite needs its pragmas before the first transaction, so its
            # (local, fast) engine starts now. A file that cannot be opened
            # is not cached: the error surfaces where the cell is used
            # (inside scatter-gather's per-cell handling), not while a
            # context is merely being targeted. Other URLs start lazily,
            # so a down cell never blocks target_cell() with connect retries.
            try:
                _install_sqlite_engines(ctx_mgr)
            except Exception:  # noqa: BLE001 - reported on first use
                return ctx_mgr
        _cell_contexts[url] = ctx_mgr
        return ctx_mgr


def _cell_for(context):
    return context.db_connection or cell_context_manager()


def api_reader(context):
    return api_context_manager().reader.using(context)


def api_writer(context):
    return api_context_manager().writer.using(context)


def cell_reader(context):
    return _cell_for(context).reader.using(context)


def cell_writer(context):
    return _cell_for(context).writer.using(context)


def api_engine():
    return api_context_manager().writer.get_engine()


def cell_engine(connection=None):
    return cell_context_manager(connection).writer.get_engine()


def reset():
    """Forget every engine (tests, and the all-in-one after reconfiguring)."""
    global _api_context
    with _lock:
        for ctx_mgr in list(_cell_contexts.values()) + [_api_context]:
            if ctx_mgr is None:
                continue
            for mode in (ctx_mgr.writer, ctx_mgr.reader):
                try:
                    mode.get_engine().dispose()
                except Exception:
                    pass
        _api_context = None
        _cell_contexts.clear()
