"""One scheduling decision: Placement candidates → filters → weighers →
claim, with alternates for reschedules.

1. The request filters narrow the request (zone and tenant aggregates,
   image type and disabled-compute traits), then the request becomes a
   ``GET /allocation_candidates`` query.
2. The candidates' root providers are compute nodes; their host states
   are loaded in one batch.
3. For each instance: filter, weigh, pick one of the best
   ``host_subset_size`` hosts at random, then claim its allocation request
   with ``PUT /allocations/{instance}``; a refused claim (the capacity went
   to someone else since the query) moves on to the next host.
4. If not every instance got a host, the claims made so far are dropped
   and NoValidHost is raised.
"""
import logging
import random

from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel.clients import placement_candidates
from keel.scheduler import aggregates as sched_aggregates
from keel.scheduler import filters as host_filters
from keel.scheduler import gcpause
from keel.scheduler import host_manager as hm
from keel.scheduler import request_filter
from keel.scheduler import resource_request
from keel.scheduler import weighers as host_weighers

LOG = logging.getLogger(__name__)

NOT_ENOUGH_HOSTS = "There are not enough hosts available."


class Scheduler:

    def __init__(self, report_client=None, instance_view=None,
                 aggregate_view=None):
        self._report = report_client
        # The manager's view follows the API's fanout casts; alone (tests,
        # bench/scheduler.py) the driver keeps its own, re-read on a timer.
        self.aggregates = aggregate_view or sched_aggregates.AggregateView()
        self.host_manager = hm.HostManager(instance_view)
        self._filters = None
        self._filter_conf = None
        self._weighers = None
        self._weigher_conf = None

    # -- collaborators --
    @property
    def report(self):
        if self._report is None:
            from keel.clients import report
            self._report = report.ReportClient()
        return self._report

    def filters(self):
        conf = (tuple(CONF.filter_scheduler.enabled_filters),
                tuple(CONF.filter_scheduler.available_filters))
        if conf != self._filter_conf:
            self._filters = host_filters.load_filters(*conf)
            self._filter_conf = conf
        return self._filters

    def weighers(self):
        conf = tuple(CONF.filter_scheduler.weight_classes)
        if conf != self._weigher_conf:
            self._weighers = host_weighers.load_weighers(conf)
            self._weigher_conf = conf
        return self._weighers

    # -- the request --
    def build_request(self, ctxt, spec, aggregates):
        """Run the request filters; the ResourceRequest to send."""
        request_filter.process_request_spec(ctxt, spec, lambda: aggregates)
        in_tree = self._forced_node_uuid(ctxt, spec)
        unlimited = in_tree is not None or _forced(spec) or _has_dest_host(
            spec)
        rr = resource_request.ResourceRequest.from_request_spec(
            spec, limit=None if unlimited
            else CONF.scheduler.max_placement_results)
        if in_tree:
            rr.groups[""].in_tree = in_tree
        return rr

    def _forced_node_uuid(self, ctxt, spec):
        """The compute node of a requested or single forced destination."""
        from keel import objects

        host = node = None
        if _has_dest_host(spec):
            dest = spec.requested_destination
            host = dest.host
            node = dest.node if dest.obj_attr_is_set("node") else None
        else:
            hosts = (spec.force_hosts or []) if spec.obj_attr_is_set(
                "force_hosts") else []
            nodes = (spec.force_nodes or []) if spec.obj_attr_is_set(
                "force_nodes") else []
            if len(hosts) == 1:
                host = hosts[0]
            if len(nodes) == 1:
                node = nodes[0]
            if host is None:
                return None
        try:
            mapping = objects.HostMapping.get_by_host(ctxt, host)
            with keel_context.target_cell(
                    ctxt, mapping.cell_mapping) as cctxt:
                found = objects.ComputeNodeList.get_all_by_host(cctxt, host)
        except (exception.HostMappingNotFound,
                exception.ComputeHostNotFound):
            LOG.info("Requested host %s is not a known compute host", host)
            raise exception.NoValidHost(reason="")
        if node:
            found = [n for n in found if n.hypervisor_hostname == node]
        if len(found) != 1:
            return None
        return found[0].uuid

    def get_candidates(self, ctxt, rr):
        """(allocation requests by root provider uuid, summaries by provider
        uuid, version); requests and summaries are the structs of
        ``placement_candidates`` (``as_dict`` makes a request Nova's
        dict)."""
        try:
            found = self.report.placement.get_candidates_for_scheduling(
                ctxt, rr.to_query(), version=rr.microversion)
        except exception.PlacementAPIConnectFailure:
            LOG.error("Placement API service is not responding.")
            raise exception.NoValidHost(reason="")
        version = rr.microversion
        summaries = found.provider_summaries if found is not None else {}
        if found is None or not found.allocation_requests:
            LOG.info("Got no allocation candidates from the Placement API. "
                     "This could be due to insufficient resources or a "
                     "temporary occurrence as compute nodes start up.")
            return {}, summaries, version
        by_root = {}
        get_summary = summaries.get
        get_found = by_root.get
        for areq in found.allocation_requests:
            allocs = areq.allocations
            if len(allocs) == 1:
                # The common case (a request on one compute node provider):
                # no set of roots to build.
                rp, = allocs
                summary = get_summary(rp)
                root = (summary.root_provider_uuid or rp) if summary \
                    else rp
                same_root = get_found(root)
                if same_root is None:
                    by_root[root] = [areq]
                else:
                    same_root.append(areq)
                continue
            roots = set()
            for rp in allocs:
                summary = get_summary(rp)
                roots.add((summary.root_provider_uuid or rp) if summary
                          else rp)
            for root in roots:
                by_root.setdefault(root, []).append(areq)
        return by_root, summaries, version

    # -- selection --
    def select_destinations(self, ctxt, spec, instance_uuids,
                            return_alternates=False):
        """A list (one per instance) of lists of (HostState, allocation
        request, version): the claimed host first, then alternates."""
        with gcpause.paused():
            return self._select_destinations(ctxt, spec, instance_uuids,
                                             return_alternates)

    def _select_destinations(self, ctxt, spec, instance_uuids,
                             return_alternates):
        snap = self.aggregates.snapshot(ctxt)
        aggregates = snap.aggregates
        if is_rebuild(spec):
            # The instance stays where it is and keeps its allocations:
            # only the filters run, against its current node.
            node = self._forced_node_uuid(ctxt, spec)
            if node is None:
                raise exception.NoValidHost(reason="")
            return self._rebuild_check(ctxt, spec, node, snap)
        rr = self.build_request(ctxt, spec, aggregates)
        by_root, summaries, version = self.get_candidates(ctxt, rr)
        if not by_root:
            raise exception.NoValidHost(reason="")
        states = self.host_manager.get_host_states_by_uuids(
            ctxt, list(by_root), spec, summaries, aggregates=snap,
            candidates=by_root)
        num = len(instance_uuids) if instance_uuids else spec.num_instances
        uuids = list(instance_uuids) if instance_uuids else [None] * num
        picked = []           # (host_state, alloc_req, weighed hosts)
        try:
            for index, instance_uuid in enumerate(uuids):
                choice = self._place_one(ctxt, spec, states, index,
                                         instance_uuid, version)
                if choice is None:
                    break
                picked.append(choice)
                # The next instance starts from the hosts that passed for
                # this one (filters run once per request stay applied).
                states = choice[2]
            if len(picked) < num:
                raise exception.NoValidHost(reason=NOT_ENOUGH_HOSTS)
        except Exception:
            self._drop_claims(ctxt, [u for u, _ in zip(uuids, picked) if u])
            raise
        total = CONF.scheduler.max_attempts if return_alternates else 1
        return [self._with_alternates(host, areq, weighed, total, version)
                for host, areq, weighed in picked]

    def _rebuild_check(self, ctxt, spec, node_uuid, snap):
        states = self.host_manager.get_host_states_by_uuids(
            ctxt, [node_uuid], spec, aggregates=snap)
        hosts = host_filters.run_filters(self.filters(), states, spec)
        if not hosts:
            raise exception.NoValidHost(reason=NOT_ENOUGH_HOSTS)
        return [[(hosts[0], None, None)]]

    def _place_one(self, ctxt, spec, states, index, instance_uuid, version):
        hosts, forced = hm.strip_ignored_and_forced(states, spec)
        if not forced:
            hosts = host_filters.run_filters(self.filters(), hosts, spec,
                                             index)
        if not hosts:
            return None
        weighed = host_weighers.order_hosts(self.weighers(), hosts, spec)
        subset = min(CONF.filter_scheduler.host_subset_size, len(weighed))
        first = random.choice(weighed[:subset])
        ordered = [first] + [h for h in weighed if h is not first]
        for host in ordered:
            if not host.allocation_candidates:
                continue
            areq = placement_candidates.as_dict(
                host.allocation_candidates[0])
            if instance_uuid is None or self._claim(
                    ctxt, spec, instance_uuid, areq, version):
                self._consume(spec, host, instance_uuid)
                return host, areq, ordered
        LOG.debug("Unable to successfully claim against any host.")
        return None

    def _claim(self, ctxt, spec, instance_uuid, areq, version):
        project_id = spec.project_id or ctxt.project_id
        user_id = spec.user_id or ctxt.user_id
        try:
            # A new instance is a new consumer: one PUT, no read first.
            return self.report.claim_resources(
                ctxt, instance_uuid, areq, project_id, user_id,
                consumer_generation=None)
        except exception.AllocationUpdateFailed:
            pass
        # The consumer exists (an evacuation or forced move keeps its
        # source allocations): claim the destination on top of them.
        current = self.report.get_allocs_for_consumer(ctxt, instance_uuid)
        merged = merge_allocations(current.get("allocations") or {},
                                   areq["allocations"])
        try:
            return self.report.put_allocations(
                ctxt, instance_uuid, merged, project_id, user_id,
                current.get("consumer_generation"))
        except exception.AllocationUpdateFailed as exc:
            LOG.warning("Claim for %s refused: %s", instance_uuid, exc)
            return False

    def _consume(self, spec, host, instance_uuid):
        host.consume_from_request(spec)
        if instance_uuid:
            host.instances[instance_uuid] = None
            self.host_manager.note_claim(host.uuid, spec)
        group = spec.instance_group if spec.obj_attr_is_set(
            "instance_group") else None
        if group is None:
            return
        hosts = list(group.hosts or []) if group.obj_attr_is_set(
            "hosts") else []
        if host.host not in hosts:
            group.hosts = hosts + [host.host]
        members = list(group.members or []) if group.obj_attr_is_set(
            "members") else []
        if instance_uuid and instance_uuid not in members:
            group.members = members + [instance_uuid]
        group.obj_reset_changes(["hosts", "members"])

    def _with_alternates(self, host, areq, weighed, total, version):
        chosen = [(host, areq, version)]
        for alt in weighed:
            if len(chosen) >= total:
                break
            if alt is host or alt.cell_uuid != host.cell_uuid or \
                    not alt.allocation_candidates:
                continue
            chosen.append((alt, placement_candidates.as_dict(
                alt.allocation_candidates[0]), version))
        return chosen

    def _drop_claims(self, ctxt, instance_uuids):
        for uuid in instance_uuids:
            try:
                self.report.delete_allocation_for_instance(ctxt, uuid)
            except Exception:  # noqa: BLE001 - keep cleaning up the rest
                LOG.exception("Could not remove the allocations of %s",
                              uuid)


def merge_allocations(current, extra):
    """``{rp: {"resources": {rc: n}}}`` summed per provider and class."""
    merged = {}
    for allocs in (current, extra):
        for rp, alloc in allocs.items():
            res = merged.setdefault(rp, {"resources": {}})["resources"]
            for rc, amount in alloc["resources"].items():
                res[rc] = res.get(rc, 0) + amount
    return merged


def is_rebuild(spec):
    """The conductor's mark of a rebuild with a new image (Nova's
    ``_nova_check_type`` hint)."""
    return spec.get_scheduler_hint("_nova_check_type") == "rebuild"


def _forced(spec):
    return any(spec.obj_attr_is_set(f) and getattr(spec, f)
               for f in ("force_hosts", "force_nodes"))


def _has_dest_host(spec):
    dest = spec.requested_destination if spec.obj_attr_is_set(
        "requested_destination") else None
    return bool(dest is not None and dest.obj_attr_is_set("host") and
                dest.host)
