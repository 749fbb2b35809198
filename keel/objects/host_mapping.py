"""Objects: HostMapping, HostMappingList (which cell a compute host is in)."""
import sqlalchemy as sa
from sqlalchemy import orm

from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import cell_mapping
from keel.objects import db_helpers as h
from keel.objects import fields


@base.KeelObjectRegistry.register
class HostMapping(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'cell_mapping': fields.ObjectField('CellMapping'),
        'host': fields.StringField(),
        'id': fields.IntegerField(),
    }

    @staticmethod
    def _from_db_object(context, mapping, row):
        h.copy_columns(mapping, row)
        mapping.cell_mapping = cell_mapping.CellMapping._from_db_object(
            context, cell_mapping.CellMapping(), row.cell_mapping)
        mapping._context = context
        mapping.obj_reset_changes()
        return mapping

    def _values_for_db(self):
        values = h.changes_for_db(self, models.HostMapping)
        if "cell_mapping" in self.obj_what_changed():
            values["cell_id"] = self.cell_mapping.id
        return values

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        with h.api_reader(context) as s:
            row = s.execute(
                sa.select(models.HostMapping).filter_by(host=host)
                .options(orm.joinedload(models.HostMapping.cell_mapping))
            ).scalars().first()
            if row is None:
                raise exception.HostMappingNotFound(name=host)
            return cls._from_db_object(context, cls(), row)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = self._values_for_db()
        with h.translate_duplicates(
                lambda e: exception.HostMappingExists(name=self.host)):
            with h.api_writer(self._context) as s:
                row = models.HostMapping(**values)
                s.add(row)
                s.flush()
                s.refresh(row)
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = self._values_for_db()
        with h.api_writer(self._context) as s:
            row = s.get(models.HostMapping, self.id)
            if row is None:
                raise exception.HostMappingNotFound(name=self.host)
            for key, value in values.items():
                setattr(row, key, value)
            s.flush()
            s.refresh(row)
            self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            deleted = s.execute(sa.delete(models.HostMapping)
                                .filter_by(id=self.id)).rowcount
            if not deleted:
                raise exception.HostMappingNotFound(name=self.host)


@base.KeelObjectRegistry.register
class HostMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('HostMapping'),
    }

    @classmethod
    def _query(cls, context, *where):
        with h.api_reader(context) as s:
            rows = s.execute(
                sa.select(models.HostMapping).where(*where)
                .options(orm.joinedload(models.HostMapping.cell_mapping))
                .order_by(models.HostMapping.id)).scalars().all()
            return base.obj_make_list(context, cls(context), HostMapping,
                                      rows)

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._query(context)

    @base.remotable_classmethod
    def get_by_cell_id(cls, context, cell_id):
        return cls._query(context, models.HostMapping.cell_id == cell_id)
