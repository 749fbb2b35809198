"""Engines and transactions for the API database and every cell database.

oslo.db's enginefacade does the engine work (pooling, connect retries with
``max_retries``/``retry_interval``, MySQL sql_mode, SQLite pragmas); this module
only keeps one transaction context per database URL so that every cell is
opened once per process.

Use::

    with session.api_writer(ctx) as s: ...
    with session.cell_reader(ctx) as s: ...   # ctx targeted at a cell, or
                                             # [database]/connection
    with session.cell_connection_writer(ctx) as conn: ...  # Core only
"""
import collections
import os
import threading

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from keel import benchcounters
from keel.conf import CONF

if benchcounters.ENABLED:  # bench/boot.py only; nothing installed otherwise
    benchcounters.install_sql()

from keel.db import pymysql_tls  # noqa: E402
from keel.db import mysql_resets  # noqa: E402

pymysql_tls.install()   # one TLS context per process, not per connection
mysql_resets.install()  # no ROLLBACK after COMMIT on MySQL connections

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
    # No sleep(0) at every connection checkin: oslo.db yields there for
    # eventlet's green threads; keel has none, and with real threads it
    # only hands the GIL (and, on a busy machine, the CPU) away once per
    # transaction.
    ctx_mgr.configure(thread_checkin=False,
                      **{k: v for k, v in options.items() if v is not None})
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
    _sqlite_shared_file(dbapi_conn)
    dbapi_conn.execute("PRAGMA foreign_keys = ON")


def _sqlite_shared_file(dbapi_conn, _record=None):
    dbapi_conn.execute("PRAGMA busy_timeout = 30000")
    if _is_sqlite_file(dbapi_conn):
        dbapi_conn.execute("PRAGMA journal_mode = WAL")
        _sqlite_wal_synchronous(dbapi_conn)


# SQLite's synchronous levels (PRAGMA synchronous answers the number).
_SYNC_FULL = 2


def _sqlite_wal_synchronous(dbapi_conn):
    """WAL with synchronous=NORMAL instead of the default FULL.

    FULL fsyncs the WAL at every COMMIT: ~3 ms of wall time with the
    writer turn held and ~0.4 ms of CPU per write transaction on a VM disk.
    NORMAL syncs only at checkpoints. What it risks: a power cut or an OS
    crash can roll back the last transactions committed before it (the
    database stays consistent, never corrupt); a crash of the process
    itself loses nothing. ``[database]/sqlite_synchronous = false``
    (oslo.db's PRAGMA synchronous = OFF) is kept as the operator set it.
    """
    row = dbapi_conn.execute("PRAGMA synchronous").fetchone()
    if row and row[0] == _SYNC_FULL:
        dbapi_conn.execute("PRAGMA synchronous = NORMAL")


def _sqlite_on_begin(conn):
    # BEGIN IMMEDIATE: a deferred transaction that reads and then writes
    # fails at once with "database is locked" when another writer got in
    # between (busy_timeout cannot help an upgrade); taking the write lock
    # up front makes concurrent writers wait their turn instead.
    # Replaces oslo.db's own "begin" hook (a plain deferred BEGIN); the
    # marker is the one oslo.db's commit/rollback hooks clear.
    if "in_transaction" not in conn.info:
        _take_writer_turn(conn)
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            _end_writer_turn(conn.info)
            raise
        conn.info["in_transaction"] = True


# -- one writer at a time, first come first served ---------------------------
# SQLite's busy handler retries a locked database after sleeps of up to
# 100 ms; a writer that just woke up loses to any thread that arrives at the
# right moment, so with hundreds of writers in one process (a boot storm in
# the all-in-one) some waited out the 30 s busy timeout and failed with
# "database is locked". Writers of this process therefore queue in order on
# a lock per database file before BEGIN IMMEDIATE; SQLite's own lock then
# only arbitrates with other processes (keel manage, a bench poller).
# They queue before taking a pooled connection (_WriterPool): hundreds of
# queued writers each holding one emptied the pool. The turn is given back
# after COMMIT/ROLLBACK and at the latest when the connection returns to
# the pool; a later BEGIN on the same connection queues again.
_WRITER_TURN = "keel_writer_turn"
# The queue is fair, so a long wait means an overloaded process, not a
# starved writer: wait long rather than fail a build (a deadlocked writer
# still surfaces).
WRITER_WAIT = 120.0


