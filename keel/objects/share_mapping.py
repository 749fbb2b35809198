"""Objects: ShareMapping (1.2), ShareMappingList (1.1) -- a Manila share
attached to an instance (the share_mapping table, hard-deleted as Nova's).

The access fields (type, to, key) are not stored: the compute sets them
from the share's protocol before it asks Manila for the host's access rule
(NFS: the host's IP; CephFS: the 'nova' cephx user)."""
import datetime

import sqlalchemy as sa

from keel.conf import CONF
from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

_STORED = ('id', 'uuid', 'instance_uuid', 'share_id', 'status', 'tag',
           'export_location', 'share_proto', 'created_at', 'updated_at')


def _utc(value):
    if value is not None and value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value


@base.KeelObjectRegistry.register
class ShareMapping(base.KeelTimestampObject, base.KeelObject):
    # 1.0: initial; 1.1: access_type/access_to/access_key;
    # 1.2: ShareMappingStatus 'active'/'inactive' values
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(nullable=False),
        'instance_uuid': fields.UUIDField(nullable=False),
        'share_id': fields.UUIDField(nullable=False),
        'status': fields.ShareMappingStatusField(),
        'tag': fields.StringField(nullable=False),
        'export_location': fields.StringField(nullable=False),
        'share_proto': fields.ShareMappingProtoField(),
        'access_type': fields.StringField(nullable=True),
        'access_to': fields.StringField(nullable=True),
        'access_key': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, mapping, row):
        for name in _STORED:
            value = getattr(row, name)
            if name in ('created_at', 'updated_at'):
                value = _utc(value)
            setattr(mapping, name, value)
        mapping._context = context
        mapping.obj_reset_changes()
        return mapping

    def _values(self):
        return {name: getattr(self, name) for name in _STORED
                if name not in ('id', 'created_at', 'updated_at')
                and name in self.obj_what_changed()}

    def create(self):
        """Insert the mapping; ShareMappingAlreadyExists if the instance
        already has this share or this tag."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')

        def _exists(exc):
            return exception.ShareMappingAlreadyExists(
                share_id=self.share_id, tag=self.tag)

        with h.translate_duplicates(_exists):
            with h.cell_writer(self._context) as s:
                row = models.ShareMapping(**self._values())
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = self._values()
        with h.cell_writer(self._context) as s:
            row = s.execute(sa.select(models.ShareMapping).where(
                models.ShareMapping.id == self.id)).scalars().first()
            if row is None:
                raise exception.ShareNotFound(share_id=self.share_id)
            for name, value in values.items():
                setattr(row, name, value)
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def delete(self):
        with h.cell_writer(self._context) as s:
            s.execute(sa.delete(models.ShareMapping).where(
                models.ShareMapping.id == self.id))

    def set_access_according_to_protocol(self):
        """The access rule the host needs for this share's protocol."""
        if self.share_proto == fields.ShareMappingProto.NFS:
            self.access_type = 'ip'
            self.access_to = (getattr(CONF, 'my_shared_fs_storage_ip', None)
                              or CONF.my_ip)
            self.access_key = None
        elif self.share_proto == fields.ShareMappingProto.CEPHFS:
            self.access_type = 'cephx'
            self.access_to = 'nova'
        else:
            raise exception.ShareProtocolNotSupported(
                share_proto=self.share_proto)

    @base.remotable_classmethod
    def get_by_instance_uuid_and_share_id(cls, context, instance_uuid,
                                          share_id):
        with h.cell_reader(context) as s:
            row = s.execute(sa.select(models.ShareMapping).where(
                models.ShareMapping.instance_uuid == instance_uuid,
                models.ShareMapping.share_id == share_id)).scalars().first()
            if row is None:
                raise exception.ShareNotFound(share_id=share_id)
            return cls._from_db_object(context, cls(), row)


def _list(cls, context, *where):
    with h.cell_reader(context) as s:
        stmt = sa.select(models.ShareMapping)
        if where:
            stmt = stmt.where(*where)
        rows = s.execute(stmt.order_by(models.ShareMapping.id)
                         ).scalars().all()
        items = [ShareMapping._from_db_object(context, ShareMapping(), r)
                 for r in rows]
    out = cls(context, objects=items)
    out.obj_reset_changes()
    return out


@base.KeelObjectRegistry.register
class ShareMappingList(base.ObjectListBase, base.KeelObject):
    # 1.1: get_by_host_for_reconcile
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('ShareMapping'),
    }

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        return _list(cls, context,
                     models.ShareMapping.instance_uuid == instance_uuid)

    @base.remotable_classmethod
    def get_by_share_id(cls, context, share_id):
        return _list(cls, context, models.ShareMapping.share_id == share_id)

    @base.remotable_classmethod
    def get_by_host_for_reconcile(cls, context, host):
        """The mappings of the host's instances (not yet deleted)."""
        on_host = sa.select(models.Instance.uuid).where(
            models.Instance.host == host, models.Instance.deleted == 0)
        return _list(cls, context,
                     models.ShareMapping.instance_uuid.in_(on_host))
