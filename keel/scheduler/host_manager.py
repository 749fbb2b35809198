"""Host states: what the filters and weighers know about each candidate.

A scheduling request loads the compute nodes Placement returned (by
provider uuid), their compute services and the uuids of the instances on
those hosts with one query each per cell (cells in parallel); the host
aggregates come from the scheduler's copy (aggregates.py).  Usage comes
from Placement's provider summaries when they have it (fresher than the
compute node rows).
"""
import collections
import datetime
import logging
import math
import threading
import time

from oslo_utils import timeutils

from keel.conf import CONF
from keel.db import cells as cells_db
from keel.scheduler import aggregates as sched_aggregates

LOG = logging.getLogger(__name__)

COMPUTE_BINARY = "nova-compute"


class HostState:
    """One compute node as a scheduling candidate."""

    def __init__(self, host, nodename, cell_uuid):
        self.host = host
        self.nodename = nodename
        self.cell_uuid = cell_uuid
        self.uuid = None
        self.service = None
        self.free_ram_mb = 0
        self.total_usable_ram_mb = 0
        self.free_disk_mb = 0
        self.total_usable_disk_gb = 0
        self.vcpus_total = 0
        self.vcpus_used = 0
        self.cpu_allocation_ratio = 1.0
        self.ram_allocation_ratio = 1.0
        self.disk_allocation_ratio = 1.0
        self.hypervisor_type = None
        self.hypervisor_version = None
        self.hypervisor_hostname = None
        self.cpu_info = None
        self.supported_instances = []
        self.stats = {}
        self.num_instances = 0
        self.num_io_ops = 0
        self.failed_builds = 0
        self.aggregates = []
        self.instances = {}
        self.limits = {}
        self.availability_zone = CONF.default_availability_zone
        self.allocation_candidates = []
        self._traits = ()

    @property
    def traits(self):
        """Placement's traits of the root provider (a set made on first
        use: no filter reads them, and a request builds 1,000 states)."""
        traits = self._traits
        if not isinstance(traits, set):
            traits = self._traits = set(traits)
        return traits

    @traits.setter
    def traits(self, value):
        self._traits = value

    def __repr__(self):
        return "(%s, %s) ram: %sMB disk: %sMB vcpus: %s/%s instances: %s" % (
            self.host, self.nodename, self.free_ram_mb, self.free_disk_mb,
            self.vcpus_used, self.vcpus_total, self.num_instances)

    def copy(self):
        """A per-request copy (fresh containers for what requests fill)."""
        # __dict__ copy: copy.copy's reduce protocol costs several times
        # more, and a request copies every candidate host.
        state = HostState.__new__(HostState)
        values = state.__dict__ = self.__dict__.copy()
        values["limits"] = {}
        values["instances"] = {}
        values["aggregates"] = []
        values["allocation_candidates"] = []
        return state

    def update_from_compute_node(self, node):
        """From a node's ``ComputeNodeList.get_scheduling_details`` entry
        (a mapping of ComputeNode field names)."""
        self.uuid = node["uuid"]
        self.hypervisor_hostname = node["hypervisor_hostname"]
        self.total_usable_ram_mb = node["memory_mb"]
        self.free_ram_mb = node["memory_mb"] - node["memory_mb_used"]
        self.total_usable_disk_gb = node["local_gb"]
        self.free_disk_mb = (node["local_gb"] - node["local_gb_used"]) * 1024
        self.vcpus_total = node["vcpus"]
        self.vcpus_used = node["vcpus_used"]
        self.cpu_allocation_ratio = node["cpu_allocation_ratio"]
        self.ram_allocation_ratio = node["ram_allocation_ratio"]
        self.disk_allocation_ratio = node["disk_allocation_ratio"]
        self.hypervisor_type = node["hypervisor_type"]
        self.hypervisor_version = node["hypervisor_version"]
        self.cpu_info = node["cpu_info"]
        self.supported_instances = list(node["supported_hv_specs"])
        self.stats = dict(node["stats"])
        self.num_instances = int(self.stats.get("num_instances", 0) or 0)
        self.failed_builds = int(self.stats.get("failed_builds", 0) or 0)
        self.num_io_ops = int(self.stats.get("io_workload", 0) or 0)

    def consume_from_request(self, spec):
        """Account for an instance just placed here (multi-create)."""
        flavor = spec.flavor
        disk_gb = flavor.ephemeral_gb + (0 if getattr(spec, "is_bfv", False)
                                         else flavor.root_gb)
        disk_gb += int(math.ceil((flavor.swap or 0) / 1024.0))
        self.free_ram_mb -= flavor.memory_mb
        self.free_disk_mb -= disk_gb * 1024
        self.vcpus_used += flavor.vcpus
        self.num_instances += 1


