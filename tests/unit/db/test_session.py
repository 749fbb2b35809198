"""SQLite engines of keel.db.session: writers of one process take turns on
a fair per-file lock (BEGIN IMMEDIATE), readers do not queue behind them."""
import threading
import time

from oslo_db.sqlalchemy import engines
import pytest
import sqlalchemy as sa

from keel.db import session


@pytest.fixture
def db(tmp_path):
    session.reset()
    url = f"sqlite:///{tmp_path}/cell.sqlite"
    ctx_mgr = session.cell_context_manager(url)
    writer = ctx_mgr.writer.get_engine()
    with writer.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
    yield ctx_mgr, writer, session.writer_lock(str(tmp_path / "cell.sqlite"))
    session.reset()


def test_fair_lock_hands_over_in_arrival_order():
    lock = session.FairLock()
    lock.acquire()
    order = []
    threads = []
    for i in range(6):
        t = threading.Thread(target=lambda i=i: (lock.acquire(),
                                                 order.append(i),
                                                 lock.release()))
        t.start()
        threads.append(t)
        while len(lock._waiters) < i + 1:   # queued before the next one
            time.sleep(0.001)
    lock.release()
    for t in threads:
        t.join(5)
    assert order == list(range(6))
    assert not lock.locked()


def test_fair_lock_timeout_leaves_the_queue():
    lock = session.FairLock()
    lock.acquire()
    assert lock.acquire(timeout=0.05) is False
    assert not lock._waiters
    lock.release()
    assert lock.acquire(timeout=0.05) is True
    lock.release()


def test_writer_holds_the_turn_until_commit(db):
    _ctx, writer, lock = db
    assert not lock.locked()
    with writer.begin() as conn:
        conn.exec_driver_sql("INSERT INTO t (v) VALUES (1)")
        assert lock.locked()
    assert not lock.locked()


def test_exception_in_transaction_gives_the_turn_back(db):
    _ctx, writer, lock = db
    with pytest.raises(RuntimeError):
        with writer.begin() as conn:
            conn.exec_driver_sql("INSERT INTO t (v) VALUES (1)")
            raise RuntimeError("boom")
    assert not lock.locked()
    with writer.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM t").scalar() == 0


def test_connection_returned_mid_transaction_gives_the_turn_back(db):
    _ctx, writer, lock = db
    conn = writer.connect()
    conn.begin()
    conn.exec_driver_sql("INSERT INTO t (v) VALUES (1)")
    assert lock.locked()
    conn.close()          # back to the pool: reset rolls back
    assert not lock.locked()
    with writer.begin() as again:     # and the next writer is not stuck
        again.exec_driver_sql("INSERT INTO t (v) VALUES (2)")


def test_readers_do_not_wait_for_the_writer(db):
    ctx_mgr, writer, lock = db
    reader = ctx_mgr.reader.get_engine()
    assert reader is not writer
    with writer.begin() as conn:
        conn.exec_driver_sql("INSERT INTO t (v) VALUES (1)")
        with reader.connect() as r:
            assert r.exec_driver_sql("SELECT count(*) FROM t").scalar() == 0


def test_many_concurrent_writers_all_succeed(db):
    _ctx, writer, lock = db
    errors = []

    def work(n):
        try:
            for i in range(15):
                with writer.begin() as conn:
                    conn.exec_driver_sql(
                        "SELECT count(*) FROM t").scalar()
                    conn.exec_driver_sql(
                        "INSERT INTO t (v) VALUES (?)", (n * 100 + i,))
        except Exception as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with writer.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM t").scalar() == 450
    assert not lock.locked()


