"""Objects: InstanceList (queries over the instances table; the Instance
object itself is in keel.objects.instance)."""
import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields
from keel.objects import instance_db
from keel.objects.instance import Instance
from keel.objects.instance import _expand

@base.KeelObjectRegistry.register
class InstanceList(base.ObjectListBase, base.KeelObject):
    VERSION = '2.6'

    fields = {
        'objects': fields.ListOfObjectsField('Instance'),
    }

    @classmethod
    def _from_rows(cls, context, rows, expected_attrs):
        from keel.objects import instance_fault

        result = base.obj_make_list(context, cls(context), Instance, rows,
                                    expected_attrs=expected_attrs)
        if "fault" in (expected_attrs or ()):
            faults = instance_fault.InstanceFaultList \
                .get_latest_by_instance_uuids(
                    context, [i.uuid for i in result])
            by_uuid = {f.instance_uuid: f for f in faults}
            for inst in result:
                inst.fault = by_uuid.get(inst.uuid)
                inst.obj_reset_changes(["fault"])
        return result

    @classmethod
    def _select(cls, context, filters, expected_attrs):
        """The filtered query of get_by_filters (and of the API's list):
        a context that is not admin sees its project's instances only."""
        stmt = sa.select(models.Instance).options(
            *instance_db.load_options(_expand(expected_attrs)))
        filters = instance_db.restrict_to_requester(context, filters)
        return instance_db.apply_filters(stmt, context, filters)

    @base.remotable_classmethod
    def get_by_filters(cls, context, filters, sort_key='created_at',
                       sort_dir='desc', limit=None, marker=None,
                       expected_attrs=None, use_slave=False,
                       sort_keys=None, sort_dirs=None):
        """One query (plus one per loaded relationship) for the page."""
        keys = list(sort_keys or [sort_key])
        dirs = list(sort_dirs or [sort_dir] * len(keys))
        dirs += [dirs[-1] if dirs else "desc"] * (len(keys) - len(dirs))
        for unique in ("created_at", "id"):
            if unique not in keys:
                keys.append(unique)
                dirs.append(dirs[0] if dirs else "desc")
        with h.cell_reader(context) as s:
            marker_row = None
            if marker is not None:
                marker_row = s.execute(sa.select(models.Instance).where(
                    models.Instance.uuid == marker)).scalars().first()
                if marker_row is None:
                    raise exception.MarkerNotFound(marker=marker)
            stmt = cls._select(context, filters, expected_attrs)
            stmt = h.paginate(stmt, models.Instance, keys, dirs,
                              limit=limit, marker_row=marker_row)
            rows = s.execute(stmt).scalars().all()
            return cls._from_rows(context, rows, expected_attrs)

    # By host: every project's instances whatever the context (Nova's
    # instance_get_all_by_host[_and_node] query without project_only).
    @base.remotable_classmethod
    def get_by_host(cls, context, host, expected_attrs=None, use_slave=False):
        return cls._by_where(context, models.Instance.host == host,
                             expected_attrs=expected_attrs)

    @base.remotable_classmethod
    def get_by_host_and_node(cls, context, host, node, expected_attrs=None):
        return cls._by_where(context, models.Instance.host == host,
                             models.Instance.node == node,
                             expected_attrs=expected_attrs)

    @base.remotable_classmethod
    def get_uuids_by_host(cls, context, host):
        with h.cell_reader(context) as s:
            return list(s.execute(sa.select(models.Instance.uuid).where(
                models.Instance.host == host,
                models.Instance.deleted == 0)).scalars())

    @base.remotable_classmethod
    def get_uuids_by_host_and_node(cls, context, host, node):
        with h.cell_reader(context) as s:
            return list(s.execute(sa.select(models.Instance.uuid).where(
                models.Instance.host == host, models.Instance.node == node,
                models.Instance.deleted == 0)).scalars())

    @base.remotable_classmethod
    def get_uuids_by_hosts(cls, context, hosts):
        """{host: [instance uuids]} for the given hosts (one query);
        ``hosts`` None: every host of the cell (cheaper than a long IN
        list when the caller wants most of them)."""
        inst = models.Instance
        by_host = {}
        with h.cell_reader(context) as s:
            if hosts is None:
                query = sa.select(inst.host, inst.uuid).where(
                    inst.host.is_not(None), inst.deleted == 0)
                params = {}
            else:
                # An expanding parameter: the statement compiles once and
                # is cached, not once per call with a literal per host.
                query = sa.select(inst.host, inst.uuid).where(
                    inst.host.in_(sa.bindparam("hosts", expanding=True)),
                    inst.deleted == 0)
                params = {"hosts": list(hosts)}
            for host, uuid in s.execute(query, params):
                by_host.setdefault(host, []).append(uuid)
        return by_host

    @base.remotable_classmethod
    def get_by_host_and_not_type(cls, context, host, type_id=None):
        return cls._by_where(context, models.Instance.host == host,
                             models.Instance.instance_type_id != type_id)

    @base.remotable_classmethod
    def get_hung_in_rebooting(cls, context, reboot_window,
                              expected_attrs=None):
        """Instances stuck in task_state 'rebooting' longer than
        ``reboot_window`` seconds."""
        cutoff = timeutils.utcnow() - datetime.timedelta(
            seconds=reboot_window)
        return cls._by_where(context,
                             models.Instance.task_state == "rebooting",
                             models.Instance.updated_at <= cutoff,
                             expected_attrs=expected_attrs)

    @base.remotable_classmethod
    def get_count_by_vm_state(cls, context, project_id, user_id, vm_state):
        inst = models.Instance
        with h.cell_reader(context) as s:
            return s.execute(sa.select(sa.func.count()).select_from(inst)
                             .where(inst.project_id == project_id,
                                    inst.user_id == user_id,
                                    inst.vm_state == vm_state,
                                    inst.deleted == 0)).scalar()

    @base.remotable_classmethod
    def _get_active_by_window_joined(cls, context, begin, end=None,
                                     project_id=None, host=None,
                                     expected_attrs=None, use_slave=False,
                                     limit=None, marker=None):
        """Instances alive at some point of [begin, end] (usage audit)."""
        inst = models.Instance
        if isinstance(begin, str):
            begin = timeutils.parse_isotime(begin).replace(tzinfo=None)
        if isinstance(end, str):
            end = timeutils.parse_isotime(end).replace(tzinfo=None)
        where = [sa.or_(inst.terminated_at.is_(None),
                        inst.terminated_at > begin)]
        if end is not None:
            where.append(inst.launched_at < end)
        if project_id:
            where.append(inst.project_id == project_id)
        if host:
            where.append(inst.host == host)
        return cls._by_where(context, *where, expected_attrs=expected_attrs,
                             read_deleted="yes")

    @classmethod
    def get_active_by_window_joined(cls, context, begin, end=None,
                                    project_id=None, host=None,
                                    expected_attrs=None, use_slave=False,
                                    limit=None, marker=None):
        # Datetimes travel as ISO strings through the remotable call.
        return cls._get_active_by_window_joined(
            context, begin.isoformat(), end and end.isoformat(),
            project_id=project_id, host=host,
            expected_attrs=expected_attrs)

    @classmethod
    def _by_where(cls, context, *where, expected_attrs=None,
                  read_deleted=None):
        with h.cell_reader(context) as s:
            stmt = sa.select(models.Instance).where(*where).options(
                *instance_db.load_options(_expand(expected_attrs)))
            stmt = h.filter_deleted(stmt, models.Instance, context,
                                    read_deleted=read_deleted)
            rows = s.execute(stmt.order_by(models.Instance.id)) \
                .scalars().all()
            return cls._from_rows(context, rows, expected_attrs)

    @base.remotable_classmethod
    def get_all(cls, context, expected_attrs=None):
        return cls.get_by_filters(context, {}, sort_key="id",
                                  sort_dir="asc",
                                  expected_attrs=expected_attrs)

    @base.remotable_classmethod
    def get_counts(cls, context, project_id, user_id=None):
        """Live instances, cores and ram of a project (and user)."""
        inst = models.Instance

        def _count(*where):
            with h.cell_reader(context) as s:
                n, cores, ram = s.execute(sa.select(
                    sa.func.count(inst.id),
                    sa.func.coalesce(sa.func.sum(inst.vcpus), 0),
                    sa.func.coalesce(sa.func.sum(inst.memory_mb), 0))
                    .where(inst.deleted == 0, *where)).one()
            return {"instances": n, "cores": int(cores), "ram": int(ram)}

        counts = {"project": _count(inst.project_id == project_id)}
        if user_id:
            counts["user"] = _count(inst.project_id == project_id,
                                    inst.user_id == user_id)
        return counts
