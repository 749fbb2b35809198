"""Objects: BlockDeviceMapping, BlockDeviceMappingList (an instance's
disks: image, volume, snapshot, blank, swap and ephemeral)."""
import functools

from oslo_utils import uuidutils
import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

_NOT_COLUMNS = ("instance",)


@base.KeelObjectRegistry.register
class BlockDeviceMapping(base.KeelPersistentObject, base.KeelObject,
                         base.KeelObjectDictCompat):
    VERSION = '1.21'

    fields = {
        'attachment_id': fields.UUIDField(nullable=True),
        'boot_index': fields.IntegerField(nullable=True),
        'connection_info': fields.SensitiveStringField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'destination_type':
            fields.BlockDeviceDestinationTypeField(nullable=True),
        'device_name': fields.StringField(nullable=True),
        'device_type': fields.BlockDeviceTypeField(nullable=True),
        'disk_bus': fields.StringField(nullable=True),
        'encrypted': fields.BooleanField(default=False),
        'encryption_format':
            fields.BlockDeviceEncryptionFormatTypeField(nullable=True),
        'encryption_options': fields.StringField(nullable=True),
        'encryption_secret_uuid': fields.UUIDField(nullable=True),
        'guest_format': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'image_id': fields.StringField(nullable=True),
        'instance': fields.ObjectField('Instance', nullable=True),
        'instance_uuid': fields.UUIDField(),
        'no_device': fields.BooleanField(default=False),
        'snapshot_id': fields.StringField(nullable=True),
        'source_type': fields.BlockDeviceSourceTypeField(nullable=True),
        'tag': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'volume_id': fields.StringField(nullable=True),
        'volume_size': fields.IntegerField(nullable=True),
        'volume_type': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, bdm, row, expected_attrs=None):
        from keel import objects

        h.copy_columns(bdm, row, skip=_NOT_COLUMNS + ("uuid",))
        bdm.uuid = row.uuid or uuidutils.generate_uuid()
        for name in ("delete_on_termination", "no_device", "encrypted"):
            if getattr(bdm, name) is None:
                setattr(bdm, name, False)
        if "instance" in (expected_attrs or ()):
            bdm.instance = objects.Instance.get_by_uuid(context,
                                                        row.instance_uuid)
        bdm._context = context
        bdm.obj_reset_changes()
        return bdm

    def obj_load_attr(self, attrname):
        from keel import objects

        if attrname != "instance":
            raise exception.ObjectActionError(
                action="obj_load_attr",
                reason="attribute %s not lazy-loadable" % attrname)
        if not self._context:
            raise exception.OrphanedObjectError(method="obj_load_attr",
                                                objtype=self.obj_name())
        self.instance = objects.Instance.get_by_uuid(self._context,
                                                     self.instance_uuid)
        self.obj_reset_changes(["instance"])

    @property
    def is_root(self):
        return self.obj_attr_is_set("boot_index") and self.boot_index == 0

    @property
    def is_volume(self):
        return self.destination_type == "volume"

    @property
    def is_image(self):
        return self.source_type == "image"

    @property
    def is_local(self):
        return self.destination_type == "local"

    def _values_for_db(self):
        values = h.changes_for_db(self, models.BlockDeviceMapping,
                                  skip=_NOT_COLUMNS)
        return values

    @base.remotable
    def create(self):
        h.check_not_created(self)
        if "instance" in self.obj_what_changed():
            raise exception.ObjectActionError(action="create",
                                              reason="instance assigned")
        values = self._values_for_db()
        values.setdefault("uuid", uuidutils.generate_uuid())
        with h.cell_core_writer(self._context) as s:
            row = h.insert_row(s, models.BlockDeviceMapping, values)
            self._from_db_object(self._context, self, row)

    @base.remotable
    def update_or_create(self):
        """Update the instance's BDM for the same volume (or device name),
        else create one, as Nova does when attaching."""
        bdm = models.BlockDeviceMapping
        values = self._values_for_db()
        with h.cell_writer(self._context) as s:
            stmt = sa.select(bdm).where(
                bdm.instance_uuid == self.instance_uuid, bdm.deleted == 0)
            if self.obj_attr_is_set("volume_id") and self.volume_id:
                stmt = stmt.where(bdm.volume_id == self.volume_id)
            elif self.obj_attr_is_set("device_name") and self.device_name:
                stmt = stmt.where(bdm.device_name == self.device_name)
            else:
                stmt = None
            row = s.execute(stmt).scalars().first() if stmt is not None \
                else None
            if row is None:
                values.setdefault("uuid", uuidutils.generate_uuid())
                row = models.BlockDeviceMapping(**values)
                s.add(row)
            else:
                for key, value in values.items():
                    if key != "uuid":
                        setattr(row, key, value)
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = self._values_for_db()
        with h.cell_writer(self._context) as s:
            row = s.get(models.BlockDeviceMapping, self.id)
            if row is None or row.deleted:
                raise exception.BDMNotFound(id=self.id)
            for key, value in values.items():
                setattr(row, key, value)
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        if not self.obj_attr_is_set("id"):
            raise exception.ObjectActionError(action="destroy",
                                              reason="already destroyed")
        with h.cell_writer(self._context) as s:
            row = s.get(models.BlockDeviceMapping, self.id)
            if row is None or row.deleted:
                raise exception.BDMNotFound(id=self.id)
            h.soft_delete_row(row)
        delattr(self, "id")
        self.obj_reset_changes()

    @classmethod
    def _get_by_volume(cls, context, volume_id, *where, expected_attrs=None):
        bdm = models.BlockDeviceMapping
        with h.cell_reader(context) as s:
            rows = s.execute(sa.select(bdm).where(
                bdm.volume_id == volume_id, bdm.deleted == 0, *where)
                .order_by(bdm.id)).scalars().all()
            if not rows:
                raise exception.VolumeBDMNotFound(volume_id=volume_id)
            return [cls._from_db_object(context, cls(), r, expected_attrs)
                    for r in rows]

    @base.remotable_classmethod
    def get_by_volume_id(cls, context, volume_id, instance_uuid=None,
                         expected_attrs=None):
        where = []
        if instance_uuid is not None:
            where.append(models.BlockDeviceMapping.instance_uuid ==
                         instance_uuid)
        return cls._get_by_volume(context, volume_id, *where,
                                  expected_attrs=expected_attrs)[0]

    @base.remotable_classmethod
    def get_by_volume(cls, context, volume_id, expected_attrs=None):
        found = cls._get_by_volume(context, volume_id,
                                   expected_attrs=expected_attrs)
        if len(found) > 1:
            raise exception.VolumeBDMIsMultiattach(volume_id=volume_id)
        return found[0]

    @base.remotable_classmethod
    def get_by_volume_and_instance(cls, context, volume_id, instance_uuid,
                                   expected_attrs=None):
        return cls._get_by_volume(
            context, volume_id,
            models.BlockDeviceMapping.instance_uuid == instance_uuid,
            expected_attrs=expected_attrs)[0]


