"""Objects: InstanceInfoCache (an instance's cached network_info)."""
import functools

from oslo_utils import timeutils
import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields


@functools.lru_cache(maxsize=None)
def _update_statement():
    """The cache's UPDATE (every instance save with new network info and
    every delete), a Core statement built once rather than an ORM bulk
    update built and cache-keyed each time."""
    table = models.InstanceInfoCache.__table__
    return (sa.update(table)
            .where(table.c.instance_uuid == sa.bindparam("w_uuid"))
            .values({table.c.network_info: sa.bindparam("network_info"),
                     table.c.updated_at: sa.bindparam("updated_at"),
                     table.c.deleted: 0, table.c.deleted_at: None}))


@functools.lru_cache(maxsize=None)
def _select_statement():
    """The instance's cache row, deleted or not."""
    table = models.InstanceInfoCache.__table__
    return sa.select(table).where(
        table.c.instance_uuid == sa.bindparam("w_uuid"))


@base.KeelObjectRegistry.register
class InstanceInfoCache(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.5'

    fields = {
        'instance_uuid': fields.UUIDField(),
        'network_info': fields.NetworkModelField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, cache, row):
        cache.instance_uuid = row.instance_uuid
        cache.network_info = row.network_info or "[]"
        for name in ("created_at", "updated_at", "deleted_at"):
            setattr(cache, name, getattr(row, name))
        cache.deleted = bool(row.deleted)
        cache._context = context
        cache.obj_reset_changes()
        return cache

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        with h.cell_reader(context) as s:
            row = s.execute(sa.select(models.InstanceInfoCache).where(
                models.InstanceInfoCache.instance_uuid == instance_uuid,
                models.InstanceInfoCache.deleted == 0)).scalars().first()
            if row is None:
                raise exception.InstanceInfoCacheNotFound(
                    instance_uuid=instance_uuid)
            return cls._from_db_object(context, cls(), row)

    def _save_in_session(self, session):
        """Write network_info in the caller's transaction (upsert)."""
        if "network_info" not in self.obj_what_changed():
            return
        blob = None
        if self.network_info is not None:
            blob = fields.NetworkModel.to_primitive(self, "network_info",
                                                    self.network_info)
        cache = models.InstanceInfoCache
        if self.obj_attr_is_set("created_at"):
            # A cache loaded from its row (every instance has one from its
            # create): one UPDATE, and the object knows all it would read.
            now = timeutils.utcnow()
            done = session.connection().execute(_update_statement(), {
                "w_uuid": self.instance_uuid, "network_info": blob,
                "updated_at": now}).rowcount
            if done:
                self.network_info = blob or "[]"
                self.updated_at = now
                self.deleted = False
                self.deleted_at = None
                return
        # A cache object not read from its row (the compute sends one it
        # made): the row, deleted or not, is read and written with Core
        # statements built once, or made if there is none.
        found = session.connection().execute(
            _select_statement(), {"w_uuid": self.instance_uuid}).first()
        if found is None:
            row = h.insert_row(session, cache, {
                "instance_uuid": self.instance_uuid, "network_info": blob})
        else:
            row = h.update_row(
                session, h.RowValues(cache, found._mapping),
                {"network_info": blob, "deleted": 0, "deleted_at": None})
        self._from_db_object(self._context, self, row)

    @base.remotable
    @h.retry_on_deadlock
    def save(self, update_cells=True):
        with h.cell_core_writer(self._context) as s:
            self._save_in_session(s)
        self.obj_reset_changes()

    @base.remotable
    def delete(self):
        with h.cell_writer(self._context) as s:
            s.execute(sa.update(models.InstanceInfoCache)
                      .where(models.InstanceInfoCache.instance_uuid ==
                             self.instance_uuid,
                             models.InstanceInfoCache.deleted == 0)
                      .values(h.soft_delete_values(models.InstanceInfoCache))
                      .execution_options(synchronize_session=False))

    @base.remotable
    def refresh(self):
        fresh = self.get_by_instance_uuid(self._context, self.instance_uuid)
        self.network_info = fresh.network_info
        self.obj_reset_changes()