class FairLock:
    """A lock handed to its waiters in arrival order (threading.Lock is
    not fair); it may be released by another thread than its holder."""

    def __init__(self):
        self._mutex = threading.Lock()
        self._waiters = collections.deque()
        self._held = False

    def acquire(self, timeout=None):
        with self._mutex:
            if not self._held:
                self._held = True
                return True
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append(turn)
        if turn.acquire(timeout=-1 if timeout is None else timeout):
            return True
        with self._mutex:
            try:
                self._waiters.remove(turn)
            except ValueError:      # handed over just as the wait ended
                return True
        return False

    def release(self):
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()   # stays held: hand-over
            else:
                self._held = False

    def locked(self):
        return self._held


_writer_locks_guard = threading.Lock()
_writer_locks = {}


def writer_lock(path):
    """The process's writer lock of one SQLite database file."""
    key = os.path.realpath(path)
    with _writer_locks_guard:
        lock = _writer_locks.get(key)
        if lock is None:
            lock = _writer_locks[key] = FairLock()
        return lock


def _wait_for_turn(lock):
    if not lock.acquire(WRITER_WAIT):
        raise db_exc.DBError(
            "database is locked: no write turn within %s s" % WRITER_WAIT)


def _take_writer_turn(conn):
    lock = getattr(conn.dialect, _WRITER_TURN, None)
    if lock is None or _WRITER_TURN in conn.info:
        return
    _wait_for_turn(lock)
    conn.info[_WRITER_TURN] = lock


class _WriterPool(sa.pool.QueuePool):
    """Writers wait for their turn before they take a connection."""

    # SQLAlchemy names a pool's logger after its class's module: keep this
    # one under "sqlalchemy" (WARN by oslo.log's defaults) so that its INFO
    # lines ("Pool recreating" on every dispose) stay out of the commands'
    # output, as those of SQLAlchemy's own pools do.
    __module__ = "sqlalchemy.pool.impl"

    def connect(self):
        lock = getattr(self._dialect, _WRITER_TURN, None)
        if lock is None:
            return super().connect()
        _wait_for_turn(lock)
        try:
            fairy = super().connect()
        except BaseException:
            lock.release()
            raise
        fairy.info[_WRITER_TURN] = lock
        return fairy


def _end_writer_turn(info):
    lock = info.pop(_WRITER_TURN, None) if info is not None else None
    if lock is not None:
        lock.release()


def _install_writer_turns(engine):
    """Take the file's writer lock at BEGIN; give it back once COMMIT or
    ROLLBACK has run, and in any case when the connection goes back to
    the pool, is reset or invalidated (an exception path cannot keep it)."""
    path = engine.url.database
    if not path or path == ":memory:":
        return
    dialect = engine.dialect     # shared by the engine's option copies
    setattr(dialect, _WRITER_TURN, writer_lock(path))
    for name in ("do_commit", "do_rollback"):
        original = getattr(dialect, name)

        def ended(dbapi_conn, _original=original):
            try:
                _original(dbapi_conn)
            finally:
                _end_writer_turn(getattr(dbapi_conn, "info", None))
        setattr(dialect, name, ended)

    def on_pool_event(_dbapi_conn, record, *_args):
        _end_writer_turn(getattr(record, "info", None))
    for event in ("checkin", "reset", "invalidate", "close"):
        sa.event.listen(engine.pool, event, on_pool_event)


def _sqlite_on_begin_deferred(conn):
    # oslo.db's own hook emits the same BEGIN through conn.execute(text()):
    # a text clause built, cache-keyed and compiled for a constant string
    # on every transaction. The driver-level call sends the same statement
    # (still seen by statement events and the bench's counters).
    if "in_transaction" not in conn.info:
        conn.exec_driver_sql("BEGIN")
        conn.info["in_transaction"] = True


def _replace_begin_hook(engine, hook, only_oslo=False):
    """Put ``hook`` in place of oslo.db's BEGIN hook on ``engine`` (with
    ``only_oslo``, leave an engine without that hook alone: its driver
    emits BEGIN itself)."""
    found = False
    for fn in list(engine.dispatch.begin):
        if getattr(fn, "__name__", "") == "_sqlite_emit_begin":
            sa.event.remove(engine, "begin", fn)
            found = True
    if (found or not only_oslo) and not sa.event.contains(
            engine, "begin", hook):
        sa.event.listen(engine, "begin", hook)


