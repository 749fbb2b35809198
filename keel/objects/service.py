"""Objects: Service, ServiceList (the cell database's services table)."""
import functools
import threading
import time

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from keel.conf import CONF
from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

# Version of the code each service runs; written to services.version and
# read back as the minimum over a deployment to pin RPC versions. Defined
# once, in keel.rpc.versions, next to the RPC version each one speaks.
from keel.rpc.versions import SERVICE_VERSION  # noqa: E402

COMPUTE_BINARY = "nova-compute"

# Fields that are not columns: compute_node and availability_zone are
# loaded on demand.
_NOT_COLUMNS = ("compute_node", "availability_zone")

# Seconds the minimum version that guards every create/save is reused
# (per cell and binary). Nova caches it for the life of its services; a
# heartbeat (one save per service and report_interval) then costs no
# query. A short life keeps the guard close to the database's answer.
MIN_VERSION_CACHE_SECONDS = 60
_min_version_cache = {}     # (cell uuid, binary) -> (version, monotonic)
_min_version_lock = threading.Lock()


# What a heartbeat writes, and the columns it leaves alone that others may
# change (disable, force-down, an upgrade's version): see Service._beat.
_BEAT_COLUMNS = frozenset(("report_count", "last_seen_up"))
_BEAT_CHECKED = ("uuid", "host", "binary", "topic", "disabled",
                 "disabled_reason", "forced_down", "version")
_BEAT_NEEDS = _BEAT_CHECKED + ("id",)


@functools.lru_cache(maxsize=1)
def _beat_statement():
    table = models.Service.__table__
    where = [table.c.id == sa.bindparam("w_id"), table.c.deleted == 0,
             table.c.report_count < sa.bindparam("c_report_count")]
    for name in _BEAT_CHECKED:
        column, value = table.c[name], sa.bindparam("c_" + name)
        if isinstance(column.type, sa.String):
            # Byte for byte: MariaDB's default collation would take a
            # reason changed only in case (or trailing spaces) as equal.
            column = sa.cast(column, sa.LargeBinary)
            value = sa.cast(value, sa.LargeBinary)
        where.append(column.is_not_distinct_from(value))
    return sa.update(table).where(*where).values(
        report_count=sa.bindparam("v_report_count"),
        last_seen_up=sa.bindparam("v_last_seen_up"),
        updated_at=sa.bindparam("v_updated_at"))


def clear_min_version_cache():
    with _min_version_lock:
        _min_version_cache.clear()


