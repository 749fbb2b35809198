"""Count-based quotas, as Nova's DbQuotaDriver (no reservations).

Limits: the ``[quota]`` options, overridden by the ``default`` quota class
rows, by a project's ``quotas`` rows and then by a user's
``project_user_quotas`` rows. Usage is counted when asked: instances, cores
and ram from every cell database at once (one query per cell, in parallel),
server groups from the API database, a user's key pairs from the API
database. There is nothing to commit or roll back: a caller checks
``check_deltas`` before creating and, with ``[quota]/recheck_quota``, again
after.
"""
from oslo_log import log as logging
import sqlalchemy as sa

from keel.conf import CONF
from keel.conf import quota as quota_conf
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import cells as cells_db
from keel.db import session
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)
DEFAULT_CLASS = "default"
UNLIMITED = -1

# Resource name -> [quota] option. Order is the order of responses.
SETTABLE = {
    "instances": "instances",
    "cores": "cores",
    "ram": "ram",
    "metadata_items": "metadata_items",
    "injected_files": "injected_files",
    "injected_file_content_bytes": "injected_file_content_bytes",
    "injected_file_path_bytes": "injected_file_path_length",
    "key_pairs": "key_pairs",
    "server_groups": "server_groups",
    "server_group_members": "server_group_members",
}
# nova-network's resources: still reported (always unlimited), never
# stored or enforced.
LEGACY = ("fixed_ips", "floating_ips", "security_groups",
          "security_group_rules")
RESOURCES = tuple(SETTABLE) + LEGACY
_CELL_COUNTED = ("instances", "cores", "ram")
# Counted per user or per group, so zero at the project level (as Nova).
_NOT_PROJECT_COUNTED = ("key_pairs", "server_group_members")


def is_noop():
    return CONF.quota.driver == quota_conf.NOOP_DRIVER


def _config_defaults():
    limits = {name: getattr(CONF.quota, opt) for name, opt in
              SETTABLE.items()}
    limits.update({name: UNLIMITED for name in LEGACY})
    return limits


def _rows(context, model, **where):
    with session.api_reader(context) as s:
        rows = s.execute(sa.select(model.resource, model.hard_limit)
                         .filter_by(**where)).all()
    return {r.resource: r.hard_limit for r in rows if r.resource in SETTABLE}


def get_class_quotas(context, class_name=DEFAULT_CLASS):
    """Config defaults overridden by the class's stored limits."""
    if is_noop():
        return {name: UNLIMITED for name in RESOURCES}
    limits = _config_defaults()
    limits.update(_rows(context, api_models.QuotaClass,
                        class_name=class_name))
    return limits


def get_defaults(context):
    return get_class_quotas(context, DEFAULT_CLASS)


def _limits_statement():
    """The default class's, the project's and the user's stored limits in
    one statement (one round trip instead of three), each row tagged with
    its level; built once."""
    qc, q, pu = (api_models.QuotaClass.__table__, api_models.Quota.__table__,
                 api_models.ProjectUserQuota.__table__)
    return sa.union_all(
        sa.select(sa.literal_column("0").label("level"), qc.c.resource,
                  qc.c.hard_limit)
        .where(qc.c.class_name == sa.bindparam("class_name")),
        sa.select(sa.literal_column("1"), q.c.resource, q.c.hard_limit)
        .where(q.c.project_id == sa.bindparam("project_id")),
        sa.select(sa.literal_column("2"), pu.c.resource, pu.c.hard_limit)
        .where(pu.c.project_id == sa.bindparam("project_id"),
               pu.c.user_id == sa.bindparam("user_id")))


_LIMITS = _limits_statement()


def limits(context, project_id, user_id=None):
    """``(project limits, user limits)``: config defaults overridden by
    the default class, then the project's rows; the user's limits are the
    project's overridden by the user's rows (the project's when
    ``user_id`` is None). One read."""
    if is_noop():
        unlimited = {name: UNLIMITED for name in RESOURCES}
        return unlimited, dict(unlimited)
    with session.api_reader(context) as s:
        rows = s.execute(_LIMITS, {"class_name": DEFAULT_CLASS,
                                   "project_id": project_id,
                                   "user_id": user_id}).all()
    by_level = ({}, {}, {})
    for level, resource, hard_limit in rows:
        if resource in SETTABLE:
            by_level[level][resource] = hard_limit
    plimits = _config_defaults()
    plimits.update(by_level[0])
    plimits.update(by_level[1])
    ulimits = dict(plimits)
    ulimits.update(by_level[2])
    return plimits, ulimits


