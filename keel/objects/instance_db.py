"""Queries behind Instance and InstanceList.

Kept apart from the object module so the object reads as behaviour and this
reads as SQL: loading options for expected_attrs, the key/value tables, the
compare-and-swap update on task_state/vm_state, and list filtering.
"""
import functools

import sqlalchemy as sa
from sqlalchemy import orm

from keel.db.cell import models
from keel import exception
from keel.objects import db_helpers as h

# expected_attrs that are relationships of the instances row, with the
# relationship names the model may use for each.
_RELATIONS = {
    "metadata": ("metadata", "metadata_items"),
    "system_metadata": ("system_metadata",),
    "info_cache": ("info_cache",),
    "tags": ("tags",),
}


def relation_key(attr):
    """The model's relationship name for an expected_attr."""
    rels = sa.inspect(models.Instance).relationships
    for key in _RELATIONS[attr]:
        if key in rels:
            return key
    raise AttributeError("instances model has no %s relationship" % attr)


def related(row, attr):
    return getattr(row, relation_key(attr))


def load_options(expected_attrs):
    """One extra SELECT per relationship for a whole list (no N+1)."""
    rels = sa.inspect(models.Instance).relationships
    opts = [orm.selectinload(rels["extra"].class_attribute)]
    for attr in expected_attrs or ():
        if attr in _RELATIONS:
            rel = rels[relation_key(attr)]
            opts.append(orm.selectinload(rel.class_attribute))
    return opts


def _get_one(session, context, where, expected_attrs, instance_id):
    """The instance row matching ``where``, read as Nova's
    _build_instance_get: model_query(project_only=True), so a user context
    finds only its project's instances (another's is InstanceNotFound)."""
    stmt = sa.select(models.Instance).where(where)
    stmt = h.filter_deleted(stmt, models.Instance, context)
    project_id = owner_filter(context)
    if project_id is not None:
        stmt = stmt.where(models.Instance.project_id == project_id)
    row = session.execute(
        stmt.options(*load_options(expected_attrs))).scalars().first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=instance_id)
    return row


def get_by_uuid(session, context, uuid, expected_attrs):
    return _get_one(session, context, models.Instance.uuid == uuid,
                    expected_attrs, uuid)


def get_by_id(session, context, instance_id, expected_attrs):
    return _get_one(session, context, models.Instance.id == instance_id,
                    expected_attrs, instance_id)


def sync_key_values(session, model, instance_uuid, wanted):
    """Make the live key/value rows of ``model`` equal ``wanted``: changed
    values are updated, dropped keys soft-deleted, new keys inserted."""
    rows = session.execute(sa.select(model).where(
        model.instance_uuid == instance_uuid,
        model.deleted == 0)).scalars().all()
    existing = {r.key: r for r in rows}
    for key, row in existing.items():
        if key not in wanted:
            h.soft_delete_row(row)
        elif row.value != wanted[key]:
            row.value = wanted[key]
    for key, value in wanted.items():
        if key not in existing:
            session.add(model(instance_uuid=instance_uuid, key=key,
                              value=value))


def _state_shape(wanted):
    """(wanted states without None, whether None is wanted, all of them)
    for an expected state given as a value or a list; None if not given."""
    if wanted is None:
        return None
    if not isinstance(wanted, (list, tuple, set)):
        wanted = [wanted]
    wanted = list(wanted)
    return [w for w in wanted if w is not None], None in wanted, wanted


def owner_filter(context):
    """The project a save must be limited to: the context's own for a user
    context (Nova's model_query(project_only=True) on the instance UPDATE:
    a user cannot save another project's instance), None for an admin or
    elevated context, or one without a user and project (Nova's
    is_user_context)."""
    if (context is None or context.is_admin or not context.user_id
            or not context.project_id):
        return None
    return context.project_id


