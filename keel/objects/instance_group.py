"""Objects: InstanceGroup, InstanceGroupList (server groups, API database).

A group has one policy (``policies`` is the pre-2.64 list view of it) with
optional rules, and members (instance uuids). ``hosts`` is never stored: it
is read from the members' instances in their cells on request.
"""
import functools

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from keel import context as keel_context
from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

_LAZY = ("hosts",)


def _group_query(*where):
    grp = models.InstanceGroup
    return (sa.select(grp).where(*where)
            .options(orm.selectinload(grp._policies),
                     orm.selectinload(grp._members))
            .order_by(grp.id))


@functools.lru_cache(maxsize=None)
def _by_instance_statement():
    """The first (lowest id) group having the instance as a member, with
    its policy and members, as one Core SELECT built once: rows are the
    group's policies x members (one policy in Nova: one row per member).
    The ORM query with its two selectin loads was three statements and
    ~17% of a GET /servers/{id} (2.71+ shows the server's group)."""
    grp = models.InstanceGroup.__table__
    pol = models.InstanceGroupPolicy.__table__
    mem = models.InstanceGroupMember.__table__
    mine = sa.select(mem.c.group_id).where(
        mem.c.instance_uuid == sa.bindparam("instance_uuid"))
    return (sa.select(grp, pol.c.id.label("policy_row_id"),
                      pol.c.policy.label("policy_name"),
                      pol.c.rules.label("policy_rules"),
                      mem.c.instance_uuid.label("member_uuid"))
            .select_from(grp.outerjoin(pol, pol.c.group_id == grp.c.id)
                         .outerjoin(mem, mem.c.group_id == grp.c.id))
            .where(grp.c.id.in_(mine))
            .order_by(grp.c.id, pol.c.id, mem.c.id))


