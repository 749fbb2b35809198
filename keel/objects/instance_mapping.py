"""Objects: InstanceMapping, InstanceMappingList (which cell holds an
instance; cell_mapping is None while the instance is still building)."""
from oslo_utils import timeutils
import sqlalchemy as sa
from sqlalchemy import orm

from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import cell_mapping
from keel.objects import db_helpers as h
from keel.objects import fields


@base.KeelObjectRegistry.register
class InstanceMapping(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.2'

    fields = {
        'cell_mapping': fields.ObjectField('CellMapping', nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'queued_for_delete': fields.BooleanField(default=False),
        'user_id': fields.StringField(),
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        version = tuple(int(x) for x in target_version.split("."))
        if version < (1, 2):
            primitive.pop("user_id", None)
        if version < (1, 1):
            primitive.pop("queued_for_delete", None)

    @staticmethod
    def _from_db_object(context, mapping, row):
        h.copy_columns(mapping, row, skip=("user_id", "queued_for_delete"))
        # Old records may have NULL here; Nova reads those as False.
        mapping.queued_for_delete = bool(row.queued_for_delete)
        if row.user_id is not None:
            mapping.user_id = row.user_id
        cell = None
        if row.cell_mapping is not None:
            cell = cell_mapping.CellMapping._from_db_object(
                context, cell_mapping.CellMapping(), row.cell_mapping)
        mapping.cell_mapping = cell
        mapping._context = context
        mapping.obj_reset_changes()
        return mapping

    def _values_for_db(self):
        values = h.changes_for_db(self, models.InstanceMapping)
        if "cell_mapping" in self.obj_what_changed():
            cell = self.cell_mapping
            values["cell_id"] = cell.id if cell is not None else None
        return values

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        with h.api_reader(context) as s:
            row = s.execute(
                sa.select(models.InstanceMapping)
                .filter_by(instance_uuid=instance_uuid)
                .options(orm.joinedload(models.InstanceMapping.cell_mapping))
            ).scalars().first()
            if row is None:
                raise exception.InstanceMappingNotFound(uuid=instance_uuid)
            return cls._from_db_object(context, cls(), row)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = self._values_for_db()
        with h.translate_duplicates(
                lambda e: exception.ObjectActionError(
                    action="create",
                    reason="instance %s already mapped" %
                    self.instance_uuid)):
            with h.api_writer(self._context) as s:
                row = models.InstanceMapping(**values)
                s.add(row)
                s.flush()
                s.refresh(row)
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = self._values_for_db()
        if self.obj_attr_is_set("id") and self.obj_attr_is_set("created_at"):
            # A loaded mapping (the conductor's commit point): one UPDATE,
            # the object already holds the rest of the row.
            values["updated_at"] = timeutils.utcnow()
            im = models.InstanceMapping
            with h.api_writer(self._context) as s:
                done = s.execute(
                    sa.update(im).where(im.instance_uuid == self.instance_uuid)
                    .values(**values)
                    .execution_options(synchronize_session=False)).rowcount
            if not done:
                raise exception.InstanceMappingNotFound(
                    uuid=self.instance_uuid)
            self.updated_at = values["updated_at"]
            self.obj_reset_changes(recursive=True)
            return
        with h.api_writer(self._context) as s:
            row = s.execute(sa.select(models.InstanceMapping).filter_by(
                instance_uuid=self.instance_uuid)).scalars().first()
            if row is None:
                raise exception.InstanceMappingNotFound(
                    uuid=self.instance_uuid)
            for key, value in values.items():
                setattr(row, key, value)
            s.flush()
            s.refresh(row)
            self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            deleted = s.execute(sa.delete(models.InstanceMapping).filter_by(
                instance_uuid=self.instance_uuid)).rowcount
            if not deleted:
                raise exception.InstanceMappingNotFound(
                    uuid=self.instance_uuid)


@base.KeelObjectRegistry.register
class InstanceMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceMapping'),
    }

    @classmethod
    def _query(cls, context, *where):
        im = models.InstanceMapping
        with h.api_reader(context) as s:
            rows = s.execute(sa.select(im).where(*where)
                             .options(orm.joinedload(im.cell_mapping))
                             .order_by(im.id)).scalars().all()
            return base.obj_make_list(context, cls(context),
                                      InstanceMapping, rows)

    @base.remotable_classmethod
    def get_by_project_id(cls, context, project_id):
        return cls._query(context,
                          models.InstanceMapping.project_id == project_id)

    @base.remotable_classmethod
    def get_by_cell_id(cls, context, cell_id):
        return cls._query(context, models.InstanceMapping.cell_id == cell_id)

    @base.remotable_classmethod
    def get_by_instance_uuids(cls, context, uuids):
        return cls._query(context,
                          models.InstanceMapping.instance_uuid.in_(uuids))

    @base.remotable_classmethod
    def get_counts(cls, context, project_id, user_id=None):
        """{'project': {'instances': n}[, 'user': {'instances': m}]} of
        the mappings not queued for delete, as Nova's quota counting."""
        # One statement for both scopes: the project's rows are read once
        # and the quota check (and its re-check) pay one round trip, not two.
        im = models.InstanceMapping
        live = sa.or_(im.queued_for_delete.is_(None),
                      im.queued_for_delete == sa.false())
        columns = [sa.func.count()]
        if user_id:
            columns.append(sa.func.coalesce(sa.func.sum(sa.case(
                (im.user_id == user_id, 1), else_=0)), 0))
        with h.api_reader(context) as s:
            row = s.execute(sa.select(*columns).select_from(im)
                            .where(im.project_id == project_id, live)).one()
        counts = {"project": {"instances": row[0]}}
        if user_id:
            counts["user"] = {"instances": int(row[1])}
        return counts

    @classmethod
    def destroy_bulk_by_instance_uuids(cls, context, uuids):
        with h.api_writer(context) as s:
            return s.execute(sa.delete(models.InstanceMapping).where(
                models.InstanceMapping.instance_uuid.in_(uuids))).rowcount
