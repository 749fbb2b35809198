"""Objects: VirtualInterface, VirtualInterfaceList — an instance's ports
(Neutron port uuid, MAC) with the device tag the user gave them."""
import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields


@base.KeelObjectRegistry.register
class VirtualInterface(base.KeelPersistentObject, base.KeelObject,
                       base.KeelObjectDictCompat):
    VERSION = '1.3'

    fields = {
        'address': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(),
        'network_id': fields.IntegerField(),
        'tag': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
    }

    @staticmethod
    def _from_db_object(context, vif, row):
        # With Neutron there is no nova-network id: NULL stays unset.
        h.copy_columns(vif, row, skip=("network_id",))
        if row.network_id is not None:
            vif.network_id = row.network_id
        vif._context = context
        vif.obj_reset_changes()
        return vif

    @classmethod
    def _get_one(cls, context, *where):
        vif = models.VirtualInterface
        with h.cell_reader(context) as s:
            row = s.execute(h.filter_deleted(
                sa.select(vif).where(*where), vif, context)
                .order_by(vif.id)).scalars().first()
            return (cls._from_db_object(context, cls(), row)
                    if row is not None else None)

    @base.remotable_classmethod
    def get_by_id(cls, context, vif_id):
        return cls._get_one(context, models.VirtualInterface.id == vif_id)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, vif_uuid):
        return cls._get_one(context, models.VirtualInterface.uuid == vif_uuid)

    @base.remotable_classmethod
    def get_by_address(cls, context, address):
        return cls._get_one(context,
                            models.VirtualInterface.address == address)

    @base.remotable_classmethod
    def get_by_instance_and_network(cls, context, instance_uuid, network_id):
        return cls._get_one(
            context, models.VirtualInterface.instance_uuid == instance_uuid,
            models.VirtualInterface.network_id == network_id)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = h.changes_for_db(self, models.VirtualInterface)
        with h.translate_duplicates(
                lambda e: exception.VirtualInterfaceCreateException()):
            with h.cell_writer(self._context) as s:
                row = models.VirtualInterface(**values)
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = h.changes_for_db(self, models.VirtualInterface)
        with h.cell_writer(self._context) as s:
            row = s.get(models.VirtualInterface, self.id)
            if row is None or row.deleted:
                raise exception.VirtualInterfaceNotFound(id=self.id)
            for key, value in values.items():
                setattr(row, key, value)
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        with h.cell_writer(self._context) as s:
            row = s.get(models.VirtualInterface, self.id)
            if row is None or row.deleted:
                raise exception.VirtualInterfaceNotFound(id=self.id)
            h.soft_delete_row(row)

    @base.remotable_classmethod
    def delete_by_instance_uuid(cls, context, instance_uuid):
        vif = models.VirtualInterface
        with h.cell_writer(context) as s:
            s.execute(sa.update(vif)
                      .where(vif.instance_uuid == instance_uuid,
                             vif.deleted == 0)
                      .values(h.soft_delete_values(vif))
                      .execution_options(synchronize_session=False))


@base.KeelObjectRegistry.register
class VirtualInterfaceList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('VirtualInterface'),
    }

    @classmethod
    def _query(cls, context, *where):
        vif = models.VirtualInterface
        with h.cell_reader(context) as s:
            rows = s.execute(h.filter_deleted(
                sa.select(vif).where(*where), vif, context)
                .order_by(vif.id)).scalars().all()
            return base.obj_make_list(context, cls(context),
                                      VirtualInterface, rows)

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._query(context)

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid, use_slave=False):
        return cls._query(context, models.VirtualInterface.instance_uuid ==
                          instance_uuid)
