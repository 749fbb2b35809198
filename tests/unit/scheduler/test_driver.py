"""The per-instance choice without Placement claims (instance_uuids None,
as a 4.3 caller): subset pick, alternates and consumption."""
import collections
import random
import uuid

from keel.scheduler import driver
from tests.unit.scheduler.conftest import make_host
from tests.unit.scheduler.conftest import make_spec


def hosts_with_candidates(*rams, cell=None):
    cell = cell or str(uuid.uuid4())
    hosts = []
    for i, ram in enumerate(rams):
        h = make_host("h%d" % i, free_ram_mb=ram, cell_uuid=cell)
        h.allocation_candidates = [{"allocations": {h.uuid: {
            "resources": {"MEMORY_MB": 512}}}}]
        hosts.append(h)
    return hosts


def test_best_host_first_and_consumed():
    sched = driver.Scheduler(report_client=object())
    hosts = hosts_with_candidates(1000, 5000, 3000)
    spec = make_spec(memory_mb=512)
    host, areq, ordered = sched._place_one(None, spec, hosts, 0, None, "1.36")
    assert host.host == "h1" and [h.host for h in ordered] == [
        "h1", "h2", "h0"]
    assert areq is host.allocation_candidates[0]
    assert host.free_ram_mb == 5000 - 512 and host.num_instances == 1


def test_host_subset_size_picks_among_the_best(override):
    override("host_subset_size", 2, "filter_scheduler")
    sched = driver.Scheduler(report_client=object())
    random.seed(7)
    seen = collections.Counter()
    for _ in range(60):
        hosts = hosts_with_candidates(1000, 5000, 3000)
        host, _, _ = sched._place_one(None, make_spec(), hosts, 0, None,
                                      "1.36")
        seen[host.host] += 1
    assert set(seen) == {"h1", "h2"}


def test_hosts_without_candidates_are_skipped():
    sched = driver.Scheduler(report_client=object())
    hosts = hosts_with_candidates(9000, 1000)
    hosts[0].allocation_candidates = []
    host, _, _ = sched._place_one(None, make_spec(), hosts, 0, None, "1.36")
    assert host.host == "h1"


def test_alternates_same_cell_up_to_max_attempts():
    sched = driver.Scheduler(report_client=object())
    hosts = hosts_with_candidates(5000, 4000, 3000, 2000)
    hosts[1].cell_uuid = str(uuid.uuid4())       # another cell
    chosen = sched._with_alternates(hosts[0], {"a": 1}, hosts, 3, "1.36")
    assert [h.host for h, _, _ in chosen] == ["h0", "h2", "h3"]
    assert chosen[1][1] is hosts[2].allocation_candidates[0]
    assert len(sched._with_alternates(hosts[0], {}, hosts, 1, "1.36")) == 1


def test_group_members_and_hosts_follow_choices():
    from keel import objects

    group = objects.InstanceGroup(uuid=str(uuid.uuid4()),
                                  policy="anti-affinity", members=[],
                                  hosts=[], _rules={})
    sched = driver.Scheduler(report_client=object())
    spec = make_spec(group=group)
    hosts = hosts_with_candidates(5000, 4000)
    inst = str(uuid.uuid4())
    sched._consume(spec, hosts[0], inst)
    assert group.hosts == ["h0"] and group.members == [inst]
    assert inst in hosts[0].instances
    # The anti-affinity filter now refuses h0 for the next instance.
    host, _, _ = sched._place_one(None, spec, hosts, 1, None, "1.36")
    assert host.host == "h1"


def test_rebuild_hint():
    assert driver.is_rebuild(make_spec(hints={
        "_nova_check_type": ["rebuild"]}))
    assert not driver.is_rebuild(make_spec())


def test_merge_allocations():
    merged = driver.merge_allocations(
        {"a": {"resources": {"VCPU": 1, "MEMORY_MB": 5}, "generation": 3}},
        {"a": {"resources": {"VCPU": 2}}, "b": {"resources": {"DISK_GB": 1}}})
    assert merged == {"a": {"resources": {"VCPU": 3, "MEMORY_MB": 5}},
                      "b": {"resources": {"DISK_GB": 1}}}


