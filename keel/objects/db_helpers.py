"""Small pieces of database plumbing shared by the object modules.

Only what every object needs: the read_deleted filter, Nova's soft delete,
turning duplicate-key errors into Nova exceptions, and copying row columns
onto object fields.
"""
import contextlib
import functools
import inspect

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as db_utils
from oslo_utils import timeutils
import sqlalchemy as sa

from keel.db import session
from keel import exception

# Set on compute hosts: the objects' own database code must never run there
# (remotable methods go to the conductor), so any attempt is an error.
_db_access_disabled = False


def disable_db_access():
    global _db_access_disabled
    _db_access_disabled = True


def enable_db_access():
    global _db_access_disabled
    _db_access_disabled = False


def _check_db_access():
    if _db_access_disabled:
        raise exception.DBNotAllowed(binary="nova-compute")


def cell_reader(context):
    _check_db_access()
    return session.cell_reader(context)


def cell_writer(context):
    _check_db_access()
    return session.cell_writer(context)


class CoreTransaction(object):
    """What object code uses of a Session, over the Connection of an
    oslo.db connection-mode transaction. Object calls whose statements are
    all Core (built once, run with ``connection()``) skip the ORM
    Session's construction, begin, commit and close: ~0.2 ms CPU of a
    ~0.7 ms one-statement transaction on MariaDB. Anything else (an ORM
    query on a rare path, add/flush) goes to a Session made on demand
    over the same connection, flushed before the transaction commits."""

    __slots__ = ("_conn", "_session")

    def __init__(self, conn):
        self._conn = conn
        self._session = None

    def connection(self):
        return self._conn

    def __getattr__(self, name):
        if self._session is None:
            from sqlalchemy import orm
            self._session = orm.Session(bind=self._conn,
                                        autoflush=True)
        return getattr(self._session, name)

    def _finish(self, ok):
        orm_session, self._session = self._session, None
        if orm_session is None:
            return
        try:
            if ok:
                orm_session.flush()
        finally:
            orm_session.close()


@contextlib.contextmanager
def _core(opener, context):
    _check_db_access()
    with opener(context) as conn:
        tx = CoreTransaction(conn)
        ok = False
        try:
            yield tx
            ok = True
        finally:
            tx._finish(ok)


def cell_core_reader(context):
    """cell_reader for Core-only code (see CoreTransaction)."""
    return _core(session.cell_connection_reader, context)


def cell_core_writer(context):
    """cell_writer for Core-only code (see CoreTransaction)."""
    return _core(session.cell_connection_writer, context)


def _context_of(args):
    """The RequestContext of an object method (self._context) or of a
    (remotable) classmethod or function taking the context first."""
    first = args[0]
    if isinstance(first, type):
        return args[1]
    context = getattr(first, "_context", None)
    return first if context is None else context


