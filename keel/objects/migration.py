"""Objects: Migration, MigrationList (the cell migrations table: moves,
resizes, evacuations)."""
import datetime

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

# Statuses after which a migration no longer holds resources.
FINISHED_STATUSES = ('confirmed', 'reverted', 'error', 'failed', 'completed',
                     'cancelled', 'done')


@base.KeelObjectRegistry.register
class Migration(base.KeelPersistentObject, base.KeelObject,
                base.KeelObjectDictCompat):
    VERSION = '1.8'

    fields = {
        'cross_cell_move': fields.BooleanField(default=False),
        'dest_compute': fields.StringField(nullable=True),
        'dest_compute_id': fields.IntegerField(nullable=True),
        'dest_host': fields.StringField(nullable=True),
        'dest_node': fields.StringField(nullable=True),
        'disk_processed': fields.IntegerField(nullable=True),
        'disk_remaining': fields.IntegerField(nullable=True),
        'disk_total': fields.IntegerField(nullable=True),
        'hidden': fields.BooleanField(default=False),
        'id': fields.IntegerField(),
        'instance_uuid': fields.StringField(nullable=True),
        'memory_processed': fields.IntegerField(nullable=True),
        'memory_remaining': fields.IntegerField(nullable=True),
        'memory_total': fields.IntegerField(nullable=True),
        'migration_type': fields.MigrationTypeField(),
        'new_instance_type_id': fields.IntegerField(nullable=True),
        'old_instance_type_id': fields.IntegerField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'source_compute': fields.StringField(nullable=True),
        'source_node': fields.StringField(nullable=True),
        'status': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
    }

    @staticmethod
    def _from_db_object(context, migration, row):
        h.copy_columns(migration, row, skip=("migration_type", "uuid"))
        if row.migration_type is None:
            # Old records: a flavor change means a resize.
            migration.migration_type = (
                "resize" if row.old_instance_type_id !=
                row.new_instance_type_id else "migration")
        else:
            migration.migration_type = row.migration_type
        migration.uuid = row.uuid or uuidutils.generate_uuid()
        migration.hidden = bool(row.hidden)
        migration.cross_cell_move = bool(row.cross_cell_move)
        migration._context = context
        migration.obj_reset_changes()
        return migration

    @property
    def instance(self):
        from keel import objects
        if not hasattr(self, "_cached_instance"):
            self._cached_instance = objects.Instance.get_by_uuid(
                self._context, self.instance_uuid)
        return self._cached_instance

    @instance.setter
    def instance(self, instance):
        self._cached_instance = instance

    @property
    def is_live_migration(self):
        return self.migration_type == "live-migration"

    @property
    def is_resize(self):
        return self.migration_type == "resize"

    @property
    def is_same_host_resize(self):
        return self.is_resize and self.source_node == self.dest_node

    @classmethod
    def _get_one(cls, context, not_found, *where):
        with h.cell_reader(context) as s:
            stmt = sa.select(models.Migration).where(*where).order_by(
                models.Migration.id.desc())
            row = s.execute(h.filter_deleted(stmt, models.Migration,
                                             context)).scalars().first()
            if row is None:
                raise not_found
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_id(cls, context, migration_id):
        return cls._get_one(
            context, exception.MigrationNotFound(migration_id=migration_id),
            models.Migration.id == migration_id)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, migration_uuid):
        return cls._get_one(
            context, exception.MigrationNotFound(migration_id=migration_uuid),
            models.Migration.uuid == migration_uuid)

    @base.remotable_classmethod
    def get_by_id_and_instance(cls, context, migration_id, instance_uuid):
        return cls._get_one(
            context, exception.MigrationNotFoundForInstance(
                migration_id=migration_id, instance_id=instance_uuid),
            models.Migration.id == migration_id,
            models.Migration.instance_uuid == instance_uuid)

    @base.remotable_classmethod
    def get_by_instance_and_status(cls, context, instance_uuid, status):
        return cls._get_one(
            context, exception.MigrationNotFoundByStatus(
                instance_id=instance_uuid, status=status),
            models.Migration.instance_uuid == instance_uuid,
            models.Migration.status == status)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = h.changes_for_db(self, models.Migration)
        values.setdefault("uuid", uuidutils.generate_uuid())
        with h.cell_writer(self._context) as s:
            row = models.Migration(**values)
            s.add(row)
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    @h.retry_on_deadlock
    def save(self):
        values = h.changes_for_db(self, models.Migration)
        with h.cell_writer(self._context) as s:
            row = s.get(models.Migration, self.id)
            if row is None or row.deleted:
                raise exception.MigrationNotFound(migration_id=self.id)
            for key, value in values.items():
                setattr(row, key, value)
            s.flush()
            self._from_db_object(self._context, self, row)