@functools.lru_cache(maxsize=None)
def _by_instance_statement():
    table = models.BlockDeviceMapping.__table__
    return (sa.select(table)
            .where(table.c.deleted == 0,
                   table.c.instance_uuid == sa.bindparam("w_uuid"))
            .order_by(table.c.id))


@base.KeelObjectRegistry.register
class BlockDeviceMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.18'

    fields = {
        'objects': fields.ListOfObjectsField('BlockDeviceMapping'),
    }

    @classmethod
    def _query(cls, context, *where):
        bdm = models.BlockDeviceMapping
        with h.cell_reader(context) as s:
            rows = s.execute(sa.select(bdm).where(bdm.deleted == 0, *where)
                             .order_by(bdm.id)).scalars().all()
            return base.obj_make_list(context, cls(context),
                                      BlockDeviceMapping, rows)

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid, use_slave=False):
        # Every build and delete asks: a Core statement built once.
        with h.cell_core_reader(context) as s:
            rows = s.connection().execute(_by_instance_statement(),
                                          {"w_uuid": instance_uuid})
            return base.obj_make_list(
                context, cls(context), BlockDeviceMapping,
                [h.RowValues(models.BlockDeviceMapping, row._mapping)
                 for row in rows])

    @base.remotable_classmethod
    def get_by_instance_uuids(cls, context, instance_uuids, use_slave=False):
        return cls._query(context,
                          models.BlockDeviceMapping.instance_uuid.in_(
                              instance_uuids))

    @base.remotable_classmethod
    def get_by_volume(cls, context, volume_id):
        found = cls._query(context,
                           models.BlockDeviceMapping.volume_id == volume_id)
        if not found:
            raise exception.VolumeBDMNotFound(volume_id=volume_id)
        return found

    @classmethod
    def bdms_by_instance_uuid(cls, context, instance_uuids):
        by_uuid = {}
        for bdm in cls.get_by_instance_uuids(context, instance_uuids):
            by_uuid.setdefault(bdm.instance_uuid, cls(context, objects=[]))
            by_uuid[bdm.instance_uuid].objects.append(bdm)
        return by_uuid

    def root_bdm(self):
        """The boot disk (boot_index 0), or None."""
        for bdm in self:
            if bdm.obj_attr_is_set("boot_index") and bdm.boot_index == 0:
                return bdm
        return None