@functools.lru_cache(maxsize=512)
def _cas_statement(task_shape, vm_shape, names, by_project=False,
                   returning=False):
    """UPDATE instances SET <names> WHERE uuid = :w_uuid AND deleted = 0
    AND <the state checks> [AND project_id = :w_project_id], built once per
    shape of the checks, set of written columns and project filter (two
    prebuilt variants); the uuid, the expected states, the project and the
    values are all bound parameters (w_uuid, w_<column>_<i>, w_project_id,
    v_<column>). Building the statement and its cache key on every save
    cost more than the rest of the save; a statement kept keeps its key
    (SQLAlchemy memoizes it). ``returning``: the variant that also
    returns the updated row (Nova's save reads the row back)."""
    table = models.Instance.__table__
    stmt = sa.update(table).where(table.c.uuid == sa.bindparam("w_uuid"),
                                  table.c.deleted == 0)
    if by_project:
        stmt = stmt.where(table.c.project_id == sa.bindparam("w_project_id"))
    for column, shape in (("task_state", task_shape),
                          ("vm_state", vm_shape)):
        if shape is None:
            continue
        n_values, has_null = shape
        col = table.c[column]
        conds = []
        # One plain parameter per expected state (the shape has their
        # number): an expanding IN is re-rendered on every execution.
        if n_values == 1:
            conds.append(col == sa.bindparam("w_%s_0" % column))
        elif n_values:
            conds.append(col.in_([sa.bindparam("w_%s_%d" % (column, i))
                                  for i in range(n_values)]))
        if has_null:
            conds.append(col.is_(None))
        stmt = stmt.where(sa.or_(*conds) if conds else sa.false())
    if names:
        stmt = stmt.values({table.c[name]: sa.bindparam(
            "v_" + name, type_=table.c[name].type) for name in names})
    else:
        # Still a real UPDATE so the state check happens atomically.
        stmt = stmt.values({table.c.updated_at: table.c.updated_at})
    if returning:
        stmt = stmt.returning(*table.c)
    return stmt


def compare_and_swap(session, uuid, values, expected_task_state=None,
                     expected_vm_state=None, project_id=None):
    """UPDATE instances SET ... WHERE uuid = ? [AND task_state IN (...)]
    [AND vm_state IN (...)] [AND project_id = ?]: the state checks and the
    write are one statement, so two racing writers cannot both win.
    ``project_id`` (owner_filter's answer) limits the write to that
    project's instance: another project's is InstanceNotFound.

    Returns the row as it is after the write (every column), as Nova's
    instance_update_and_get_original does, so the caller also learns what
    other writers changed: from UPDATE ... RETURNING where the database
    has it (SQLite >= 3.35, PostgreSQL), else (MariaDB 10.11, MySQL) from
    one SELECT in the same transaction, which sees the row just written."""
    params = {"w_uuid": uuid}
    if project_id is not None:
        params["w_project_id"] = project_id
    expected = {}
    shapes = []
    for column, wanted in (("task_state", expected_task_state),
                           ("vm_state", expected_vm_state)):
        shape = _state_shape(wanted)
        if shape is None:
            shapes.append(None)
            continue
        not_null, has_null, expected[column] = shape
        for i, state in enumerate(not_null):
            params["w_%s_%d" % (column, i)] = state
        shapes.append((len(not_null), has_null))
    for name, value in values.items():
        params["v_" + name] = value
    conn = session.connection()
    returning = conn.dialect.update_returning
    stmt = _cas_statement(shapes[0], shapes[1], tuple(sorted(values)),
                          project_id is not None, returning)
    result = conn.execute(stmt, params)
    if returning:
        row = result.first()
        if row is not None:
            return row
    elif result.rowcount:
        return conn.execute(_row_now(), {"w_uuid": uuid}).first()
    found = conn.execute(_states_now(), {"w_uuid": uuid}).first()
    if found is None or (project_id is not None and
                         found.project_id != project_id):
        raise exception.InstanceNotFound(instance_id=uuid)
    # As Nova: the exception names only the states that conflict, each
    # as {column: expected list} / {column: actual value}.
    conflicts_expected, conflicts_actual = {}, {}
    for column, actual in (("task_state", found.task_state),
                           ("vm_state", found.vm_state)):
        if column in expected and actual not in expected[column]:
            conflicts_expected[column] = expected[column]
            conflicts_actual[column] = actual
    props = {"instance_uuid": uuid, "expected": conflicts_expected,
             "actual": conflicts_actual}
    if not conflicts_actual:
        raise exception.UnknownInstanceUpdateConflict(**props)
    if "task_state" in conflicts_actual:
        if conflicts_actual["task_state"] == "deleting":
            raise exception.UnexpectedDeletingTaskStateError(**props)
        raise exception.UnexpectedTaskStateError(**props)
    raise exception.InstanceUpdateConflict(**props)