def test_multi_create_keeps_once_per_request_filtering(override,
                                                      monkeypatch):
    from keel import objects

    override("enabled_filters", ["ComputeFilter"], "filter_scheduler")
    sched = driver.Scheduler(report_client=object())
    hosts = hosts_with_candidates(9000, 1000)
    hosts[0].service.disabled = True
    # No databases or Placement here: the request's inputs are given.
    monkeypatch.setattr(objects.AggregateList, "get_all",
                        classmethod(lambda cls, ctxt: []))
    monkeypatch.setattr(sched.host_manager, "get_host_states_by_uuids",
                        lambda *a, **kw: hosts)
    monkeypatch.setattr(sched, "build_request", lambda *a: None)
    monkeypatch.setattr(sched, "get_candidates", lambda ctxt, rr: (
        {h.uuid: h.allocation_candidates for h in hosts}, {}, "1.36"))
    spec = make_spec()
    spec.num_instances = 3
    chosen = sched.select_destinations(None, spec, None)
    # ComputeFilter runs only for the first instance; the disabled host
    # must not come back for the second and third.
    assert [c[0][0].host for c in chosen] == ["h1", "h1", "h1"]


class _FakeRequest:
    microversion = "1.36"

    def to_query(self):
        return {}


def _decoded_scheduler(body):
    import orjson
    import types

    from keel.clients import placement_candidates

    found = placement_candidates.decode(orjson.dumps(body))
    placement = types.SimpleNamespace(
        get_candidates_for_scheduling=lambda ctxt, query, version: found)
    return driver.Scheduler(report_client=types.SimpleNamespace(
        placement=placement))


def test_candidates_grouped_by_root_provider():
    from keel.clients import placement_candidates

    on_root = {"allocations": {"root-a": {"resources": {"VCPU": 1}}},
               "mappings": {"": ["root-a"]}}
    on_child = {"allocations": {"child-b": {"resources": {"VCPU": 1}}},
                "mappings": {"": ["child-b"]}}
    # A sharing provider's request counts for both trees it spans.
    spanning = {"allocations": {
        "child-b": {"resources": {"VCPU": 1}},
        "shared": {"resources": {"DISK_GB": 5}}},
        "mappings": {"": ["child-b", "shared"]}}
    sched = _decoded_scheduler({
        "allocation_requests": [on_root, on_child, spanning],
        "provider_summaries": {
            "root-a": {"resources": {}, "root_provider_uuid": "root-a"},
            "child-b": {"resources": {}, "root_provider_uuid": "root-b"},
            "shared": {"resources": {}, "root_provider_uuid": "shared"}}})
    by_root, summaries, version = sched.get_candidates(None, _FakeRequest())
    plain = {root: [placement_candidates.as_dict(a) for a in areqs]
             for root, areqs in by_root.items()}
    assert plain == {"root-a": [on_root], "root-b": [on_child, spanning],
                     "shared": [spanning]}
    assert set(summaries) == {"root-a", "child-b", "shared"}
    assert version == "1.36"


def test_no_candidates():
    sched = _decoded_scheduler({"allocation_requests": [],
                                "provider_summaries": {}})
    assert sched.get_candidates(None, _FakeRequest()) == ({}, {}, "1.36")


def test_claims_and_alternates_get_plain_allocation_requests():
    from keel.clients import placement_candidates
    import orjson

    hosts = hosts_with_candidates(5000, 4000, 3000)
    for h in hosts:
        h.allocation_candidates = placement_candidates.decode(orjson.dumps({
            "allocation_requests": [{
                "allocations": {h.uuid: {"resources": {"VCPU": 1}}},
                "mappings": {"": [h.uuid]}}]})).allocation_requests
    claimed = []

    class Report:
        def claim_resources(self, ctxt, consumer, areq, *args, **kwargs):
            claimed.append(areq)
            return True

    sched = driver.Scheduler(report_client=Report())
    sched.host_manager.note_claim = lambda *a: None
    host, areq, weighed = sched._place_one(None, make_spec(), hosts, 0,
                                           str(uuid.uuid4()), "1.36")
    assert claimed == [areq] and areq == {
        "allocations": {host.uuid: {"resources": {"VCPU": 1}}},
        "mappings": {"": [host.uuid]}}
    chosen = sched._with_alternates(host, areq, weighed, 3, "1.36")
    assert [type(a) for _, a, _ in chosen] == [dict, dict, dict]
    assert chosen[1][1]["allocations"] == {
        chosen[1][0].uuid: {"resources": {"VCPU": 1}}}
