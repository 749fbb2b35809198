"""Objects: Aggregate, AggregateList (host aggregates, API database)."""
from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy import orm

from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

AZ_KEY = "availability_zone"


def _agg_query(*where):
    agg = models.Aggregate
    return (sa.select(agg).where(*where)
            .options(orm.selectinload(agg._hosts),
                     orm.selectinload(agg._metadata))
            .order_by(agg.id))


@base.KeelObjectRegistry.register
class Aggregate(base.KeelPersistentObject, base.KeelObject,
                base.KeelObjectDictCompat):
    VERSION = '1.3'

    fields = {
        'hosts': fields.ListOfStringsField(nullable=True),
        'id': fields.IntegerField(),
        'metadata': fields.DictOfStringsField(nullable=True),
        'name': fields.StringField(),
        'uuid': fields.UUIDField(),
    }

    obj_extra_fields = ['availability_zone']

    @property
    def availability_zone(self):
        return (self.metadata or {}).get(AZ_KEY)

    @staticmethod
    def _from_db_object(context, aggregate, row):
        h.copy_columns(aggregate, row, skip=("deleted", "deleted_at"))
        aggregate.deleted = False
        aggregate.deleted_at = None
        aggregate.hosts = [x.host for x in row._hosts]
        aggregate.metadata = {m.key: m.value for m in row._metadata}
        aggregate._context = context
        aggregate.obj_reset_changes()
        return aggregate

    @classmethod
    def _get_one(cls, context, not_found, *where):
        with h.api_reader(context) as s:
            row = s.execute(_agg_query(*where)).scalars().first()
            if row is None:
                raise not_found
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_id(cls, context, aggregate_id):
        return cls._get_one(
            context, exception.AggregateNotFound(aggregate_id=aggregate_id),
            models.Aggregate.id == aggregate_id)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, aggregate_uuid):
        return cls._get_one(
            context,
            exception.AggregateNotFound(aggregate_id=aggregate_uuid),
            models.Aggregate.uuid == aggregate_uuid)

    def _load_row(self, session):
        row = session.execute(_agg_query(
            models.Aggregate.id == self.id)).scalars().first()
        if row is None:
            raise exception.AggregateNotFound(aggregate_id=self.id)
        return row

    @base.remotable
    def create(self):
        h.check_not_created(self)
        if "hosts" in self.obj_what_changed():
            raise exception.ObjectActionError(action="create",
                                              reason="hosts are set")
        values = h.changes_for_db(self, models.Aggregate,
                                  skip=("deleted", "deleted_at"))
        values.setdefault("uuid", uuidutils.generate_uuid())
        metadata = self.metadata if self.obj_attr_is_set("metadata") else {}
        with h.translate_duplicates(lambda e: exception.AggregateNameExists(
                aggregate_name=self.name)):
            with h.api_writer(self._context) as s:
                row = models.Aggregate(**values)
                row._metadata = [models.AggregateMetadata(key=k, value=v)
                                 for k, v in (metadata or {}).items()]
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        changes = self.obj_what_changed()
        if "hosts" in changes:
            raise exception.ObjectActionError(action="save",
                                              reason="hosts are changed")
        values = h.changes_for_db(self, models.Aggregate,
                                  skip=("deleted", "deleted_at"))
        with h.translate_duplicates(lambda e: exception.AggregateNameExists(
                aggregate_name=self.name)):
            with h.api_writer(self._context) as s:
                row = self._load_row(s)
                for key, value in values.items():
                    setattr(row, key, value)
                if "metadata" in changes:
                    wanted = self.metadata or {}
                    row._metadata = [m for m in row._metadata
                                     if m.key in wanted]
                    have = {m.key: m for m in row._metadata}
                    for key, value in wanted.items():
                        if key in have:
                            have[key].value = value
                        else:
                            row._metadata.append(models.AggregateMetadata(
                                key=key, value=value))
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def update_metadata(self, updates):
        """Set keys; a key whose value is None is removed."""
        with h.api_writer(self._context) as s:
            row = self._load_row(s)
            have = {m.key: m for m in row._metadata}
            for key, value in updates.items():
                if value is None:
                    if key in have:
                        row._metadata.remove(have[key])
                elif key in have:
                    have[key].value = value
                else:
                    row._metadata.append(models.AggregateMetadata(
                        key=key, value=value))
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            s.delete(self._load_row(s))

    @base.remotable
    def add_host(self, host):
        with h.api_writer(self._context) as s:
            row = self._load_row(s)
            if host in [x.host for x in row._hosts]:
                raise exception.AggregateHostExists(aggregate_id=self.id,
                                                    host=host)
            row._hosts.append(models.AggregateHost(host=host))
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def delete_host(self, host):
        with h.api_writer(self._context) as s:
            row = self._load_row(s)
            match = [x for x in row._hosts if x.host == host]
            if not match:
                raise exception.AggregateHostNotFound(aggregate_id=self.id,
                                                      host=host)
            row._hosts.remove(match[0])
            s.flush()
            self._from_db_object(self._context, self, row)


@base.KeelObjectRegistry.register
class AggregateList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('Aggregate'),
    }

    @classmethod
    def _query(cls, context, *where):
        with h.api_reader(context) as s:
            rows = s.execute(_agg_query(*where)).scalars().all()
            return base.obj_make_list(context, cls(context), Aggregate, rows)

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._query(context)

    @base.remotable_classmethod
    def get_by_host(cls, context, host, key=None):
        agg = models.Aggregate
        where = [agg.id.in_(sa.select(models.AggregateHost.aggregate_id)
                            .where(models.AggregateHost.host == host))]
        if key is not None:
            where.append(agg.id.in_(
                sa.select(models.AggregateMetadata.aggregate_id)
                .where(models.AggregateMetadata.key == key)))
        return cls._query(context, *where)

    @base.remotable_classmethod
    def get_by_metadata_key(cls, context, key, hosts=None):
        result = cls._query(context, models.Aggregate.id.in_(
            sa.select(models.AggregateMetadata.aggregate_id)
            .where(models.AggregateMetadata.key == key)))
        if hosts is not None:
            result.objects = [a for a in result
                              if set(a.hosts) & set(hosts)]
        return result

    @base.remotable_classmethod
    def get_by_metadata(cls, context, key=None, value=None):
        meta = models.AggregateMetadata
        cond = []
        if key is not None:
            cond.append(meta.key == key)
        if value is not None:
            cond.append(meta.value == value)
        return cls._query(context, models.Aggregate.id.in_(
            sa.select(meta.aggregate_id).where(*cond)))