def _load_cell(cctxt, node_uuids, wanted, full_cells, templates, tracked):
    """One cell's part of a request, in at most three light queries: the
    nodes with their compute services (versions and liveness, read fresh
    every time: an admin's enable or disable counts at once), the nodes
    whose version moved since their entry in ``templates`` ({uuid:
    (version, HostState)}), and the instance uuids of the hosts not in
    ``tracked``.  In ``full_cells`` (most of their nodes are wanted) every
    node is read and the unwanted dropped here (and, when most hosts need
    them, every instance): cheaper than an IN list of a thousand uuids."""
    from keel.db import session as db_session

    # One read transaction for the cell's two or three queries (the object
    # methods join it): one pooled connection and one rollback, not three.
    with db_session.cell_reader(cctxt):
        return _read_cell(cctxt, node_uuids, wanted, full_cells, templates,
                          tracked)


def _read_cell(cctxt, node_uuids, wanted, full_cells, templates, tracked):
    from keel import objects

    full = getattr(cctxt, "cell_uuid", None) in full_cells
    found = objects.ComputeNodeList.get_scheduling_rows(
        cctxt, None if full else node_uuids)
    # One pass: drop the unwanted (a whole cell was read), note the nodes
    # whose version moved and the hosts.
    rows, stale, hosts = {}, [], set()
    get_template = templates.get
    for u, row in found.items():
        if full and u not in wanted:
            continue
        rows[u] = row
        hosts.add(row[1])
        entry = get_template(u)
        if entry is None or entry[0] is None or entry[0] != row[0]:
            stale.append(u)
    loaded = {}
    if stale:
        loaded = objects.ComputeNodeList.get_scheduling_details(cctxt, stale)
    need = hosts - tracked
    if not need:
        instances = {}
    elif full and 2 * len(need) >= len(hosts):
        # Most hosts of the cell: all its instances, no IN list (those of
        # the other hosts are not looked at).
        instances = objects.InstanceList.get_uuids_by_hosts(cctxt, None)
    else:
        instances = objects.InstanceList.get_uuids_by_hosts(
            cctxt, sorted(need))
    return rows, loaded, instances


def _load_one(ctxt, cell, *args):
    from keel import context as keel_context

    try:
        with keel_context.target_cell(ctxt, cell) as cctxt:
            return _load_cell(cctxt, *args)
    except Exception as exc:  # noqa: BLE001 - a cell failure, as below
        LOG.exception("Error loading the hosts of cell %s", cell.uuid)
        return exc


# A node row's version (updated_at, or created_at) only tells two writes
# apart when they fall in different units of the column: MariaDB's DATETIME
# keeps whole seconds, so a write in the second of the version we read may
# not move it.  A template read from a row whose version has no fraction
# and is not SETTLE_SECONDS older than the read (one second of truncation,
# one of clock difference between the writer and us) is read again by the
# next decision, until a read comes after that second is over.
SETTLE_SECONDS = 2.0


def _trusted_version(version, read_at):
    """``version`` if a later write is bound to change it, else None (the
    template is re-read next time)."""
    if not isinstance(version, datetime.datetime):
        return None
    if version.microsecond:
        return version        # the database keeps fractions of a second
    if (read_at - version).total_seconds() >= SETTLE_SECONDS:
        return version
    return None


# Claims this scheduler made in the last RECENT_CLAIM_SECONDS are taken off
# the hosts' free resources.  Requests handled at the same time read the
# same Placement usage, so without this every one of a burst of boots picks
# the same "emptiest" host (Nova's scheduler shares its host states between
# requests for the same reason).  Once Placement's usage includes a claim
# it is counted twice until it expires: a short bias on the weighers only
# -- capacity itself is Placement's to enforce.
RECENT_CLAIM_SECONDS = 2.0


