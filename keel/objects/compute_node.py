"""Objects: ComputeNode, ComputeNodeList (the compute_nodes table)."""
import functools

from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from keel.conf import CONF
from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields
from keel.objects import hv_spec
from keel.objects import pci_device_pool

# Fields stored under another column name or in another shape.
_CONVERTED = ("stats", "supported_hv_specs", "pci_device_pools", "host_ip",
              "cpu_allocation_ratio", "ram_allocation_ratio",
              "disk_allocation_ratio", "mapped", "uuid")


def _initial_ratio(kind):
    """An unset (NULL or 0.0) ratio means the configured one, else the
    initial_* default, as Nova's compute nodes behave."""
    configured = getattr(CONF, "%s_allocation_ratio" % kind, None)
    if configured:
        return configured
    return getattr(CONF, "initial_%s_allocation_ratio" % kind)


@base.KeelObjectRegistry.register
class ComputeNode(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.19'

    fields = {
        'cpu_allocation_ratio': fields.FloatField(),
        'cpu_info': fields.StringField(nullable=True),
        'current_workload': fields.IntegerField(nullable=True),
        'disk_allocation_ratio': fields.FloatField(),
        'disk_available_least': fields.IntegerField(nullable=True),
        'free_disk_gb': fields.IntegerField(nullable=True),
        'free_ram_mb': fields.IntegerField(nullable=True),
        'host': fields.StringField(nullable=True),
        'host_ip': fields.IPAddressField(nullable=True),
        'hypervisor_hostname': fields.StringField(nullable=True),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(),
        'id': fields.IntegerField(),
        'local_gb': fields.IntegerField(),
        'local_gb_used': fields.IntegerField(),
        'mapped': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'memory_mb_used': fields.IntegerField(),
        'metrics': fields.StringField(nullable=True),
        'numa_topology': fields.StringField(nullable=True),
        'pci_device_pools':
            fields.ObjectField('PciDevicePoolList', nullable=True),
        'ram_allocation_ratio': fields.FloatField(),
        'running_vms': fields.IntegerField(nullable=True),
        'service_id': fields.IntegerField(nullable=True),
        'stats': fields.DictOfNullableStringsField(nullable=True),
        'supported_hv_specs': fields.ListOfObjectsField('HVSpec'),
        'uuid': fields.UUIDField(),
        'vcpus': fields.IntegerField(),
        'vcpus_used': fields.IntegerField(),
    }

    @staticmethod
    def _from_db_object(context, node, row):
        h.copy_columns(node, row, skip=_CONVERTED)
        for kind in ("cpu", "ram", "disk"):
            name = "%s_allocation_ratio" % kind
            value = getattr(row, name)
            setattr(node, name, value if value else _initial_ratio(kind))
        node.mapped = row.mapped or 0
        node.host_ip = row.host_ip
        node.stats = jsonutils.loads(row.stats) if row.stats else {}
        specs = jsonutils.loads(row.supported_instances or "[]")
        node.supported_hv_specs = [hv_spec.HVSpec.from_list(s)
                                   for s in specs]
        node.pci_device_pools = pci_device_pool.from_pci_stats(row.pci_stats)
        node.uuid = row.uuid or uuidutils.generate_uuid()
        node._context = context
        node.obj_reset_changes(recursive=True)
        return node

    def _values_for_db(self, changes=None):
        """The changed fields as columns, converted as Nova's
        _convert_*_to_db_format do: stats None and an empty host_ip are
        not written at all (the column keeps what it has)."""
        if changes is None:
            changes = self.obj_get_changes()
        cols = h.columns(models.ComputeNode)
        values = {k: v for k, v in changes.items()
                  if k in cols and k not in ("id", "stats", "host_ip")}
        if changes.get("stats") is not None:
            values["stats"] = jsonutils.dumps(changes["stats"])
        if changes.get("host_ip"):
            values["host_ip"] = str(changes["host_ip"])
        if changes.get("supported_hv_specs") is not None:
            values["supported_instances"] = jsonutils.dumps(
                [s.to_list() for s in changes["supported_hv_specs"]])
        if "pci_device_pools" in changes:
            pools = changes["pci_device_pools"]
            values["pci_stats"] = (None if pools is None else jsonutils.dumps(
                pools.obj_to_primitive()))
        return values

    @classmethod
    def _get_one(cls, context, not_found, *where):
        with h.cell_reader(context) as s:
            stmt = sa.select(models.ComputeNode).where(*where) \
                .order_by(models.ComputeNode.id)
            row = s.execute(h.filter_deleted(stmt, models.ComputeNode,
                                             context)).scalars().first()
            if row is None:
                raise not_found
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_id(cls, context, compute_id):
        return cls._get_one(context,
                            exception.ComputeHostNotFound(host=compute_id),
                            models.ComputeNode.id == compute_id)

    @base.remotable_classmethod
    def get_by_uuid(cls, context, compute_uuid):
        return cls._get_one(context,
                            exception.ComputeHostNotFound(host=compute_uuid),
                            models.ComputeNode.uuid == compute_uuid)

    @base.remotable_classmethod
    def get_by_service_id(cls, context, service_id):
        return cls._get_one(context,
                            exception.ServiceNotFound(service_id=service_id),
                            models.ComputeNode.service_id == service_id)

    @base.remotable_classmethod
    def get_by_host_and_nodename(cls, context, host, nodename):
        return cls._get_one(
            context, exception.ComputeHostNotFound(host=host),
            models.ComputeNode.host == host,
            models.ComputeNode.hypervisor_hostname == nodename)

    @base.remotable_classmethod
    def get_by_nodename(cls, context, hypervisor_hostname):
        return cls._get_one(
            context, exception.ComputeHostNotFound(host=hypervisor_hostname),
            models.ComputeNode.hypervisor_hostname == hypervisor_hostname)

    @base.remotable_classmethod
    def get_first_node_by_host_for_old_compat(cls, context, host,
                                              use_slave=False):
        return cls._get_one(context,
                            exception.ComputeHostNotFound(host=host),
                            models.ComputeNode.host == host)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = self._values_for_db()
        values.setdefault("uuid", uuidutils.generate_uuid())
        values.setdefault("cpu_info", "{}")

        def _dup(exc):
            return exception.DuplicateRecord(target=values.get("uuid"))

        with h.translate_duplicates(_dup):
            with h.cell_writer(self._context) as s:
                row = models.ComputeNode(**values)
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    @h.retry_on_deadlock
    def save(self, prune_stats=False):
        # As Nova 34: prune_stats is ignored (its "no longer relevant"), the
        # stats given replace the column, updated_at is always stamped (so
        # a scheduler caching nodes by updated_at sees every save) and a
        # node missing under the context's read_deleted is
        # ComputeHostNotFound.
        changes = self.obj_get_changes()
        values = self._values_for_db(changes)
        values["updated_at"] = timeutils.utcnow()
        mode = getattr(self._context, "read_deleted", "no")
        with h.cell_core_writer(self._context) as s:
            conn = s.connection()
            if self._known_after(changes, mode) and self._save_guarded(
                    conn, values):
                return
            self._save_read(conn, values, mode)

    def _known_after(self, changes, mode):
        """Whether the object, with what save writes, is what Nova's
        re-read row would give: every field set, nothing left unwritten
        (stats None, no host_ip keep the column's value), and the object
        as live as the row the guarded UPDATE matches (deleted == 0)."""
        if mode != "no" or changes.get("stats", {}) is None or (
                "host_ip" in changes and not changes["host_ip"]):
            return False
        return all(self.obj_attr_is_set(name) for name in self.fields) \
            and not self.deleted and self.deleted_at is None

    def _save_guarded(self, conn, values):
        """One UPDATE of the live row, matching only while ``mapped`` (the
        one column another writer sets: discover_hosts) still holds what
        the object has; the object is then what a re-read gives, without
        reading. False (nothing written): deleted, or mapped moved."""
        guard = "mapped" not in values
        params = _params(self.id, values)
        if guard:
            params["c_mapped"] = self.mapped
        if conn.execute(_update_statement(tuple(sorted(values)), "no",
                                          guard), params).rowcount != 1:
            return False
        for kind in ("cpu", "ram", "disk"):
            name = "%s_allocation_ratio" % kind
            if name in values and not values[name]:
                setattr(self, name, _initial_ratio(kind))
        self.updated_at = values["updated_at"]
        self.obj_reset_changes(recursive=True)
        return True

    def _save_read(self, conn, values, mode):
        """Nova's compute_node_update: read the row (context's
        read_deleted), write the values, and the object is the row read
        with the values over it."""
        found = conn.execute(_select_statement(mode),
                             {"w_id": self.id}).first()
        if found is None:
            raise exception.ComputeHostNotFound(host=self.id)
        conn.execute(_update_statement(tuple(sorted(values)), mode, False),
                     _params(self.id, values))
        self._from_db_object(self._context, self, h.RowValues(
            models.ComputeNode, found._mapping, values))

    @base.remotable
    def destroy(self):
        with h.cell_writer(self._context) as s:
            row = s.get(models.ComputeNode, self.id)
            if row is None or row.deleted:
                raise exception.ComputeHostNotFound(host=self.id)
            h.soft_delete_row(row)


def _deleted_filter(stmt, table, mode):
    if mode == "no":
        return stmt.where(table.c.deleted == 0)
    if mode == "only":
        return stmt.where(table.c.deleted != 0)
    return stmt


@functools.lru_cache(maxsize=4)
def _select_statement(mode):
    """ComputeNode.save's read of the row (its rare path), built once."""
    table = models.ComputeNode.__table__
    return _deleted_filter(sa.select(table).where(
        table.c.id == sa.bindparam("w_id")), table, mode)


@functools.lru_cache(maxsize=128)
def _update_statement(names, mode, guard_mapped):
    """ComputeNode.save's UPDATE of columns ``names``, built once per
    column set; ``guard_mapped``: only while mapped (NULL read as 0, as
    the object does) equals ``c_mapped``."""
    table = models.ComputeNode.__table__
    stmt = _deleted_filter(sa.update(table).where(
        table.c.id == sa.bindparam("w_id")), table, mode)
    if guard_mapped:
        stmt = stmt.where(sa.func.coalesce(table.c.mapped, 0) ==
                          sa.bindparam("c_mapped"))
    return stmt.values({table.c[name]: sa.bindparam("v_" + name)
                        for name in names})


def _params(node_id, values):
    params = {"v_" + k: v for k, v in values.items()}
    params["w_id"] = node_id
    return params


@functools.lru_cache(maxsize=8)
def _scheduling_query(binary, by_uuid):
    """The statement of ``get_scheduling_rows``, built once."""
    node, svc = models.ComputeNode, models.Service
    heartbeat = sa.type_coerce(
        sa.func.coalesce(svc.last_seen_up, svc.created_at),
        sa.DateTime()).label("last_seen_up")
    query = (sa.select(
        node.uuid,
        sa.func.coalesce(node.updated_at, node.created_at).label(
            "node_version"),
        node.host, svc.id, svc.uuid.label("service_uuid"),
        svc.disabled, svc.disabled_reason, svc.forced_down, heartbeat,
        svc.version)
        .select_from(node)
        .outerjoin(svc, sa.and_(svc.host == node.host,
                                svc.binary == binary,
                                svc.deleted == 0))
        .where(node.deleted == 0))
    if by_uuid:
        query = query.where(
            node.uuid.in_(sa.bindparam("uuids", expanding=True)))
    return query


@functools.lru_cache(maxsize=1)
def _scheduling_details_query():
    """The statement of ``get_scheduling_details``, built once."""
    node = models.ComputeNode
    return sa.select(*(getattr(node, name) for name in _DETAIL_COLUMNS)) \
        .where(node.deleted == 0,
               node.uuid.in_(sa.bindparam("uuids", expanding=True)))


# What a scheduler's host state takes from a node row (not the PCI pools,
# NUMA topology or metrics: no keel filter or weigher reads them).
_DETAIL_COLUMNS = (
    "uuid", "host", "hypervisor_hostname", "memory_mb", "memory_mb_used",
    "local_gb", "local_gb_used", "vcpus", "vcpus_used",
    "cpu_allocation_ratio", "ram_allocation_ratio", "disk_allocation_ratio",
    "hypervisor_type", "hypervisor_version", "cpu_info",
    "supported_instances", "stats")


def _nullable_strings(stats):
    """``stats`` as the object's DictOfNullableStringsField holds it."""
    return {str(k): (None if v is None else str(v))
            for k, v in (stats or {}).items()}


@base.KeelObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.17'

    fields = {
        'objects': fields.ListOfObjectsField('ComputeNode'),
    }

    @classmethod
    def _query(cls, context, *where):
        with h.cell_reader(context) as s:
            stmt = sa.select(models.ComputeNode).where(*where) \
                .order_by(models.ComputeNode.id)
            rows = s.execute(h.filter_deleted(stmt, models.ComputeNode,
                                              context)).scalars().all()
            return base.obj_make_list(context, cls(context), ComputeNode,
                                      rows)

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._query(context)

    @base.remotable_classmethod
    def get_by_pagination(cls, context, limit=None, marker=None):
        """Ordered by id; ``marker`` is the id of the last node seen."""
        node = models.ComputeNode
        with h.cell_reader(context) as s:
            marker_row = None
            if marker is not None:
                marker_row = s.execute(h.filter_deleted(
                    sa.select(node).where(node.id == marker), node,
                    context)).scalars().first()
                if marker_row is None:
                    raise exception.MarkerNotFound(marker=marker)
            stmt = h.paginate(h.filter_deleted(sa.select(node), node,
                                               context),
                              node, ["id"], ["asc"], limit=limit,
                              marker_row=marker_row)
            rows = s.execute(stmt).scalars().all()
            return base.obj_make_list(context, cls(context), ComputeNode,
                                      rows)

    @base.remotable_classmethod
    def _get_by_service(cls, context, service_id, use_slave=False):
        return cls._query(context, models.ComputeNode.service_id == service_id)

    @base.remotable_classmethod
    def get_all_by_uuids(cls, context, compute_uuids):
        return cls._query(context,
                          models.ComputeNode.uuid.in_(compute_uuids))

    @base.remotable_classmethod
    def get_all_by_not_mapped(cls, context, mapped_less_than):
        return cls._query(context,
                          sa.or_(models.ComputeNode.mapped.is_(None),
                                 models.ComputeNode.mapped <
                                 mapped_less_than))

    @base.remotable_classmethod
    def get_by_hypervisor(cls, context, hypervisor_match):
        pattern = "%%%s%%" % hypervisor_match
        return cls._query(
            context, models.ComputeNode.hypervisor_hostname.like(pattern))

    @classmethod
    def get_by_hypervisor_type(cls, context, hv_type):
        return cls._query(context,
                          models.ComputeNode.hypervisor_type == hv_type)

    @base.remotable_classmethod
    def get_all_by_host(cls, context, host, use_slave=False):
        nodes = cls._query(context, models.ComputeNode.host == host)
        if not nodes:
            raise exception.ComputeHostNotFound(host=host)
        return nodes

    @classmethod
    def get_scheduling_rows(cls, context, compute_uuids,
                            binary="nova-compute"):
        """``{uuid: (version, host, service)}`` of the live nodes, from one
        query joining each node to its compute service: ``version`` is the
        node's updated_at or created_at as the database returns it (a
        reader reloads a node only when it moves), ``service`` a dict of
        what liveness checks read, or None when the node has no live
        service.  The heartbeat is one coalesced column so each row parses
        one timestamp, not three (the scheduler reads a thousand rows per
        request).  ``compute_uuids`` None reads every node of the cell:
        cheaper than a thousand-entry IN list when the caller wants most."""
        query = _scheduling_query(binary, compute_uuids is not None)
        params = {} if compute_uuids is None else {
            "uuids": list(compute_uuids)}
        found = {}
        with h.cell_reader(context) as s:
            # Core rows (no ORM row processing) unpacked as tuples: access
            # by name costs more per row than the query itself.
            for (uuid, version, host, svc_id, svc_uuid, disabled, reason,
                 forced_down, seen, svc_version) in s.connection().execute(
                    query, params).fetchall():
                service = None
                if svc_id is not None:
                    service = {
                        "id": svc_id, "uuid": svc_uuid, "host": host,
                        "binary": binary, "disabled": disabled,
                        "disabled_reason": reason,
                        "forced_down": forced_down, "last_seen_up": seen,
                        "version": svc_version}
                found[uuid] = (version, host, service)
        return found

    @classmethod
    def get_scheduling_details(cls, context, compute_uuids):
        """``{uuid: {field: value}}`` of the live nodes among
        ``compute_uuids``: what a scheduler's host state is built from,
        with the values a ComputeNode would hold (an unset allocation ratio
        resolved, the stats as strings, ``supported_hv_specs`` as
        ``(arch, hv_type, vm_mode)`` tuples).  One Core statement built
        once and no objects: the scheduler reloads every node whose row
        moved, on every decision."""
        found = {}
        with h.cell_reader(context) as s:
            rows = s.connection().execute(
                _scheduling_details_query(),
                {"uuids": list(compute_uuids)}).fetchall()
        for row in rows:
            values = dict(zip(_DETAIL_COLUMNS, row))
            for kind in ("cpu", "ram", "disk"):
                name = "%s_allocation_ratio" % kind
                value = values[name]
                values[name] = float(value) if value else float(
                    _initial_ratio(kind))
            values["hypervisor_version"] = int(values["hypervisor_version"])
            stats = values.pop("stats")
            values["stats"] = _nullable_strings(
                jsonutils.loads(stats) if stats else {})
            specs = values.pop("supported_instances")
            values["supported_hv_specs"] = [
                tuple(spec) for spec in jsonutils.loads(specs or "[]")]
            found[values["uuid"]] = values
        return found

    @classmethod
    def get_versions_by_uuids(cls, context, compute_uuids):
        """``{uuid: updated_at or created_at}`` of the live nodes: one
        light query (no objects) so a reader can keep a cache of the
        nodes and reload only those that changed (the scheduler)."""
        node = models.ComputeNode
        with h.cell_reader(context) as s:
            rows = s.execute(sa.select(
                node.uuid, node.updated_at, node.created_at).where(
                node.uuid.in_(compute_uuids), node.deleted == 0))
            return {uuid: updated or created
                    for uuid, updated, created in rows}