def project_limits(context, project_id):
    return limits(context, project_id)[0]


def user_limits(context, project_id, user_id):
    return limits(context, project_id, user_id)[1]


# ---- usage -----------------------------------------------------------

def _cell_counts(cctxt, project_id, user_id):
    inst = cell_models.Instance
    mine = inst.user_id == user_id if user_id else sa.false()

    def pair(expr):
        return (sa.func.coalesce(sa.func.sum(expr), 0),
                sa.func.coalesce(sa.func.sum(
                    sa.case((mine, expr), else_=0)), 0))
    stmt = sa.select(*pair(1), *pair(inst.vcpus), *pair(inst.memory_mb)) \
        .where(inst.project_id == project_id, inst.deleted == 0,
               sa.or_(inst.vm_state.is_(None),
                      inst.vm_state != "soft-delete"),
               sa.or_(inst.hidden.is_(None), inst.hidden == sa.false()))
    with session.cell_reader(cctxt) as s:
        row = s.execute(stmt).one()
    return [int(v) for v in row]


def count_instances(context, project_id, user_id=None):
    """``{"project": {...}, "user": {...}}`` of instances, cores, ram over
    every cell. As Nova, a cell that fails or does not answer is logged and
    left out: its instances cannot be counted until it is back."""
    cells = objects.CellMappingList.get_all(context)
    results = cells_db.scatter_gather_cells(
        context, cells, None, _cell_counts, project_id, user_id)
    total = [0] * 6
    for cell_uuid, result in results.items():
        if cells_db.is_cell_failure_sentinel(result):
            LOG.warning("Failed to count instances in cell %s: %s",
                        cell_uuid, result)
            continue
        total = [a + b for a, b in zip(total, result)]
    project = dict(zip(_CELL_COUNTED, total[0::2]))
    user = dict(zip(_CELL_COUNTED, total[1::2]))
    return {"project": project, "user": user}


def count_server_groups(context, project_id, user_id=None):
    grp = api_models.InstanceGroup
    mine = sa.case((grp.user_id == user_id, 1), else_=0) if user_id \
        else sa.literal(0)
    with session.api_reader(context) as s:
        proj, user = s.execute(
            sa.select(sa.func.count(grp.id),
                      sa.func.coalesce(sa.func.sum(mine), 0))
            .where(grp.project_id == project_id)).one()
    return {"project": {"server_groups": int(proj)},
            "user": {"server_groups": int(user)}}


def count_key_pairs(context, user_id):
    kp = api_models.KeyPair
    with session.api_reader(context) as s:
        count = s.execute(sa.select(sa.func.count(kp.id))
                          .where(kp.user_id == user_id)).scalar()
    return {"user": {"key_pairs": int(count)}}


def count_group_members(context, group_uuid):
    grp, member = api_models.InstanceGroup, api_models.InstanceGroupMember
    with session.api_reader(context) as s:
        count = s.execute(sa.select(sa.func.count(member.id))
                          .join(grp, member.group_id == grp.id)
                          .where(grp.uuid == group_uuid)).scalar()
    return {"user": {"server_group_members": int(count)}}


def usages(context, project_id, user_id=None):
    """In-use counts for a project (or one user in it)."""
    scope = "user" if user_id else "project"
    used = {name: 0 for name in RESOURCES}
    used.update(count_instances(context, project_id, user_id)[scope])
    used.update(count_server_groups(context, project_id, user_id)[scope])
    return used


def _detail(limits, used):
    if is_noop():
        return {name: {"limit": UNLIMITED, "in_use": UNLIMITED,
                       "reserved": UNLIMITED} for name in RESOURCES}
    return {name: {"limit": limits[name], "in_use": used.get(name, 0),
                   "reserved": 0} for name in RESOURCES}


def get_project_quotas(context, project_id, usages_too=False):
    limits = project_limits(context, project_id)
    if not usages_too:
        return {name: {"limit": v} for name, v in limits.items()}
    used = {} if is_noop() else usages(context, project_id)
    return _detail(limits, used)


def get_user_quotas(context, project_id, user_id, usages_too=False):
    limits = user_limits(context, project_id, user_id)
    if not usages_too:
        return {name: {"limit": v} for name, v in limits.items()}
    used = {} if is_noop() else usages(context, project_id, user_id)
    return _detail(limits, used)