class HostManager:
    """Host states of a request.  The part that comes from the compute
    node row is kept between requests and rebuilt only when the row's
    ``updated_at`` moves (see SETTLE_SECONDS); services, instances and
    Placement usage are read fresh every time (aggregates: see
    aggregates.py)."""

    def __init__(self, instance_view=None):
        self.instance_view = instance_view
        self._cells = None
        self._templates = {}     # node uuid -> (version, HostState)
        self._known = collections.Counter()   # cell uuid -> templates
        self._recent = collections.deque()   # (time, node uuid, spec)
        self._recent_lock = threading.Lock()

    def reset(self):
        self._cells = None
        self._templates = {}
        self._known = collections.Counter()
        with self._recent_lock:
            self._recent.clear()

    def note_claim(self, node_uuid, spec):
        """A claim just made on ``node_uuid`` for one instance of ``spec``."""
        with self._recent_lock:
            self._recent.append((time.monotonic(), node_uuid, spec))

    def _recent_claims(self):
        cutoff = time.monotonic() - RECENT_CLAIM_SECONDS
        by_node = {}
        with self._recent_lock:
            while self._recent and self._recent[0][0] < cutoff:
                self._recent.popleft()
            for _, node_uuid, spec in self._recent:
                by_node.setdefault(node_uuid, []).append(spec)
        return by_node

    def cells(self, ctxt, refresh=False):
        from keel import objects

        if self._cells is None or refresh:
            self._cells = [c for c in objects.CellMappingList.get_all(ctxt)
                           if c.uuid != objects.CellMapping.CELL0_UUID]
        return self._cells

    def _cells_for(self, ctxt, spec):
        dest = spec.requested_destination if spec is not None and \
            spec.obj_attr_is_set("requested_destination") else None
        cell = dest.cell if dest is not None and dest.obj_attr_is_set(
            "cell") else None
        if cell is not None:
            return [cell]
        return self.cells(ctxt)

    def get_host_states_by_uuids(self, ctxt, node_uuids, spec=None,
                                 provider_summaries=None, aggregates=None,
                                 candidates=None):
        """Per-request host states of ``node_uuids``; ``candidates`` ({node
        uuid: [allocation request]}) fills their allocation_candidates,
        ``provider_summaries`` ({uuid: placement_candidates.Summary}) their
        usage and traits."""
        from keel import objects

        node_uuids = list(node_uuids)
        if not node_uuids:
            return []
        view = self.instance_view
        tracked = view.updated_hosts() if view else set()
        templates = self._templates
        # Taken before the reads: earlier than any row they return.
        read_at = timeutils.utcnow().replace(tzinfo=None)
        wanted = set(node_uuids)
        args = (node_uuids, wanted, self._full_cells(node_uuids, wanted),
                templates, tracked)
        cells = self._cells_for(ctxt, spec)
        if len(cells) == 1:
            # One cell: no fan-out thread to hand the work to and wait on.
            results = {cells[0].uuid: _load_one(ctxt, cells[0], *args)}
        else:
            results = cells_db.scatter_gather_cells(ctxt, cells, None,
                                                    _load_cell, *args)
        if aggregates is None:
            aggregates = objects.AggregateList.get_all(ctxt)
        if not isinstance(aggregates, sched_aggregates.Snapshot):
            aggregates = sched_aggregates.Snapshot(dict(enumerate(aggregates)))
        # Built once per change of the aggregates, not per request.
        aggs_by_host, zones_by_host = aggregates.by_host, aggregates.zones
        summaries = provider_summaries or {}
        recent = self._recent_claims()
        states = []
        for cell_uuid, result in results.items():
            if cells_db.is_cell_failure_sentinel(result):
                LOG.warning("Cell %s did not answer (%s); its hosts are "
                            "not considered", cell_uuid, result)
                continue
            rows, loaded, instances = result
            for uuid, node in loaded.items():
                tpl = HostState(node["host"], node["hypervisor_hostname"],
                                cell_uuid)
                tpl.update_from_compute_node(node)
                if uuid not in templates:
                    self._known[cell_uuid] += 1
                templates[uuid] = (
                    _trusted_version(rows[uuid][0], read_at), tpl)
            self._build_states(states, rows, summaries, aggs_by_host,
                               zones_by_host, tracked, view, instances,
                               recent, candidates or {})
        return states

    def _build_states(self, states, rows, summaries, aggs_by_host,
                      zones_by_host, tracked, view, instances, recent,
                      candidates):
        """One per-request HostState per row: the template's copy with this
        request's service, Placement usage (the provider summary's used
        amounts and traits), aggregates, instances and allocation
        candidates (the copy written out inline, the lookups bound once:
        this loop runs for every candidate of every decision)."""
        get_template = self._templates.get
        get_summary = summaries.get
        get_aggs = aggs_by_host.get
        get_instances = instances.get
        get_candidates = candidates.get
        new_state = HostState.__new__
        append = states.append
        for uuid, (_, host, service) in rows.items():
            entry = get_template(uuid)
            if entry is None:
                continue
            state = new_state(HostState)
            values = state.__dict__ = entry[1].__dict__.copy()
            values["service"] = service
            values["limits"] = {}
            values["allocation_candidates"] = get_candidates(uuid) or []
            summary = get_summary(uuid)
            if summary is not None:
                resources = summary.resources
                mem = resources.get("MEMORY_MB")
                if mem is not None:
                    values["free_ram_mb"] = (values["total_usable_ram_mb"]
                                             - mem.used)
                cpu = resources.get("VCPU")
                if cpu is not None:
                    values["vcpus_used"] = cpu.used
                disk = resources.get("DISK_GB")
                if disk is not None:
                    values["free_disk_mb"] = (
                        values["total_usable_disk_gb"] - disk.used) * 1024
                values["_traits"] = summary.traits
            aggs = get_aggs(host)
            if aggs:
                values["aggregates"] = aggs
                zones = zones_by_host.get(host)
                if zones:
                    values["availability_zone"] = zones
            else:
                values["aggregates"] = []
            if host in tracked:
                inst = view.instances(host)
            else:
                uuids = get_instances(host)
                inst = dict.fromkeys(uuids) if uuids else {}
            values["instances"] = inst
            if len(inst) > values["num_instances"]:
                values["num_instances"] = len(inst)
            if recent:
                for claimed in recent.get(uuid, ()):
                    state.consume_from_request(claimed)
            append(state)

    def _full_cells(self, node_uuids, wanted=None):
        """The cells most of whose known nodes are among ``node_uuids``
        (``wanted``: the same as a set, if the caller has it): reading all
        their nodes beats a long IN list."""
        templates = self._templates
        if len(self._known) == 1:
            # One cell (the usual deployment): count with a C-level set
            # intersection rather than a thousand lookups.
            (cell, known), = self._known.items()
            if wanted is None:
                wanted = set(node_uuids)
            count = len(templates.keys() & wanted)
            return {cell} if count and 2 * count >= known else set()
        wanted = collections.Counter()
        for uuid in node_uuids:
            entry = templates.get(uuid)
            if entry is not None:
                wanted[entry[1].cell_uuid] += 1
        return {cell for cell, count in wanted.items()
                if 2 * count >= self._known[cell]}


def strip_ignored_and_forced(host_states, spec):
    """Drop ``ignore_hosts``; with ``force_hosts`` / ``force_nodes`` keep
    only those.  Returns (hosts, forced) — forced hosts skip the filters."""
    def names(field):
        if not spec.obj_attr_is_set(field):
            return []
        return [n.lower() for n in getattr(spec, field) or []]

    ignore = set(names("ignore_hosts"))
    if ignore:
        hosts = [h for h in host_states if h.host.lower() not in ignore]
    else:
        hosts = list(host_states)
    force_hosts, force_nodes = set(names("force_hosts")), set(
        names("force_nodes"))
    if not (force_hosts or force_nodes):
        return hosts, False
    if force_hosts:
        hosts = [h for h in hosts if h.host.lower() in force_hosts]
    if force_nodes:
        hosts = [h for h in hosts if h.nodename.lower() in force_nodes]
    return hosts, True