@base.KeelObjectRegistry.register
class MigrationList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.5'

    fields = {
        'objects': fields.ListOfObjectsField('Migration'),
    }

    @classmethod
    def _query(cls, context, *where, order=None):
        mig = models.Migration
        with h.cell_reader(context) as s:
            stmt = sa.select(mig).where(*where).order_by(
                *(order or (mig.created_at.desc(), mig.id.desc())))
            rows = s.execute(h.filter_deleted(stmt, mig,
                                              context)).scalars().all()
            return base.obj_make_list(context, cls(context), Migration,
                                      rows)

    @base.remotable_classmethod
    def get_unconfirmed_by_dest_compute(cls, context, confirm_window,
                                        dest_compute, use_slave=False):
        mig = models.Migration
        cutoff = timeutils.utcnow() - datetime.timedelta(
            seconds=confirm_window)
        return cls._query(context, mig.status == "finished",
                          mig.updated_at <= cutoff,
                          mig.dest_compute == dest_compute)

    @staticmethod
    def _on_node(host, node):
        mig = models.Migration
        return sa.or_(sa.and_(mig.source_compute == host,
                              mig.source_node == node),
                      sa.and_(mig.dest_compute == host,
                              mig.dest_node == node))

    @base.remotable_classmethod
    def get_in_progress_by_host_and_node(cls, context, host, node):
        return cls._query(context, cls._on_node(host, node),
                          models.Migration.status.not_in(FINISHED_STATUSES))

    @base.remotable_classmethod
    def get_in_progress_and_error(cls, context, host, node):
        ended = tuple(st for st in FINISHED_STATUSES if st != "error")
        return cls._query(context, cls._on_node(host, node),
                          models.Migration.status.not_in(ended))

    @base.remotable_classmethod
    def get_in_progress_by_instance(cls, context, instance_uuid,
                                    migration_type=None):
        mig = models.Migration
        where = [mig.instance_uuid == instance_uuid,
                 mig.status.not_in(FINISHED_STATUSES)]
        if migration_type is not None:
            where.append(mig.migration_type == migration_type)
        return cls._query(context, *where)

    @base.remotable_classmethod
    def get_by_filters(cls, context, filters, sort_keys=None, sort_dirs=None,
                       limit=None, marker=None):
        mig = models.Migration
        filters = dict(filters or {})
        where = []
        if "status" in filters:
            status = filters["status"]
            status = status if isinstance(status, (list, tuple)) else [status]
            where.append(mig.status.in_(status))
        if "host" in filters:
            where.append(sa.or_(mig.source_compute == filters["host"],
                                mig.dest_compute == filters["host"]))
        for key in ("source_compute", "instance_uuid", "migration_type",
                    "hidden", "user_id", "project_id", "uuid"):
            if key in filters:
                value = filters[key]
                col = getattr(mig, key)
                where.append(col.in_(value) if isinstance(
                    value, (list, tuple)) else col == value)
        if "changes-since" in filters:
            where.append(mig.updated_at >= filters["changes-since"])
        if "changes-before" in filters:
            where.append(mig.updated_at <= filters["changes-before"])
        keys = list(sort_keys or ["created_at", "id"])
        dirs = list(sort_dirs or ["desc"] * len(keys))
        if "id" not in keys:
            keys.append("id")
            dirs.append(dirs[0])
        with h.cell_reader(context) as s:
            marker_row = None
            if marker is not None:
                marker_row = s.execute(sa.select(mig).where(
                    mig.uuid == marker)).scalars().first()
                if marker_row is None:
                    raise exception.MarkerNotFound(marker=marker)
            stmt = h.filter_deleted(sa.select(mig).where(*where), mig,
                                    context)
            stmt = h.paginate(stmt, mig, keys, dirs, limit=limit,
                              marker_row=marker_row)
            rows = s.execute(stmt).scalars().all()
            return base.obj_make_list(context, cls(context), Migration,
                                      rows)