def test_waiting_writers_do_not_hold_pooled_connections(db):
    _ctx, writer, lock = db
    done = []

    def work(n):
        with writer.begin() as conn:
            conn.exec_driver_sql("INSERT INTO t (v) VALUES (?)", (n,))
        done.append(n)

    conn = writer.connect()
    conn.begin()
    conn.exec_driver_sql("INSERT INTO t (v) VALUES (-1)")
    threads = [threading.Thread(target=work, args=(n,)) for n in range(40)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 10
    while len(lock._waiters) < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(lock._waiters) == 40
    # 40 queued writers, one connection out: the pool cannot run dry.
    assert writer.pool.checkedout() == 1
    conn.commit()
    conn.close()
    for t in threads:
        t.join(30)
    assert sorted(done) == list(range(40))


def _pragma(engine, name):
    with engine.connect() as conn:
        return conn.exec_driver_sql("PRAGMA %s" % name).scalar()


def test_wal_with_synchronous_normal_on_writer_and_reader(db):
    ctx_mgr, writer, _lock = db
    for engine in (writer, ctx_mgr.reader.get_engine()):
        assert _pragma(engine, "journal_mode") == "wal"
        assert _pragma(engine, "synchronous") == 1      # NORMAL


def test_sqlite_synchronous_false_stays_off(tmp_path):
    from keel.conf import CONF
    session.reset()
    CONF.set_override("sqlite_synchronous", False, group="database")
    try:
        ctx_mgr = session.cell_context_manager(
            f"sqlite:///{tmp_path}/off.sqlite")
        assert _pragma(ctx_mgr.writer.get_engine(), "synchronous") == 0
    finally:
        CONF.clear_override("sqlite_synchronous", group="database")
        session.reset()


def test_reader_transaction_is_a_deferred_begin(db):
    ctx_mgr, writer, lock = db
    reader = ctx_mgr.reader.get_engine()
    seen = []

    def record(conn, cursor, statement, *_args):
        seen.append(statement)
    sa.event.listen(reader, "before_cursor_execute", record)
    try:
        with reader.begin() as conn:
            conn.exec_driver_sql("SELECT count(*) FROM t").scalar()
            assert not lock.locked()        # no writer turn taken
            assert conn.connection.dbapi_connection.in_transaction
    finally:
        sa.event.remove(reader, "before_cursor_execute", record)
    assert seen == ["BEGIN", "SELECT count(*) FROM t"]


def test_cell_context_manager_is_kept_per_url(tmp_path):
    from keel.conf import CONF
    session.reset()
    first = f"sqlite:///{tmp_path}/a.sqlite"
    second = f"sqlite:///{tmp_path}/b.sqlite"
    CONF.set_override("connection", first, group="database")
    try:
        a = session.cell_context_manager()
        assert session.cell_context_manager() is a
        assert session.cell_context_manager(first) is a
        CONF.set_override("connection", second, group="database")
        b = session.cell_context_manager()
        assert b is not a
        assert str(b.writer.get_engine().url) == second
    finally:
        CONF.clear_override("connection", group="database")
        session.reset()


def test_pooled_oslo_engine_of_another_service(tmp_path):
    # The all-in-one's embedded Placement: oslo.db's engine, pooled, WAL
    # with synchronous NORMAL, its BEGIN still deferred and still emitted.
    engine = engines.create_engine(f"sqlite:///{tmp_path}/p.sqlite")
    session.pool_sqlite_connections(engine)
    try:
        assert isinstance(engine.pool, sa.pool.QueuePool)
        assert _pragma(engine, "synchronous") == 1
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE p (id INTEGER PRIMARY KEY)")
            conn.exec_driver_sql("INSERT INTO p (id) VALUES (1)")
            assert conn.connection.dbapi_connection.in_transaction
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM p").scalar() \
                == 1
    finally:
        engine.dispose()


def test_engine_without_oslo_begin_hook_is_left_to_its_driver(tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path}/plain.sqlite",
                              poolclass=sa.pool.NullPool)
    session.pool_sqlite_connections(engine)
    try:
        assert not engine.dispatch.begin
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE q (id INTEGER PRIMARY KEY)")
            conn.exec_driver_sql("INSERT INTO q (id) VALUES (1)")
    finally:
        engine.dispose()


@pytest.fixture
def api_db(tmp_path):
    from keel.conf import CONF
    session.reset()
    CONF.set_override("connection", f"sqlite:///{tmp_path}/api.sqlite",
                      group="api_database")
    yield
    CONF.clear_override("connection", group="api_database")
    session.reset()


def test_api_context_is_answered_without_the_module_lock(api_db):
    first = session.api_context_manager()
    got = []
    with session._lock:    # held elsewhere (another cell being opened)
        t = threading.Thread(
            target=lambda: got.append(session.api_context_manager()))
        t.start()
        t.join(5)
        assert not t.is_alive(), "api_context_manager() waited for the lock"
    assert got == [first]
    session.reset()
    assert session.api_context_manager() is not first


def test_api_context_is_published_once_built(api_db, monkeypatch):
    """Threads asking while the first caller still sets the engines up wait
    for it and all get the same, finished context."""
    started, release = threading.Event(), threading.Event()
    real = session._install_sqlite_engines

    def slow_install(ctx_mgr):
        started.set()
        assert release.wait(5)
        real(ctx_mgr)
        ctx_mgr.keel_test_installed = True
    monkeypatch.setattr(session, "_install_sqlite_engines", slow_install)
    got, errors = [], []

    def ask():
        try:
            ctx_mgr = session.api_context_manager()
            got.append((ctx_mgr, getattr(ctx_mgr, "keel_test_installed",
                                         False)))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    builder = threading.Thread(target=ask)
    builder.start()
    assert started.wait(5)
    others = [threading.Thread(target=ask) for _ in range(4)]
    for t in others:
        t.start()
    time.sleep(0.1)
    assert got == []       # nobody has a context before it is set up
    release.set()
    for t in [builder] + others:
        t.join(5)
    assert not errors
    assert len(got) == 5 and len({id(c) for c, _ in got}) == 1
    assert all(installed for _, installed in got)


def test_api_context_not_kept_when_its_setup_fails(api_db, monkeypatch):
    def broken(ctx_mgr):
        raise RuntimeError("cannot open")
    monkeypatch.setattr(session, "_install_sqlite_engines", broken)
    with pytest.raises(RuntimeError):
        session.api_context_manager()
    assert session._api_context is None
    monkeypatch.undo()
    assert session.api_context_manager() is session.api_context_manager()


def test_keel_engines_do_not_sleep_at_checkin(tmp_path):
    # oslo.db's sleep(0) at checkin is for eventlet; keel's contexts turn it
    # off for every database, not only the pooled SQLite files.
    for url in ("sqlite://", f"sqlite:///{tmp_path}/c.sqlite"):
        ctx_mgr = session._new_context_manager(connection=url)
        engine = ctx_mgr.writer.get_engine()
        try:
            assert not sa.event.contains(engine, "checkin",
                                         engines._thread_yield)
        finally:
            engine.dispose()
