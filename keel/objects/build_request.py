"""Objects: BuildRequest, BuildRequestList — an instance accepted by the
API but not yet placed in a cell; the whole Instance, its block device
mappings and tags are stored as JSON primitives, as in Nova."""
from oslo_serialization import jsonutils
import sqlalchemy as sa

from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

_BLOBS = ("instance", "block_device_mappings", "tags")


@base.KeelObjectRegistry.register
class BuildRequest(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'block_device_mappings': fields.ObjectField('BlockDeviceMappingList'),
        'id': fields.IntegerField(),
        'instance': fields.ObjectField('Instance'),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'tags': fields.ObjectField('TagList'),
    }

    @staticmethod
    def _from_db_object(context, req, row):
        from keel import objects

        h.copy_columns(req, row, skip=_BLOBS)
        inst = objects.Instance.obj_from_primitive(
            jsonutils.loads(row.instance))
        # Not stored with the instance because they cannot be known yet;
        # the API reads them, so give them their not-yet values.
        for name, value in (("deleted", False), ("host", None),
                            ("node", None), ("launched_at", None),
                            ("terminated_at", None), ("locked", False),
                            ("cell_name", None)):
            if not inst.obj_attr_is_set(name):
                setattr(inst, name, value)
        inst.created_at = row.created_at
        inst.updated_at = row.updated_at
        inst._context = context
        inst.obj_reset_changes(recursive=True)
        req.instance = inst
        req.block_device_mappings = (
            objects.BlockDeviceMappingList.obj_from_primitive(
                jsonutils.loads(row.block_device_mappings))
            if row.block_device_mappings else
            objects.BlockDeviceMappingList(objects=[]))
        req.tags = (objects.TagList.obj_from_primitive(
            jsonutils.loads(row.tags)) if row.tags
            else objects.TagList(objects=[]))
        req._context = context
        req.obj_reset_changes(recursive=True)
        return req

    def _values_for_db(self):
        values = {}
        for name in _BLOBS:
            if self.obj_attr_is_set(name) and getattr(self, name) is not None:
                values[name] = jsonutils.dumps(
                    getattr(self, name).obj_to_primitive())
        return values

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        with h.api_reader(context) as s:
            row = s.execute(sa.select(models.BuildRequest).filter_by(
                instance_uuid=instance_uuid)).scalars().first()
            if row is None:
                raise exception.BuildRequestNotFound(uuid=instance_uuid)
            return cls._from_db_object(context, cls(), row)

    def insert(self, session):
        """Write this new BuildRequest in ``session`` (an API-database
        writer) with one Core INSERT; create() does it in a transaction of
        its own, the API writes a request's records in one
        (keel/compute_api/server_create_records.py)."""
        h.check_not_created(self)
        if not self.obj_attr_is_set("instance_uuid"):
            raise exception.ObjectActionError(
                action="create", reason="instance_uuid must be set")
        values = self._values_for_db()
        values.update(instance_uuid=self.instance_uuid,
                      project_id=self.project_id)
        with h.translate_duplicates(
                lambda e: exception.BuildRequestAlreadyExists(
                    uuid=self.instance_uuid)):
            row = h.insert_row(session, models.BuildRequest, values)
        self.id = row.id
        self.created_at = row.created_at
        self.updated_at = row.updated_at
        self.obj_reset_changes(recursive=True)

    @base.remotable
    def create(self):
        with h.api_writer(self._context) as s:
            self.insert(s)

    @base.remotable
    def save(self):
        values = self._values_for_db()
        with h.api_writer(self._context) as s:
            row = s.execute(sa.select(models.BuildRequest).filter_by(
                instance_uuid=self.instance_uuid)).scalars().first()
            if row is None:
                raise exception.BuildRequestNotFound(uuid=self.instance_uuid)
            for key, value in values.items():
                setattr(row, key, value)
            if row.updated_at is None:
                # Not taken by a conductor yet: the cast on its way carries
                # this None to take it with (conductor/tasks/lookups.py).
                sa.orm.attributes.flag_modified(row, "updated_at")
        self.obj_reset_changes(recursive=True)

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            gone = s.execute(sa.delete(models.BuildRequest).filter_by(
                instance_uuid=self.instance_uuid)).rowcount
        if not gone:
            raise exception.BuildRequestNotFound(uuid=self.instance_uuid)

    def get_new_instance(self, context):
        """A fresh Instance (all fields marked changed) to create in a
        cell from what the API accepted."""
        from keel import objects

        inst = objects.Instance(context)
        for name in self.instance.fields:
            if name in ("id", "deleted", "deleted_at", "created_at",
                        "updated_at"):
                continue
            if self.instance.obj_attr_is_set(name):
                setattr(inst, name, getattr(self.instance, name))
        return inst


def _sort_value(inst, key):
    """Sort key tolerant of unset/None values (those sort last asc)."""
    value = getattr(inst, key) if (key in inst.fields and
                                   inst.obj_attr_is_set(key)) else None
    return (value is None, "" if value is None else str(value))


@base.KeelObjectRegistry.register
class BuildRequestList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('BuildRequest'),
    }

    @base.remotable_classmethod
    def get_all(cls, context):
        """Every build request (admins) or the project's own."""
        stmt = sa.select(models.BuildRequest).order_by(models.BuildRequest.id)
        if not context.is_admin:
            stmt = stmt.where(
                models.BuildRequest.project_id == context.project_id)
        with h.api_reader(context) as s:
            rows = s.execute(stmt).scalars().all()
            return base.obj_make_list(context, cls(context), BuildRequest,
                                      rows)

    @base.remotable_classmethod
    def get_by_filters(cls, context, filters, limit=None, marker=None,
                       sort_keys=None, sort_dirs=None):
        """Filter on the stored instances' fields in Python, as Nova does
        (the instances are blobs, not columns)."""
        filters = dict(filters or {})
        if filters.get("deleted") or filters.get("cleaned"):
            return cls(context, objects=[])
        filters.pop("deleted", None)
        filters.pop("cleaned", None)
        keys = list(sort_keys or ["created_at"])
        dirs = list(sort_dirs or ["desc"] * len(keys))
        out = []
        for req in cls.get_all(context):
            inst = req.instance
            ok = True
            for key, want in filters.items():
                have = getattr(inst, key, None) if (
                    key in inst.fields and inst.obj_attr_is_set(key)) \
                    else None
                if isinstance(want, (list, tuple, set)):
                    ok = have in want
                else:
                    ok = have == want
                if not ok:
                    break
            if ok:
                out.append(req)
        for key, direction in reversed(list(zip(keys, dirs))):
            out.sort(key=lambda r, k=key: _sort_value(r.instance, k),
                     reverse=(direction == "desc"))
        if marker is not None:
            uuids = [r.instance_uuid for r in out]
            if marker not in uuids:
                raise exception.MarkerNotFound(marker=marker)
            out = out[uuids.index(marker) + 1:]
        if limit is not None:
            out = out[:limit]
        return cls(context, objects=out)