def retry_on_deadlock(fn=None, exception_checker=None):
    """Nova's ``wrap_db_retry(max_retries=5, retry_on_deadlock=True)`` for
    a call that opens its own writer transaction: a DBDeadlock (MySQL
    1213, PostgreSQL 40P01; oslo.db's filters) re-runs the whole call in a
    new transaction, after oslo.db's growing, jittered sleep.

    A retry is only right for the outermost transaction: inside a caller's
    (open on the same context) the deadlock has already rolled that one
    back, so the call runs once and the error goes to the caller, which
    fails as before. ``exception_checker`` names more exceptions to retry
    (Nova's instance update also retries UnknownInstanceUpdateConflict).
    Put it under @remotable so that only the side with the database
    retries."""
    if fn is None:
        return functools.partial(retry_on_deadlock,
                                 exception_checker=exception_checker)
    kwargs = {"max_retries": 5, "retry_on_deadlock": True}
    if exception_checker is not None:
        kwargs["exception_checker"] = exception_checker
    retrying = oslo_db_api.wrap_db_retry(**kwargs)(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        if session.in_transaction(_context_of(args)):
            return fn(*args, **kw)
        return retrying(*args, **kw)
    # The method's own signature for callers that read it (oslo's object
    # fingerprints hash the remotable methods' argspecs).
    wrapper.__signature__ = inspect.signature(fn)
    return wrapper


def api_reader(context):
    _check_db_access()
    return session.api_reader(context)


def api_writer(context):
    _check_db_access()
    return session.api_writer(context)


def filter_deleted(stmt, model, context, read_deleted=None):
    """Apply the context's read_deleted ('no' | 'yes' | 'only')."""
    mode = read_deleted or getattr(context, "read_deleted", "no")
    if mode == "no":
        return stmt.where(model.deleted == 0)
    if mode == "only":
        return stmt.where(model.deleted != 0)
    return stmt


def soft_delete_values(model):
    """Values for an UPDATE that soft-deletes rows: deleted = id."""
    return {"deleted": model.id, "deleted_at": timeutils.utcnow(),
            "updated_at": model.updated_at}


def soft_delete_row(row):
    row.deleted = row.id
    row.deleted_at = timeutils.utcnow()


@contextlib.contextmanager
def translate_duplicates(factory):
    """Turn oslo.db's DBDuplicateEntry into ``factory(exc)``'s exception."""
    try:
        yield
    except db_exc.DBDuplicateEntry as exc:
        raise factory(exc) from exc


@functools.lru_cache(maxsize=None)
def _columns(model):
    return frozenset(c.key for c in sa.inspect(model).column_attrs)


def columns(model):
    if isinstance(model, RowValues):
        return _columns(model.model)
    return _columns(model)


def copy_columns(obj, row, skip=()):
    """Set every object field that has a same-named column on ``row``."""
    cols = columns(row if isinstance(row, RowValues) else type(row))
    for name in obj.fields:
        if name in skip or name not in cols:
            continue
        value = getattr(row, name)
        if name == "deleted":
            value = bool(value)
        setattr(obj, name, value)


def changes_for_db(obj, model, extra=None, skip=()):
    """The object's changed fields that are columns of ``model``."""
    cols = columns(model)
    values = {k: v for k, v in obj.obj_get_changes().items()
              if k in cols and k not in skip and k != "id"}
    if extra:
        values.update(extra)
    return values


def check_not_created(obj):
    if obj.obj_attr_is_set("id"):
        raise exception.ObjectActionError(action="create",
                                          reason="already created")


def paginate(stmt, model, sort_keys, sort_dirs, limit=None, marker_row=None):
    """Keyset pagination (oslo.db's paginate_query works on a select)."""
    return db_utils.paginate_query(stmt, model, limit, sort_keys,
                                   marker=marker_row, sort_dirs=sort_dirs)


def simple_from_db(context, obj, row):
    """_from_db_object for objects whose fields are all plain columns."""
    copy_columns(obj, row)
    obj._context = context
    obj.obj_reset_changes()
    return obj


class RowValues(object):
    """A row as read with Core, with the values written over it: what the
    ORM row would hold after its flush, for the objects' _from_db_object."""

    def __init__(self, model, mapping, values=None):
        self.__dict__.update(mapping)
        if values:
            self.__dict__.update(values)
        self.model = model


@functools.lru_cache(maxsize=None)
def _select_by_id(model):
    table = model.__table__
    return sa.select(table).where(table.c.id == sa.bindparam("w_id"))


@functools.lru_cache(maxsize=256)
def _update_by_id(model, names):
    table = model.__table__
    return (sa.update(table).where(table.c.id == sa.bindparam("w_id"))
            .values({table.c[name]: sa.bindparam("v_" + name)
                     for name in names}))


def read_live_row(session, model, row_id):
    """The live row ``row_id`` of ``model`` (a RowValues), or None."""
    found = session.connection().execute(
        _select_by_id(model), {"w_id": row_id}).first()
    if found is None or found.deleted:
        return None
    return RowValues(model, found._mapping)


def update_row(session, row, values):
    """Write the ``values`` that differ from ``row`` (a RowValues from
    read_live_row) and stamp updated_at, as the ORM's flush of the row
    would (nothing written when nothing differs); ``row`` then holds what
    was written. One Core UPDATE built once per column set, without the
    ORM's unit of work."""
    changed = {k: v for k, v in values.items()
               if k not in row.__dict__ or row.__dict__[k] != v}
    if not changed:
        return row
    if "updated_at" not in changed:
        changed["updated_at"] = timeutils.utcnow()
    params = {"v_" + k: v for k, v in changed.items()}
    params["w_id"] = row.id
    session.connection().execute(
        _update_by_id(row.model, tuple(sorted(changed))), params)
    row.__dict__.update(changed)
    return row


@functools.lru_cache(maxsize=None)
def _insert(model):
    return sa.insert(model.__table__)


def insert_row(session, model, values):
    """INSERT one row of ``model`` with a Core statement built once (no ORM
    unit of work) and return it as a re-read would (a RowValues with every
    column: the values, python-side defaults, the new id). The cell models
    have no server-side defaults, so nothing is left to read back."""
    done = session.connection().execute(_insert(model), values)
    row = dict.fromkeys(model.__table__.c.keys())
    row.update(done.last_inserted_params())
    row["id"] = done.inserted_primary_key[0]
    return RowValues(model, row)


def insert_rows(session, model, rows):
    """INSERT several rows of ``model`` as one executemany."""
    session.connection().execute(_insert(model), rows)


def _unknown_update_conflict(exc):
    return isinstance(exc, exception.UnknownInstanceUpdateConflict)


# Nova's instance update: a conflict whose cause this transaction's read
# view could not show is retried in a fresh transaction, as a deadlock is.
retry_instance_update = functools.partial(
    retry_on_deadlock, exception_checker=_unknown_update_conflict)
