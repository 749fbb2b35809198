"""Objects: CellMapping, CellMappingList (API database cell_mappings)."""
import logging
from urllib import parse as urlparse

import sqlalchemy as sa

from keel.conf import CONF
from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

CELL0_UUID = '00000000-0000-0000-0000-000000000000'

LOG = logging.getLogger(__name__)


def _netloc_parts(netloc):
    user_pass, _, host_port = netloc.rpartition("@")
    user, _, password = user_pass.partition(":")
    host, _, port = host_port.partition(":")
    return {"username": user or None, "password": password or None,
            "hostname": host or None, "port": int(port) if port else None}


def format_url(url, default):
    """Fill a templated cell URL ({username}, {hostname}, {path}, ...) from
    this host's own URL, as Nova does, so one mapping can serve hosts whose
    credentials differ. oslo.messaging multi-host URLs also give
    {username1}, {hostname2}, ..."""
    if not url or "{" not in url or not default:
        return url
    parsed = urlparse.urlparse(default)
    subs = {"scheme": parsed.scheme, "username": parsed.username,
            "password": parsed.password, "hostname": parsed.hostname,
            "port": parsed.port, "path": parsed.path.lstrip("/"),
            "query": parsed.query, "fragment": parsed.fragment}
    if "," in parsed.netloc:
        for index, netloc in enumerate(parsed.netloc.split(","), start=1):
            for key, value in _netloc_parts(netloc).items():
                subs["%s%d" % (key, index)] = value
    try:
        return url.format(**subs)
    except (KeyError, IndexError, ValueError):
        LOG.exception("Cannot fill the cell mapping URL template %s", url)
        return url


@base.KeelObjectRegistry.register
class CellMapping(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.1'

    CELL0_UUID = CELL0_UUID

    fields = {
        'database_connection': fields.StringField(),
        'disabled': fields.BooleanField(default=False),
        'id': fields.IntegerField(),
        'name': fields.StringField(nullable=True),
        'transport_url': fields.StringField(),
        'uuid': fields.UUIDField(),
    }

    @property
    def identity(self):
        """uuid(name) when named, for log and command output."""
        if self.obj_attr_is_set("name") and self.name:
            return "%s(%s)" % (self.uuid, self.name)
        return self.uuid

    def is_cell0(self):
        return self.obj_attr_is_set("uuid") and self.uuid == CELL0_UUID

    @staticmethod
    def _from_db_object(context, cell, row):
        h.copy_columns(cell, row)
        cell.disabled = bool(row.disabled)
        cell.database_connection = format_url(row.database_connection,
                                              CONF.database.connection)
        if row.transport_url != "none":
            cell.transport_url = format_url(row.transport_url,
                                            CONF.transport_url)
        cell._context = context
        cell.obj_reset_changes()
        return cell

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        with h.api_reader(context) as s:
            row = s.execute(sa.select(models.CellMapping)
                            .filter_by(uuid=uuid)).scalars().first()
            if row is None:
                raise exception.CellMappingNotFound(uuid=uuid)
            return cls._from_db_object(context, cls(), row)

    @classmethod
    def get_by_id(cls, context, cell_id):
        with h.api_reader(context) as s:
            row = s.get(models.CellMapping, cell_id)
            if row is None:
                raise exception.CellMappingNotFound(uuid=cell_id)
            return cls._from_db_object(context, cls(), row)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = h.changes_for_db(self, models.CellMapping)
        with h.translate_duplicates(
                lambda e: exception.CellMappingExists(name=self.uuid)):
            with h.api_writer(self._context) as s:
                row = models.CellMapping(**values)
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self):
        values = h.changes_for_db(self, models.CellMapping)
        with h.api_writer(self._context) as s:
            row = s.execute(sa.select(models.CellMapping)
                            .filter_by(uuid=self.uuid)).scalars().first()
            if row is None:
                raise exception.CellMappingNotFound(uuid=self.uuid)
            for key, value in values.items():
                setattr(row, key, value)
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            deleted = s.execute(sa.delete(models.CellMapping)
                                .filter_by(uuid=self.uuid)).rowcount
            if not deleted:
                raise exception.CellMappingNotFound(uuid=self.uuid)


@base.KeelObjectRegistry.register
class CellMappingList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('CellMapping'),
    }

    @classmethod
    def _query(cls, context, *where):
        with h.api_reader(context) as s:
            rows = s.execute(sa.select(models.CellMapping).where(*where)
                             .order_by(models.CellMapping.id)).scalars().all()
            return base.obj_make_list(context, cls(context), CellMapping,
                                      rows)

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._query(context)

    @base.remotable_classmethod
    def get_by_disabled(cls, context, disabled):
        return cls._query(context,
                          models.CellMapping.disabled == bool(disabled))

    @classmethod
    def get_by_project_id(cls, context, project_id):
        """The cells holding any instance of the project."""
        im = models.InstanceMapping
        cells = (sa.select(im.cell_id).where(im.project_id == project_id)
                 .where(im.cell_id.is_not(None)).distinct())
        return cls._query(context, models.CellMapping.id.in_(cells))