@base.KeelObjectRegistry.register
class Service(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.22'

    fields = {
        'availability_zone': fields.StringField(nullable=True),
        'binary': fields.StringField(nullable=True),
        'compute_node': fields.ObjectField('ComputeNode'),
        'disabled': fields.BooleanField(),
        'disabled_reason': fields.StringField(nullable=True),
        'forced_down': fields.BooleanField(),
        'host': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'report_count': fields.IntegerField(),
        'topic': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'version': fields.IntegerField(),
    }

    def __init__(self, *args, **kwargs):
        # A record written by this code always carries this code's version;
        # it cannot be chosen at construction (as Nova).
        if "version" in kwargs:
            raise exception.ObjectActionError(
                action="init", reason="Version field is immutable")
        super().__init__(*args, **kwargs)
        self.version = SERVICE_VERSION

    # Fields added by each version, dropped when backporting (Nova's list).
    _ADDED_IN = {(1, 13): ["last_seen_up"], (1, 14): ["forced_down"],
                 (1, 16): ["version"], (1, 21): ["uuid"]}

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        base.drop_newer_fields(primitive, target_version, self._ADDED_IN)

    def _check_minimum_version(self):
        """Refuse to write a record older than the deployment's minimum
        (an old node coming back, or a rollback)."""
        if not (self.obj_attr_is_set("version") and
                self.obj_attr_is_set("binary") and self.binary):
            return
        if not self.binary.startswith("nova-"):
            return
        minimum = self._cached_minimum_version()
        if minimum > self.version:
            raise exception.ServiceTooOld(thisver=self.version,
                                          minver=minimum)

    def _cached_minimum_version(self):
        key = (getattr(self._context, "cell_uuid", None)
               or CONF.database.connection, self.binary)
        now = time.monotonic()
        with _min_version_lock:
            hit = _min_version_cache.get(key)
        if hit is not None and now - hit[1] < MIN_VERSION_CACHE_SECONDS:
            return hit[0]
        minimum = self.get_minimum_version(self._context, self.binary)
        if minimum:
            # Not cached while no such service exists: the first one to
            # register sets the minimum.
            with _min_version_lock:
                _min_version_cache[key] = (minimum, now)
        return minimum

    @staticmethod
    def _from_db_object(context, service, row):
        h.copy_columns(service, row, skip=_NOT_COLUMNS)
        for name, default in (("disabled", False), ("forced_down", False),
                              ("report_count", 0), ("version", 0)):
            if getattr(service, name) is None:
                setattr(service, name, default)
        service._context = context
        service.obj_reset_changes()
        return service

    def obj_load_attr(self, attrname):
        if not self._context:
            raise exception.OrphanedObjectError(method="obj_load_attr",
                                                objtype=self.obj_name())
        if attrname == "availability_zone":
            self.availability_zone = self._zone()
        elif attrname == "compute_node":
            if self.binary != COMPUTE_BINARY:
                # Only computes have nodes (Nova's answer for the others).
                raise exception.ServiceNotFound(service_id=self.id)
            from keel.objects import compute_node
            nodes = compute_node.ComputeNodeList.get_all_by_host(
                self._context, self.host)
            self.compute_node = nodes[0]
        else:
            raise exception.ObjectActionError(
                action="obj_load_attr",
                reason="attribute %s not lazy-loadable" % attrname)
        self.obj_reset_changes([attrname])

    def _zone(self):
        """A compute's zone comes from the availability_zone metadata of
        its aggregates (several are joined with ','), else
        [DEFAULT]/default_availability_zone; other services are in
        [DEFAULT]/internal_service_availability_zone."""
        if self.binary != COMPUTE_BINARY:
            return CONF.internal_service_availability_zone
        from keel.objects import aggregate
        zones = sorted({a.metadata[aggregate.AZ_KEY] for a in
                        aggregate.AggregateList.get_by_host(
                            self._context, self.host,
                            key=aggregate.AZ_KEY)})
        return ",".join(zones) or CONF.default_availability_zone

    @classmethod
    def _get_one(cls, context, not_found, **filters):
        with h.cell_reader(context) as s:
            stmt = sa.select(models.Service).filter_by(**filters)
            row = s.execute(h.filter_deleted(stmt, models.Service,
                                             context)).scalars().first()
            if row is None:
                raise not_found
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_id(cls, context, service_id):
        return cls._get_one(context,
                            exception.ServiceNotFound(service_id=service_id),
                            id=service_id)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, service_uuid):
        return cls._get_one(
            context, exception.ServiceNotFound(service_id=service_uuid),
            uuid=service_uuid)

    @base.remotable_classmethod
    def get_by_host_and_topic(cls, context, host, topic):
        return cls._get_one(
            context, exception.ServiceNotFound(service_id=host),
            host=host, topic=topic, disabled=False)

    @base.remotable_classmethod
    def get_by_host_and_binary(cls, context, host, binary):
        """The service, or None when the host runs no such binary."""
        try:
            return cls.get_by_args(context, host, binary)
        except exception.HostBinaryNotFound:
            return None

    @base.remotable_classmethod
    def get_by_compute_host(cls, context, host, use_slave=False):
        return cls._get_one(context,
                            exception.ComputeHostNotFound(host=host),
                            host=host, binary=COMPUTE_BINARY)

    @base.remotable_classmethod
    def get_by_args(cls, context, host, binary):
        return cls._get_one(
            context, exception.HostBinaryNotFound(host=host, binary=binary),
            host=host, binary=binary)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        self._check_minimum_version()
        values = h.changes_for_db(self, models.Service)
        values.setdefault("uuid", uuidutils.generate_uuid())
        values.setdefault("version", SERVICE_VERSION)

        def _exists(exc):
            if "binary" in (exc.columns or []):
                return exception.ServiceBinaryExists(
                    host=values.get("host"), binary=values.get("binary"))
            return exception.ServiceTopicExists(
                host=values.get("host"), topic=values.get("topic"))

        with h.translate_duplicates(_exists):
            with h.cell_writer(self._context) as s:
                row = models.Service(**values)
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    @h.retry_on_deadlock
    def save(self):
        values = h.changes_for_db(self, models.Service)
        if not values:
            self.obj_reset_changes()
            return
        self._check_minimum_version()
        with h.cell_core_writer(self._context) as s:
            if self._beat(s, values):
                return
            # Core statements built once (no ORM unit of work): the row is
            # read, so the object comes back as the database has it.
            row = h.read_live_row(s, models.Service, self.id)
            if row is None:
                raise exception.ServiceNotFound(service_id=self.id)
            if ("report_count" in values and "last_seen_up" not in values
                    and values["report_count"] > row.report_count):
                # Nova's database layer stamps a growing report_count as
                # the last heartbeat (its computes send report_count only).
                values["last_seen_up"] = timeutils.utcnow()
            h.update_row(s, row, values)
            self._from_db_object(self._context, self, row)

    def _beat(self, s, values):
        """A heartbeat (report_count grown, last_seen_up given) in one
        UPDATE instead of a row read and an UPDATE: it only matches the
        live row while the columns a beat leaves alone still hold what the
        caller has, so the object is then what a re-read would give. False
        (nothing written) sends the save the long way: a deleted row, an
        operator's disable or force-down, report_count not growing."""
        if set(values) != _BEAT_COLUMNS or not all(
                self.obj_attr_is_set(name) for name in _BEAT_NEEDS):
            return False
        now = timeutils.utcnow()
        params = {"w_id": self.id, "v_updated_at": now,
                  "v_report_count": values["report_count"],
                  "c_report_count": values["report_count"],
                  "v_last_seen_up": values["last_seen_up"]}
        for name in _BEAT_CHECKED:
            params["c_" + name] = getattr(self, name)
        if s.connection().execute(_beat_statement(), params).rowcount != 1:
            return False
        self.updated_at = now
        self.obj_reset_changes()
        return True

    @base.remotable
    def destroy(self):
        """Soft-delete the service and, for a compute, its nodes."""
        with h.cell_writer(self._context) as s:
            row = s.get(models.Service, self.id)
            if row is None or row.deleted:
                raise exception.ServiceNotFound(service_id=self.id)
            h.soft_delete_row(row)
            if row.binary == COMPUTE_BINARY:
                nodes = models.ComputeNode
                s.execute(sa.update(nodes)
                          .where(nodes.deleted == 0)
                          .where(sa.or_(nodes.service_id == row.id,
                                        nodes.host == row.host))
                          .values(h.soft_delete_values(nodes)))

    @base.remotable_classmethod
    def get_minimum_version_multi(cls, context, binaries, use_slave=False):
        """{binary: lowest version of the live, not forced-down services}.

        Binaries without any service report 0.
        """
        if not all(b.startswith("nova-") for b in binaries):
            raise exception.ObjectActionError(
                action="get_minimum_version",
                reason="Invalid binary prefix")
        svc = models.Service
        with h.cell_reader(context) as s:
            rows = s.execute(
                sa.select(svc.binary, sa.func.min(svc.version))
                .where(svc.binary.in_(binaries))
                .where(svc.deleted == 0)
                .where(sa.or_(svc.forced_down.is_(None),
                              svc.forced_down == sa.false()))
                .group_by(svc.binary)).all()
        found = {binary: version or 0 for binary, version in rows}
        return {b: found.get(b, 0) for b in binaries}

    @base.remotable_classmethod
    def get_minimum_version(cls, context, binary, use_slave=False):
        return cls.get_minimum_version_multi(context, [binary],
                                             use_slave=use_slave)[binary]


