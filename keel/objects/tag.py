"""Objects: Tag, TagList (server tags, keyed on the instance uuid)."""
import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

MAX_TAG_LENGTH = 60


@base.KeelObjectRegistry.register
class Tag(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'resource_id': fields.StringField(),
        'tag': fields.StringField(),
    }

    @staticmethod
    def _from_db_object(context, tag, row):
        tag.resource_id = row.resource_id
        tag.tag = row.tag
        tag._context = context
        tag.obj_reset_changes()
        return tag

    @base.remotable
    def create(self):
        with h.cell_writer(self._context) as s:
            exists = s.get(models.Tag, (self.resource_id, self.tag))
            if exists is None:
                s.add(models.Tag(resource_id=self.resource_id, tag=self.tag))
        self.obj_reset_changes()

    @base.remotable_classmethod
    def destroy(cls, context, resource_id, name):
        with h.cell_writer(context) as s:
            gone = s.execute(sa.delete(models.Tag).where(
                models.Tag.resource_id == resource_id,
                models.Tag.tag == name)).rowcount
        if not gone:
            raise exception.InstanceTagNotFound(instance_id=resource_id,
                                                tag=name)

    @base.remotable_classmethod
    def exists(cls, context, resource_id, tag):
        with h.cell_reader(context) as s:
            return s.get(models.Tag, (resource_id, tag)) is not None


@base.KeelObjectRegistry.register
class TagList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('Tag'),
    }

    @base.remotable_classmethod
    def get_by_resource_id(cls, context, resource_id):
        with h.cell_reader(context) as s:
            rows = s.execute(sa.select(models.Tag).where(
                models.Tag.resource_id == resource_id)
                .order_by(models.Tag.tag)).scalars().all()
            return base.obj_make_list(context, cls(context), Tag, rows)

    @base.remotable_classmethod
    def create(cls, context, resource_id, tags):
        """Replace the resource's tags with ``tags`` (a list of names)."""
        with h.cell_writer(context) as s:
            s.execute(sa.delete(models.Tag).where(
                models.Tag.resource_id == resource_id))
            for name in dict.fromkeys(tags):
                s.add(models.Tag(resource_id=resource_id, tag=name))
        return cls.get_by_resource_id(context, resource_id)

    @base.remotable_classmethod
    def destroy(cls, context, resource_id):
        with h.cell_writer(context) as s:
            s.execute(sa.delete(models.Tag).where(
                models.Tag.resource_id == resource_id))