def _install_sqlite_pragmas(engine, immediate=True):
    """SQLite shared by many threads of one process (the all-in-one)."""
    if engine.dialect.name != "sqlite":
        return
    sa.event.listen(engine, "connect", _sqlite_on_connect)
    _replace_begin_hook(
        engine, _sqlite_on_begin if immediate else _sqlite_on_begin_deferred)
    _pool_connections(engine, _WriterPool if immediate else None)
    if immediate:
        _install_writer_turns(engine)
    # oslo.db opened a first connection to test the URL before these
    # listeners existed; drop it so every pooled connection has them.
    engine.dispose()


def _pool_connections(engine, pool_class=None):
    """Keep SQLite connections open between transactions.

    oslo.db gives file-based SQLite a NullPool, so every transaction opens
    the file and replays the connect pragmas: ~1.5 ms of a ~4 ms object
    read. A QueuePool built the way SQLAlchemy's own Pool.recreate() does
    (same creator, same event dispatch) keeps every listener in place.
    No pre-ping: a local file has no server that could drop the connection
    (it was a ``SELECT 1`` per checkout, ~2% of an all-in-one boot). The
    pool holds enough connections for a boot storm's concurrent readers, so
    that they are not reopened each time (overflow connections are closed
    on checkin).
    """
    old = engine.pool
    if not isinstance(old, sa.pool.NullPool):
        return
    engine.pool = (pool_class or sa.pool.QueuePool)(
        old._creator, pool_size=16, max_overflow=64, timeout=60,
        recycle=old._recycle, echo=old.echo,
        logging_name=old._orig_logging_name,
        reset_on_return=old._reset_on_return, pre_ping=False,
        _dispatch=old.dispatch, dialect=old._dialect)
    # oslo.db's checkin hook sleeps(0) to let eventlet's green threads run;
    # keel has none, and with real threads it only hands the GIL around.
    # (Engines of keel's own contexts never get it: another service's, as
    # the all-in-one's embedded Placement, still has it.)
    if sa.event.contains(engine, "checkin", engines._thread_yield):
        sa.event.remove(engine, "checkin", engines._thread_yield)


def pool_sqlite_connections(engine):
    """The same for another SQLite engine of the process (the all-in-one's
    embedded Placement): pooled connections in WAL mode with a busy
    timeout (its own foreign-key setting is kept); other databases are
    left alone."""
    if engine.dialect.name != "sqlite" or not _is_sqlite_file_url(
            str(engine.url)):
        return
    sa.event.listen(engine, "connect", _sqlite_shared_file)
    _replace_begin_hook(engine, _sqlite_on_begin_deferred, only_oslo=True)
    _pool_connections(engine)
    engine.dispose()


def api_context_manager():
    global _api_context
    # Every API-database transaction asks. Once built, the context is
    # answered without the module lock: reading the global is atomic and
    # it is published only after its engines are set up (below), so no
    # thread sees a half-built one; only the first callers queue.
    ctx_mgr = _api_context
    if ctx_mgr is not None:
        return ctx_mgr
    with _lock:
        if _api_context is None:
            opts = _db_options("api_database")
            if not opts.get("connection"):
                raise RuntimeError("[api_database]/connection is not set")
            ctx_mgr = _new_context_manager(**opts)
            _install_sqlite_engines(ctx_mgr)
            _api_context = ctx_mgr
        return _api_context


def cell_context_manager(connection=None):
    """The transaction context for a cell database URL (default [database])."""
    url = connection if connection is not None else CONF.database.connection
    # Every untargeted cell_reader/cell_writer comes here: a known URL is
    # answered without reading the dozen [database] options (~25 us of
    # oslo.config lookups per transaction); they only shape a new context.
    ctx_mgr = _cell_contexts.get(url) if url else None
    if ctx_mgr is not None:
        return ctx_mgr
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


def cell_connection_reader(context):
    """Like cell_reader, yielding the transaction's Connection (oslo.db's
    connection mode: no ORM Session is built, begun and closed)."""
    return _cell_for(context).reader.connection.using(context)


def cell_connection_writer(context):
    return _cell_for(context).writer.connection.using(context)


def in_transaction(context):
    """Whether a transaction (any database) is open on ``context`` in this
    thread: a transaction begun now would join it (or, for another
    database, nest inside its caller's), so it is not the outermost.
    enginefacade keeps the open one as ``current`` of the context's
    per-thread ``_enginefacade_context`` (what its public
    ``context.transaction_ctx`` reads; keel.context already knows that
    attribute). Read directly: transaction_ctx answers "none" with an
    exception whose message formats the context, ~4 us per call."""
    local = getattr(context, "_enginefacade_context", None)
    return local is not None and getattr(local, "current", None) is not None


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