@functools.lru_cache(maxsize=None)
def _row_now():
    table = models.Instance.__table__
    return sa.select(table).where(table.c.uuid == sa.bindparam("w_uuid"))


@functools.lru_cache(maxsize=None)
def _states_now():
    table = models.Instance.__table__
    return sa.select(table.c.task_state, table.c.vm_state,
                     table.c.project_id).where(
        table.c.uuid == sa.bindparam("w_uuid"), table.c.deleted == 0)


@functools.lru_cache(maxsize=64)
def _extra_update(names):
    """UPDATE instance_extra SET <names> WHERE instance_uuid = :w_uuid,
    built once per set of columns (the ORM's bulk UPDATE was built,
    cache-keyed and evaluated against the session on every save)."""
    table = models.InstanceExtra.__table__
    return (sa.update(table)
            .where(table.c.instance_uuid == sa.bindparam("w_uuid"))
            .values({table.c[name]: sa.bindparam(
                "v_" + name, type_=table.c[name].type) for name in names}))


def update_extra(session, uuid, values):
    """Write ``values`` (column: value) to the instance's extra row."""
    params = {"v_" + name: value for name, value in values.items()}
    params["w_uuid"] = uuid
    session.connection().execute(_extra_update(tuple(sorted(values))),
                                 params)


@functools.lru_cache(maxsize=None)
def _save_reads():
    """(the instance's states before a save, for instance.update; the
    stored flavors), SELECTs built once."""
    inst = models.Instance.__table__
    extra = models.InstanceExtra.__table__
    return (sa.select(inst.c.vm_state, inst.c.task_state,
                      inst.c.display_name)
            .where(inst.c.uuid == sa.bindparam("w_uuid")),
            sa.select(extra.c.flavor)
            .where(extra.c.instance_uuid == sa.bindparam("w_uuid")))


def states_before_save(session, uuid):
    """(vm_state, task_state, display_name) of the row, or None."""
    return session.connection().execute(
        _save_reads()[0], {"w_uuid": uuid}).first()


def stored_flavor(session, uuid):
    """instance_extra.flavor (the flavors' JSON) of the instance."""
    return session.connection().execute(
        _save_reads()[1], {"w_uuid": uuid}).scalar()


@functools.lru_cache(maxsize=None)
def _soft_delete_statements():
    """(the instance's UPDATE, its dependents' statements), built once."""
    def soft_delete(table, where):
        return (sa.update(table).where(where, table.c.deleted == 0)
                .values({table.c.deleted: table.c.id,
                         table.c.deleted_at: sa.bindparam("v_now")}))

    inst = models.Instance.__table__
    # The instance row's updated_at follows its onupdate (as the ORM flush
    # of the row did); the dependents keep theirs (as soft_delete_values).
    first = soft_delete(inst, inst.c.uuid == sa.bindparam("w_uuid"))
    rest = []
    for model in (models.InstanceMetadata, models.InstanceSystemMetadata,
                  models.InstanceInfoCache, models.InstanceExtra,
                  models.BlockDeviceMapping):
        table = model.__table__
        rest.append(soft_delete(
            table, table.c.instance_uuid == sa.bindparam("w_uuid"))
            .values({table.c.updated_at: table.c.updated_at}))
    tag = models.Tag.__table__
    rest.append(sa.delete(tag).where(
        tag.c.resource_id == sa.bindparam("w_uuid")))
    return first, tuple(rest)