def get_minimum_version_all_cells(context, binaries, require_all=False):
    """Lowest service version of each binary across every cell.

    A cell that fails or does not answer is skipped with a warning, unless
    ``require_all`` is set, in which case it raises CellTimeout.
    """
    from keel.db import cells as db_cells
    from keel.objects import cell_mapping

    mappings = cell_mapping.CellMappingList.get_all(context)
    results = db_cells.scatter_gather_cells(
        context, mappings, db_cells.CELL_TIMEOUT,
        lambda cctxt: Service.get_minimum_version_multi(cctxt, binaries))
    answer = {}
    for cell_uuid, result in results.items():
        if db_cells.is_cell_failure_sentinel(result):
            if require_all:
                raise exception.CellTimeout()
            continue
        for binary, version in result.items():
            if version and (binary not in answer or
                            version < answer[binary]):
                answer[binary] = version
    return {b: answer.get(b, 0) for b in binaries}


@base.KeelObjectRegistry.register
class ServiceList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.19'

    fields = {
        'objects': fields.ListOfObjectsField('Service'),
    }

    @classmethod
    def _query(cls, context, *where):
        with h.cell_reader(context) as s:
            stmt = sa.select(models.Service).where(*where) \
                .order_by(models.Service.id)
            rows = s.execute(h.filter_deleted(stmt, models.Service,
                                              context)).scalars().all()
            return base.obj_make_list(context, cls(context), Service, rows)

    @base.remotable_classmethod
    def get_by_topic(cls, context, topic):
        return cls._query(context, models.Service.topic == topic,
                          models.Service.disabled == sa.false())

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        return cls._query(context, models.Service.host == host)

    @base.remotable_classmethod
    def get_by_binary(cls, context, binary, include_disabled=False):
        where = [models.Service.binary == binary]
        if not include_disabled:
            where.append(models.Service.disabled == sa.false())
        return cls._query(context, *where)

    @base.remotable_classmethod
    def get_all(cls, context, disabled=None, set_zones=False):
        where = []
        if disabled is not None:
            where.append(models.Service.disabled == bool(disabled))
        return cls._query(context, *where)

    @base.remotable_classmethod
    def get_all_computes_by_hv_type(cls, context, hv_type):
        svc, node = models.Service, models.ComputeNode
        nodes = (sa.select(node.host)
                 .where(node.hypervisor_type == hv_type)
                 .where(node.deleted == 0))
        return cls._query(context, svc.binary == COMPUTE_BINARY,
                          svc.disabled == sa.false(), svc.host.in_(nodes))

    @classmethod
    def get_liveness_by_hosts(cls, context, hosts, binary=COMPUTE_BINARY):
        """``{host: {column: value}}`` with what liveness checks read
        (disabled, forced_down, last_seen_up...): plain dicts from one
        light query, for readers of many hosts at once (the scheduler)."""
        svc = models.Service
        cols = (svc.id, svc.uuid, svc.host, svc.binary, svc.disabled,
                svc.disabled_reason, svc.forced_down, svc.last_seen_up,
                svc.created_at, svc.updated_at, svc.version)
        with h.cell_reader(context) as s:
            rows = s.execute(sa.select(*cols).where(
                svc.host.in_(hosts), svc.binary == binary, svc.deleted == 0))
            return {row.host: dict(row._mapping) for row in rows}