@base.KeelObjectRegistry.register
class InstanceGroup(base.KeelPersistentObject, base.KeelObject,
                    base.KeelObjectDictCompat):
    VERSION = '1.11'

    fields = {
        '_rules': fields.DictOfStringsField(),
        'hosts': fields.ListOfStringsField(nullable=True),
        'id': fields.IntegerField(),
        'members': fields.ListOfStringsField(nullable=True),
        'name': fields.StringField(nullable=True),
        'policies': fields.ListOfStringsField(nullable=True),
        'policy': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
    }

    @property
    def rules(self):
        return self._rules if self.obj_attr_is_set("_rules") else {}

    @staticmethod
    def _from_db_object(context, group, row):
        policy = row._policies[0] if row._policies else None
        return InstanceGroup._fill(
            context, group, row,
            (policy.policy, policy.rules) if policy is not None else None,
            [m.instance_uuid for m in row._members])

    @staticmethod
    def _fill(context, group, row, policy, members):
        """``policy``: the (policy, rules) columns of its policy row, or
        None when the group has none."""
        h.copy_columns(group, row, skip=("deleted", "deleted_at"))
        group.deleted = False
        group.deleted_at = None
        group.policy = policy[0] if policy else None
        group.policies = [policy[0]] if policy else []
        group._rules = jsonutils.loads(policy[1]) \
            if policy and policy[1] else {}
        group.members = members
        group._context = context
        group.obj_reset_changes()
        return group

    def obj_load_attr(self, attrname):
        if attrname not in _LAZY:
            raise exception.ObjectActionError(
                action="obj_load_attr",
                reason="attribute %s not lazy-loadable" % attrname)
        if not self._context:
            raise exception.OrphanedObjectError(method="obj_load_attr",
                                                objtype=self.obj_name())
        self.hosts = self.get_hosts()
        self.obj_reset_changes(["hosts"])

    @classmethod
    def _get_one(cls, context, not_found, *where):
        with h.api_reader(context) as s:
            row = s.execute(_group_query(*where)).scalars().first()
            if row is None:
                raise not_found
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._get_one(context,
                            exception.InstanceGroupNotFound(group_uuid=uuid),
                            models.InstanceGroup.uuid == uuid)

    @base.remotable_classmethod
    def get_by_name(cls, context, name):
        return cls._get_one(
            context, exception.InstanceGroupNotFound(group_uuid=name),
            models.InstanceGroup.name == name,
            models.InstanceGroup.project_id == context.project_id)

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        with h.api_reader(context) as s:
            rows = s.connection().execute(
                _by_instance_statement(),
                {"instance_uuid": instance_uuid}).all()
        if not rows:
            raise exception.InstanceGroupNotFound(group_uuid='')
        first = rows[0]
        # The first group's rows of its first policy: each member once.
        members = [r.member_uuid for r in rows
                   if r.id == first.id and
                   r.policy_row_id == first.policy_row_id and
                   r.member_uuid is not None]
        policy = None if first.policy_row_id is None else (
            first.policy_name, first.policy_rules)
        return cls._fill(context, cls(), h.RowValues(
            models.InstanceGroup, first._mapping), policy, members)

    @classmethod
    def get_by_hint(cls, context, hint):
        if uuidutils.is_uuid_like(hint):
            return cls.get_by_uuid(context, hint)
        return cls.get_by_name(context, hint)

    def _policy_row(self):
        policy = self.policy if self.obj_attr_is_set("policy") else None
        if policy is None and self.obj_attr_is_set("policies") and \
                self.policies:
            policy = self.policies[0]
        if policy is None:
            return None
        rules = self._rules if self.obj_attr_is_set("_rules") else None
        return models.InstanceGroupPolicy(
            policy=policy, rules=jsonutils.dumps(rules) if rules else None)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = h.changes_for_db(self, models.InstanceGroup,
                                  skip=("deleted", "deleted_at"))
        values.setdefault("uuid", uuidutils.generate_uuid())
        with h.translate_duplicates(lambda e: exception.InstanceGroupIdExists(
                group_uuid=values["uuid"])):
            with h.api_writer(self._context) as s:
                row = models.InstanceGroup(**values)
                policy = self._policy_row()
                row._policies = [policy] if policy is not None else []
                members = self.members if self.obj_attr_is_set(
                    "members") and self.members else []
                row._members = [models.InstanceGroupMember(instance_uuid=m)
                                for m in members]
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        changes = self.obj_what_changed()
        values = h.changes_for_db(self, models.InstanceGroup,
                                  skip=("deleted", "deleted_at", "uuid"))
        with h.api_writer(self._context) as s:
            row = s.execute(_group_query(
                models.InstanceGroup.uuid == self.uuid)).scalars().first()
            if row is None:
                raise exception.InstanceGroupNotFound(group_uuid=self.uuid)
            for key, value in values.items():
                setattr(row, key, value)
            if changes & {"policy", "policies", "_rules"}:
                policy = self._policy_row()
                row._policies = [policy] if policy is not None else []
            if "members" in changes:
                row._members = [models.InstanceGroupMember(instance_uuid=m)
                                for m in (self.members or [])]
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def refresh(self):
        fresh = self.get_by_uuid(self._context, self.uuid)
        for name in self.fields:
            if fresh.obj_attr_is_set(name):
                setattr(self, name, getattr(fresh, name))
        self.obj_reset_changes()

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            row = s.execute(_group_query(
                models.InstanceGroup.uuid == self.uuid)).scalars().first()
            if row is None:
                raise exception.InstanceGroupNotFound(group_uuid=self.uuid)
            s.delete(row)

    @base.remotable_classmethod
    def add_members(cls, context, group_uuid, instance_uuids):
        """Add members not already in the group; returns those added."""
        with h.api_writer(context) as s:
            row = s.execute(_group_query(
                models.InstanceGroup.uuid == group_uuid)).scalars().first()
            if row is None:
                raise exception.InstanceGroupNotFound(group_uuid=group_uuid)
            have = {m.instance_uuid for m in row._members}
            added = [u for u in instance_uuids if u not in have]
            for uuid in added:
                row._members.append(
                    models.InstanceGroupMember(instance_uuid=uuid))
        return added

    def _member_instances(self, exclude=None):
        """The members' live instances, read in each member's cell."""
        from keel import objects

        uuids = [m for m in (self.members or []) if m not in (exclude or ())]
        if not uuids:
            return []
        mappings = objects.InstanceMappingList.get_by_instance_uuids(
            self._context, uuids)
        by_cell = {}
        for im in mappings:
            if im.cell_mapping is not None:
                by_cell.setdefault(im.cell_mapping.uuid,
                                   (im.cell_mapping, []))[1].append(
                                       im.instance_uuid)
        found = []
        for cell, cell_uuids in by_cell.values():
            with keel_context.target_cell(self._context, cell) as cctxt:
                found.extend(objects.InstanceList.get_by_filters(
                    cctxt, {"uuid": cell_uuids, "deleted": False}))
        return found

    @base.remotable
    def get_hosts(self, exclude=None):
        """Distinct hosts of the members (minus ``exclude`` uuids)."""
        hosts = []
        for inst in self._member_instances(exclude):
            if inst.host and inst.host not in hosts:
                hosts.append(inst.host)
        return hosts

    @base.remotable
    def count_members_by_user(self, user_id):
        from keel import objects

        mappings = objects.InstanceMappingList.get_by_instance_uuids(
            self._context, self.members or [])
        return sum(1 for im in mappings
                   if im.obj_attr_is_set("user_id") and
                   im.user_id == user_id and not im.queued_for_delete)


@base.KeelObjectRegistry.register
class InstanceGroupList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.8'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceGroup'),
    }

    @classmethod
    def _query(cls, context, *where):
        with h.api_reader(context) as s:
            rows = s.execute(_group_query(*where)).scalars().all()
            return base.obj_make_list(context, cls(context), InstanceGroup,
                                      rows)

    @base.remotable_classmethod
    def get_by_project_id(cls, context, project_id):
        return cls._query(context,
                          models.InstanceGroup.project_id == project_id)

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._query(context)

    @base.remotable_classmethod
    def get_counts(cls, context, project_id, user_id=None):
        grp = models.InstanceGroup
        with h.api_reader(context) as s:
            counts = {"project": {"server_groups": s.execute(
                sa.select(sa.func.count()).select_from(grp)
                .where(grp.project_id == project_id)).scalar()}}
            if user_id:
                counts["user"] = {"server_groups": s.execute(
                    sa.select(sa.func.count()).select_from(grp)
                    .where(grp.project_id == project_id,
                           grp.user_id == user_id)).scalar()}
        return counts
