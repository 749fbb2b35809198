"""Objects: KeyPair, KeyPairList (API database key_pairs, per user)."""
import sqlalchemy as sa

from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

KEYPAIR_TYPE_SSH = 'ssh'
KEYPAIR_TYPE_X509 = 'x509'


@base.KeelObjectRegistry.register
class KeyPair(base.KeelPersistentObject, base.KeelObject,
              base.KeelObjectDictCompat):
    VERSION = '1.4'

    fields = {
        'fingerprint': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'name': fields.StringField(),
        'public_key': fields.StringField(nullable=True),
        'type': fields.StringField(),
        'user_id': fields.StringField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, keypair, row):
        # The API database has no soft delete: a row that exists is live.
        h.copy_columns(keypair, row, skip=("deleted", "deleted_at"))
        keypair.deleted = False
        keypair.deleted_at = None
        keypair._context = context
        keypair.obj_reset_changes()
        return keypair

    @base.remotable_classmethod
    def get_by_name(cls, context, user_id, name):
        with h.api_reader(context) as s:
            row = s.execute(sa.select(models.KeyPair).filter_by(
                user_id=user_id, name=name)).scalars().first()
            if row is None:
                raise exception.KeypairNotFound(user_id=user_id, name=name)
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def destroy_by_name(cls, context, user_id, name):
        with h.api_writer(context) as s:
            gone = s.execute(sa.delete(models.KeyPair).filter_by(
                user_id=user_id, name=name)).rowcount
        if not gone:
            raise exception.KeypairNotFound(user_id=user_id, name=name)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = h.changes_for_db(self, models.KeyPair,
                                  skip=("deleted", "deleted_at"))
        values.setdefault("type", KEYPAIR_TYPE_SSH)
        with h.translate_duplicates(
                lambda e: exception.KeyPairExists(key_name=self.name)):
            with h.api_writer(self._context) as s:
                row = models.KeyPair(**values)
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        self.destroy_by_name(self._context, self.user_id, self.name)


@base.KeelObjectRegistry.register
class KeyPairList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'objects': fields.ListOfObjectsField('KeyPair'),
    }

    @base.remotable_classmethod
    def get_by_user(cls, context, user_id, limit=None, marker=None):
        """Ordered by name; ``marker`` is the name of the last key seen."""
        kp = models.KeyPair
        with h.api_reader(context) as s:
            marker_row = None
            if marker is not None:
                marker_row = s.execute(sa.select(kp).filter_by(
                    user_id=user_id, name=marker)).scalars().first()
                if marker_row is None:
                    raise exception.MarkerNotFound(marker=marker)
            stmt = h.paginate(sa.select(kp).where(kp.user_id == user_id),
                              kp, ["name", "id"], ["asc", "asc"],
                              limit=limit, marker_row=marker_row)
            rows = s.execute(stmt).scalars().all()
            return base.obj_make_list(context, cls(context), KeyPair, rows)

    @base.remotable_classmethod
    def get_count_by_user(cls, context, user_id):
        with h.api_reader(context) as s:
            return s.execute(sa.select(sa.func.count()).select_from(
                models.KeyPair).where(
                    models.KeyPair.user_id == user_id)).scalar()
