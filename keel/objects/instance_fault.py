"""Objects: InstanceFault, InstanceFaultList (errors recorded against an
instance; the newest one is what the API shows as the server's fault)."""
import sqlalchemy as sa

from keel.db.cell import models
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

# The message column is VARCHAR(255), as Nova truncates.
_MESSAGE_LEN = 255


def _newest_first(stmt):
    return stmt.order_by(models.InstanceFault.created_at.desc(),
                         models.InstanceFault.id.desc())


@base.KeelObjectRegistry.register
class InstanceFault(base.KeelPersistentObject, base.KeelObject,
                    base.KeelObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'code': fields.IntegerField(),
        'details': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'message': fields.StringField(nullable=True),
    }

    _from_db_object = staticmethod(h.simple_from_db)

    @base.remotable_classmethod
    def get_latest_for_instance(cls, context, instance_uuid):
        """The newest fault of the instance, or None."""
        faults = InstanceFaultList.get_latest_by_instance_uuids(
            context, [instance_uuid])
        return faults[0] if faults else None

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = h.changes_for_db(self, models.InstanceFault)
        if values.get("message"):
            values["message"] = values["message"][:_MESSAGE_LEN]
        # A Core INSERT built once (a failed build or delete records one).
        with h.cell_core_writer(self._context) as s:
            row = h.insert_row(s, models.InstanceFault, values)
            self._from_db_object(self._context, self, row)


@base.KeelObjectRegistry.register
class InstanceFaultList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.2'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceFault'),
    }

    @base.remotable_classmethod
    def get_by_instance_uuids(cls, context, instance_uuids):
        """Every fault of the instances, newest first."""
        if not instance_uuids:
            return cls(context, objects=[])
        with h.cell_reader(context) as s:
            stmt = sa.select(models.InstanceFault).where(
                models.InstanceFault.instance_uuid.in_(instance_uuids),
                models.InstanceFault.deleted == 0)
            rows = s.execute(_newest_first(stmt)).scalars().all()
            return base.obj_make_list(context, cls(context), InstanceFault,
                                      rows)

    @base.remotable_classmethod
    def get_latest_by_instance_uuids(cls, context, instance_uuids):
        """The newest fault of each instance (one query)."""
        if not instance_uuids:
            return cls(context, objects=[])
        fault = models.InstanceFault
        newest = (sa.select(fault.instance_uuid,
                            sa.func.max(fault.id).label("max_id"))
                  .where(fault.instance_uuid.in_(instance_uuids),
                         fault.deleted == 0)
                  .group_by(fault.instance_uuid).subquery())
        with h.cell_reader(context) as s:
            stmt = sa.select(fault).join(newest, fault.id == newest.c.max_id)
            rows = s.execute(_newest_first(stmt)).scalars().all()
            return base.obj_make_list(context, cls(context), InstanceFault,
                                      rows)
