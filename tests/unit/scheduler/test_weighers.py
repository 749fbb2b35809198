import uuid

import pytest

from keel.conf import CONF
from keel import objects
from keel.scheduler import weighers
from keel.scheduler.weighers import affinity
from keel.scheduler.weighers import resources
from tests.unit.scheduler.conftest import make_aggregate
from tests.unit.scheduler.conftest import make_host
from tests.unit.scheduler.conftest import make_spec


def order(weigher_list, hosts, spec=None):
    return [w.obj.host for w in weighers.weigh_hosts(
        weigher_list, hosts, spec or make_spec())]


def test_normalize():
    assert weighers.normalize([]) == []
    assert weighers.normalize([5, 5]) == [0.0, 0.0]
    assert weighers.normalize([1, 3, 2]) == [0.0, 1.0, 0.5]
    assert weighers.normalize([1, 3], minval=0, maxval=4) == [0.25, 0.75]


def test_all_weighers_load():
    names = {w.name for w in weighers.load_weighers(
        CONF.filter_scheduler.weight_classes)}
    assert names == {"RAMWeigher", "CPUWeigher", "DiskWeigher",
                     "BuildFailureWeigher", "ServerGroupSoftAffinityWeigher",
                     "ServerGroupSoftAntiAffinityWeigher", "IoOpsWeigher",
                     "NumInstancesWeigher", "HypervisorVersionWeigher"}
    assert [w.name for w in weighers.load_weighers(
        ["nova.scheduler.weights.ram.RAMWeigher"])] == ["RAMWeigher"]
    with pytest.raises(ValueError):
        weighers.load_weighers(["NoSuchWeigher"])


def test_ram_weigher_spreads_and_stacks(override):
    hosts = [make_host("small", 512), make_host("big", 4096),
             make_host("mid", 2048)]
    assert order([resources.RAMWeigher()], hosts) == ["big", "mid", "small"]
    override("ram_weight_multiplier", -1.0, "filter_scheduler")
    assert order([resources.RAMWeigher()], hosts) == ["small", "mid", "big"]


def test_multiplier_from_aggregate_metadata():
    stack = make_aggregate({"ram_weight_multiplier": "-2"})
    hosts = [make_host("big", 4096, aggregates=[stack]),
             make_host("small", 512)]
    # big: -2 * 1.0; small: 1 * 0.0.
    result = weighers.weigh_hosts([resources.RAMWeigher()], hosts,
                                  make_spec())
    assert [(w.obj.host, w.weight) for w in result] == [
        ("small", 0.0), ("big", -2.0)]


def test_cpu_and_disk_weighers():
    a = make_host("a", vcpus_total=8, vcpus_used=6, cpu_allocation_ratio=1.0,
                  free_disk_mb=100)
    b = make_host("b", vcpus_total=4, vcpus_used=0, cpu_allocation_ratio=1.0,
                  free_disk_mb=50)
    assert order([resources.CPUWeigher()], [a, b]) == ["b", "a"]
    assert order([resources.DiskWeigher()], [b, a]) == ["a", "b"]


def test_build_failures_outweigh_ram():
    failing = make_host("failing", 8192, failed_builds=2)
    healthy = make_host("healthy", 512)
    ws = [resources.RAMWeigher(), resources.BuildFailureWeigher()]
    assert order(ws, [failing, healthy]) == ["healthy", "failing"]


def _group(policy, members):
    return objects.InstanceGroup(uuid=str(uuid.uuid4()), policy=policy,
                                 members=list(members), hosts=[], _rules={})


def test_soft_affinity_weighers():
    m1, m2 = str(uuid.uuid4()), str(uuid.uuid4())
    two = make_host("two", instances=[m1, m2])
    none = make_host("none")
    spec = make_spec(group=_group("soft-affinity", [m1, m2]))
    assert order([affinity.ServerGroupSoftAffinityWeigher()],
                 [none, two], spec) == ["two", "none"]
    spec = make_spec(group=_group("soft-anti-affinity", [m1, m2]))
    assert order([affinity.ServerGroupSoftAntiAffinityWeigher()],
                 [two, none], spec) == ["none", "two"]
    # Not that policy: no effect, the input order stays.
    assert order([affinity.ServerGroupSoftAffinityWeigher()],
                 [none, two], spec) == ["none", "two"]