def soft_delete(session, uuid, now):
    """Soft-delete the live instance ``uuid`` and its dependent rows (tags
    are deleted); InstanceNotFound when there is no live instance. One
    UPDATE tells whether it was there: no SELECT of the row first."""
    first, rest = _soft_delete_statements()
    conn = session.connection()
    params = {"w_uuid": uuid, "v_now": now}
    if not conn.execute(first, params).rowcount:
        raise exception.InstanceNotFound(instance_id=uuid)
    for stmt in rest:
        conn.execute(stmt, params)


# Filters compared for equality (lists mean IN), as Nova's exact filters.
_EXACT = ("uuid", "project_id", "user_id", "host", "node", "vm_state",
          "task_state", "image_ref", "instance_type_id", "reservation_id",
          "key_name", "availability_zone", "launch_index", "power_state",
          "compute_id", "locked", "locked_by", "hostname")
# Filters matched as regular expressions, as Nova's name filters.
_REGEX = {"display_name": "display_name", "name": "display_name",
          "display_description": "display_description"}


def restrict_to_requester(context, filters):
    """Nova's instance_get_all_by_filters_sort for a context that is not
    admin: its project's instances only (the caller's project_id filter
    replaced), or, without a project, its user's."""
    if context is None or context.is_admin:
        return filters
    filters = dict(filters or {})
    if context.project_id:
        filters["project_id"] = context.project_id
    else:
        filters["user_id"] = context.user_id
    return filters


def apply_filters(stmt, context, filters):
    inst = models.Instance
    filters = dict(filters or {})
    deleted = filters.pop("deleted", None)
    if deleted is None:
        stmt = h.filter_deleted(stmt, inst, context)
    elif deleted:
        stmt = stmt.where(inst.deleted != 0)
        if filters.pop("soft_deleted", None) is False:
            stmt = stmt.where(inst.vm_state != "soft-delete")
    else:
        stmt = stmt.where(inst.deleted == 0)
        if not filters.pop("soft_deleted", True):
            stmt = stmt.where(sa.or_(inst.vm_state.is_(None),
                                     inst.vm_state != "soft-delete"))
    # As Nova: the hidden copy of an instance (cross-cell resize) is left
    # out unless hidden=True is asked for; NULL is an older row, not hidden.
    if filters.pop("hidden", False):
        stmt = stmt.where(inst.hidden == sa.true())
    else:
        stmt = stmt.where(sa.or_(inst.hidden.is_(None),
                                 inst.hidden == sa.false()))
    if "changes-since" in filters:
        stmt = stmt.where(inst.updated_at >= filters.pop("changes-since"))
    if "changes-before" in filters:
        stmt = stmt.where(inst.updated_at <= filters.pop("changes-before"))
    if "tags" in filters:
        for tag in filters.pop("tags"):
            stmt = stmt.where(inst.uuid.in_(
                sa.select(models.Tag.resource_id)
                .where(models.Tag.tag == tag)))
    if "tags-any" in filters:
        stmt = stmt.where(inst.uuid.in_(
            sa.select(models.Tag.resource_id)
            .where(models.Tag.tag.in_(filters.pop("tags-any")))))
    for key in _EXACT:
        if key not in filters:
            continue
        value = filters.pop(key)
        col = getattr(inst, key)
        if isinstance(value, (list, tuple, set)):
            stmt = stmt.where(col.in_(list(value)))
        elif value is None:
            stmt = stmt.where(col.is_(None))
        else:
            stmt = stmt.where(col == value)
    for key, column in _REGEX.items():
        if key in filters:
            stmt = stmt.where(getattr(inst, column).regexp_match(
                str(filters.pop(key))))
    return stmt


def obj_from_extra(cls, context, instance_uuid, column):
    """The object stored in instance_extra.<column> (None when empty);
    InstanceNotFound when the instance has no extra row."""
    from oslo_serialization import jsonutils

    extra = models.InstanceExtra
    with h.cell_reader(context) as s:
        row = s.execute(sa.select(getattr(extra, column)).where(
            extra.instance_uuid == instance_uuid,
            extra.deleted == 0)).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=instance_uuid)
    if not row[0]:
        return None
    obj = cls.obj_from_primitive(jsonutils.loads(row[0]), context=context)
    obj.obj_reset_changes(recursive=True)
    return obj