def get_settable_quotas(context, project_id, user_id=None):
    """``{resource: {"minimum", "maximum"}}`` a new limit must respect:
    at least what is in use; a user's at most its project's limit."""
    if user_id:
        used = usages(context, project_id, user_id)
        project = project_limits(context, project_id)
        return {name: {"minimum": used.get(name, 0),
                       "maximum": project[name]} for name in RESOURCES}
    used = usages(context, project_id)
    return {name: {"minimum": used.get(name, 0), "maximum": UNLIMITED}
            for name in RESOURCES}


# ---- storing limits ---------------------------------------------------

def _upsert(context, model, value, **key):
    with session.api_writer(context) as s:
        row = s.execute(sa.select(model).filter_by(**key)).scalars().first()
        if row is None:
            s.add(model(hard_limit=value, **key))
        else:
            row.hard_limit = value


def set_limit(context, project_id, resource, limit, user_id=None):
    if resource not in SETTABLE:
        return  # legacy resources are accepted and ignored
    if user_id:
        _upsert(context, api_models.ProjectUserQuota, limit,
                project_id=project_id, user_id=user_id, resource=resource)
    else:
        _upsert(context, api_models.Quota, limit, project_id=project_id,
                resource=resource)


def set_class_limit(context, class_name, resource, limit):
    if resource in SETTABLE:
        _upsert(context, api_models.QuotaClass, limit,
                class_name=class_name, resource=resource)


def destroy_all_by_project(context, project_id):
    with session.api_writer(context) as s:
        for model in (api_models.ProjectUserQuota, api_models.Quota):
            s.execute(sa.delete(model).where(model.project_id == project_id))


def destroy_all_by_project_and_user(context, project_id, user_id):
    pq = api_models.ProjectUserQuota
    with session.api_writer(context) as s:
        s.execute(sa.delete(pq).where(pq.project_id == project_id,
                                      pq.user_id == user_id))


# ---- checks ------------------------------------------------------------

def _over(limit, current, delta):
    return limit != UNLIMITED and current + delta > limit


def check_deltas(context, deltas, project_id, user_id=None,
                 group_uuid=None):
    """Raise OverQuota if adding ``deltas`` (``{resource: n}``) would pass
    the project's limits or, for ``user_id``, the user's.

    Counts are taken now (call again after creating, to re-check):
    instances/cores/ram across the cells, server groups, a user's key pairs
    and (with ``group_uuid``) a group's members.
    """
    if is_noop() or not deltas:
        return
    unknown = set(deltas) - set(SETTABLE)
    if unknown:
        raise exception.QuotaResourceUnknown(unknown=sorted(unknown))
    # Limits first (one light read): nothing limited, nothing to count
    # -- the counts are the expensive part (instances across the cells).
    plimits, ulimits = limits(context, project_id, user_id)
    if all(plimits[n] == UNLIMITED and ulimits[n] == UNLIMITED
           for n in deltas):
        return
    counts = {"project": {}, "user": {}}
    if set(deltas) & set(_CELL_COUNTED):
        _merge(counts, count_instances(context, project_id, user_id))
    if "server_groups" in deltas:
        _merge(counts, count_server_groups(context, project_id, user_id))
    if "key_pairs" in deltas:
        _merge(counts, count_key_pairs(context, user_id))
    if "server_group_members" in deltas:
        _merge(counts, count_group_members(context, group_uuid))
    overs, usages_seen = [], {}
    for name, delta in deltas.items():
        if name in counts["project"] and name not in _NOT_PROJECT_COUNTED:
            usages_seen[name] = counts["project"][name]
            if _over(plimits[name], counts["project"][name], delta):
                overs.append(name)
                continue
        if name in counts["user"] and (user_id or name in
                                       _NOT_PROJECT_COUNTED):
            usages_seen[name] = counts["user"][name]
            if _over(ulimits[name], counts["user"][name], delta):
                overs.append(name)
    if overs:
        raise exception.OverQuota(
            overs=sorted(overs), quotas={n: ulimits[n] for n in overs},
            usages={n: usages_seen.get(n, 0) for n in overs})


def _merge(counts, more):
    for scope, values in more.items():
        counts[scope].update(values)


def limit_check(context, project_id, **values):
    """Absolute limits (metadata_items, injected_files, ...): raise
    OverQuota when a value passes the project's limit."""
    if is_noop():
        return
    unknown = set(values) - set(SETTABLE)
    if unknown:
        raise exception.QuotaResourceUnknown(unknown=sorted(unknown))
    limits = project_limits(context, project_id)
    overs = sorted(n for n, v in values.items() if _over(limits[n], 0, v))
    if overs:
        raise exception.OverQuota(
            overs=overs, quotas={n: limits[n] for n in overs},
            usages={})