def test_io_ops_version_and_instance_count_weighers(override):
    busy = make_host("busy", num_io_ops=3, hypervisor_version=2000,
                     num_instances=9)
    idle = make_host("idle", num_io_ops=0, hypervisor_version=1000,
                     num_instances=1)
    assert order([resources.IoOpsWeigher()], [busy, idle]) == [
        "idle", "busy"]
    assert order([resources.HypervisorVersionWeigher()], [idle, busy]) == [
        "busy", "idle"]
    # Multiplier 0 by default: the order stays.
    assert order([resources.NumInstancesWeigher()], [busy, idle]) == [
        "busy", "idle"]
    override("num_instances_weight_multiplier", -1.0, "filter_scheduler")
    assert order([resources.NumInstancesWeigher()], [busy, idle]) == [
        "idle", "busy"]


def test_aggregate_multiplier_applies_when_the_default_is_zero():
    # num_instances_weight_multiplier is 0: only the aggregate's counts.
    busy = make_host("busy", num_instances=9, aggregates=[make_aggregate(
        {"num_instances_weight_multiplier": "-1"})])
    idle = make_host("idle", num_instances=1)
    result = weighers.weigh_hosts([resources.NumInstancesWeigher()],
                                  [busy, idle], make_spec())
    assert [(w.obj.host, w.weight) for w in result] == [
        ("idle", 0.0), ("busy", -1.0)]


def _reference_weights(weigher_list, hosts, spec):
    """Every host, every weigher, one at a time (the definition)."""
    totals = [0.0] * len(hosts)
    for weigher in weigher_list:
        if weigher.is_noop(spec):
            continue
        raw = [weigher.weigh(h, spec) for h in hosts]
        for i, norm in enumerate(weighers.normalize(raw, weigher.minval,
                                                    weigher.maxval)):
            totals[i] += weigher.weight_multiplier(hosts[i]) * norm
    return sorted(zip(totals, range(len(hosts))),
                  key=lambda pair: (-pair[0], pair[1]))


def test_weights_match_the_per_host_definition():
    import random

    rnd = random.Random(7)
    aggs = [make_aggregate({"ram_weight_multiplier": "-2"}),
            make_aggregate({"build_failure_weight_multiplier": "10",
                            "cpu_weight_multiplier": "0.5"}),
            make_aggregate({"availability_zone": "z"})]
    hosts = [make_host(
        "h%d" % i, rnd.choice([512, 1024, 4096]),
        aggregates=rnd.sample(aggs, rnd.randint(0, 2)),
        vcpus_total=8, vcpus_used=rnd.randint(0, 8),
        cpu_allocation_ratio=1.0, free_disk_mb=rnd.randint(0, 3) * 1024,
        failed_builds=rnd.choice([0, 0, 1]), num_io_ops=rnd.randint(0, 2),
        hypervisor_version=rnd.choice([1000, 2000]))
        for i in range(60)]
    spec = make_spec()
    weigher_list = weighers.load_weighers(
        CONF.filter_scheduler.weight_classes)
    got = weighers.weigh_hosts(weigher_list, hosts, spec)
    want = _reference_weights(weigher_list, hosts, spec)
    assert [(w.weight, w.obj.host) for w in got] == [
        (weight, hosts[i].host) for weight, i in want]


def test_weights_without_aggregates_match_the_per_host_definition(override):
    """Hosts in no aggregate (the one-pass normalise-and-sum path), with a
    stacking (negative) multiplier among the weighers."""
    import random

    override("ram_weight_multiplier", -1.5, "filter_scheduler")
    rnd = random.Random(11)
    hosts = [make_host(
        "h%d" % i, rnd.choice([512, 1024, 4096, 8192]),
        vcpus_total=8, vcpus_used=rnd.randint(0, 8),
        cpu_allocation_ratio=rnd.choice([1.0, 4.0]),
        free_disk_mb=rnd.randint(0, 3) * 1024,
        failed_builds=rnd.choice([0, 0, 0, 2]), num_io_ops=rnd.randint(0, 2),
        hypervisor_version=rnd.choice([1000, 2000]))
        for i in range(80)]
    spec = make_spec()
    weigher_list = weighers.load_weighers(
        CONF.filter_scheduler.weight_classes)
    got = weighers.weigh_hosts(weigher_list, hosts, spec)
    want = _reference_weights(weigher_list, hosts, spec)
    assert [(w.weight, w.obj.host) for w in got] == [
        (weight, hosts[i].host) for weight, i in want]
