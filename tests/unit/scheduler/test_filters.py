import datetime
import uuid

import pytest

from keel import exception
from keel import objects
from keel.scheduler import filters
from keel.scheduler.filters import affinity
from keel.scheduler.filters import capabilities
from keel.scheduler.filters import compute
from keel.scheduler.filters import extra_specs_ops
from keel.scheduler.filters import image_props
from tests.unit.scheduler.conftest import make_aggregate
from tests.unit.scheduler.conftest import make_host
from tests.unit.scheduler.conftest import make_spec


def test_default_filters_load_in_order():
    from keel.conf import CONF
    loaded = filters.load_filters(CONF.filter_scheduler.enabled_filters,
                                  CONF.filter_scheduler.available_filters)
    assert [f.name for f in loaded] == [
        "ComputeFilter", "ComputeCapabilitiesFilter",
        "ImagePropertiesFilter", "ServerGroupAntiAffinityFilter",
        "ServerGroupAffinityFilter"]


def test_unknown_or_unavailable_filter():
    with pytest.raises(exception.SchedulerHostFilterNotFound):
        filters.load_filters(["NoSuchFilter"])
    with pytest.raises(exception.SchedulerHostFilterNotFound):
        filters.load_filters(["ComputeFilter"],
                             ["nova.scheduler.filters.compute_filter."
                              "AvailabilityZoneFilter"])
    assert filters.load_filters(
        ["ComputeFilter"],
        ["nova.scheduler.filters.compute_filter.ComputeFilter"])


def test_compute_filter():
    flt = compute.ComputeFilter()
    host = make_host()
    assert flt.host_passes(host, make_spec())
    host.service.disabled = True
    assert not flt.host_passes(host, make_spec())
    host.service.disabled = False
    host.service.last_seen_up = datetime.datetime.now(
        datetime.timezone.utc) - datetime.timedelta(hours=1)
    assert not flt.host_passes(host, make_spec())
    host.service = None
    assert not flt.host_passes(host, make_spec())


def test_compute_filter_all_on_light_service_rows(override):
    """The host manager's service dicts: the same answers as is_up."""
    override("service_down_time", 60, None)
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)

    def host(name, seconds_ago=0, **service):
        state = make_host(name)
        state.service = dict({
            "host": name, "binary": "nova-compute", "disabled": False,
            "forced_down": False,
            "last_seen_up": now - datetime.timedelta(seconds=seconds_ago)},
            **service)
        return state
    hosts = [host("up", 5), host("disabled", disabled=True),
             host("forced", forced_down=True), host("stale", 120),
             host("ahead", -30), host("far-ahead", -120),
             host("never", last_seen_up=None),
             host("aware", last_seen_up=datetime.datetime.now(
                 datetime.timezone.utc)),
             host("text", last_seen_up=now.strftime("%Y-%m-%dT%H:%M:%S.%f"))]
    no_service = make_host("none")
    no_service.service = None
    flt = compute.ComputeFilter()
    passed = flt.filter_all(hosts + [no_service], make_spec())
    assert [h.host for h in passed] == ["up", "ahead", "aware", "text"]
    assert passed == [h for h in hosts + [no_service]
                      if flt.host_passes(h, make_spec())]


def test_compute_filter_all_at_the_service_down_time_boundary(override):
    """A heartbeat exactly service_down_time away (either side) is up, one
    microsecond further is down: filter_all's window matches is_up."""
    from oslo_utils import timeutils

    override("service_down_time", 60, None)
    now = datetime.datetime(2026, 1, 2, 3, 4, 5, 600000)
    tick = datetime.timedelta(microseconds=1)
    edge = datetime.timedelta(seconds=60)
    ages = {"past-edge": edge, "past-beyond": edge + tick,
            "future-edge": -edge, "future-beyond": -edge - tick,
            "now": datetime.timedelta(0)}
    hosts = []
    for name, age in ages.items():
        state = make_host(name)
        state.service = {"host": name, "binary": "nova-compute",
                         "disabled": False, "forced_down": False,
                         "last_seen_up": now - age}
        hosts.append(state)
    flt = compute.ComputeFilter()
    timeutils.set_time_override(now)
    try:
        passed = flt.filter_all(hosts, make_spec())
        reference = [h for h in hosts if flt.host_passes(h, make_spec())]
    finally:
        timeutils.clear_time_override()
    assert [h.host for h in passed] == ["past-edge", "future-edge", "now"]
    assert passed == reference


def test_availability_zone_filter():
    flt = compute.AvailabilityZoneFilter()
    zoned = make_host(aggregates=[make_aggregate(
        {"availability_zone": "az1"})])
    plain = make_host()
    assert flt.host_passes(zoned, make_spec(az="az1"))
    assert not flt.host_passes(plain, make_spec(az="az1"))
    assert flt.host_passes(plain, make_spec(az="nova"))
    assert flt.host_passes(zoned, make_spec())


@pytest.mark.parametrize("value,req,result", [
    ("4", ">= 2", True), ("1", ">= 2", False), ("4", "= 4", True),
    ("3", "= 4", False), ("2", "== 2", True), ("2", "!= 2", False),
    ("x86_64", "s== x86_64", True), ("arm", "s!= arm", False),
    ("b", "s> a", True), ("avx avx2", "<in> avx2", True),
    ("avx", "<in> sse", False), (["a", "b", "c"], "<all-in> a c", True),
    (["a"], "<all-in> a c", False), ("kvm", "<or> qemu <or> kvm", True),
    ("xen", "<or> qemu <or> kvm", False), ("kvm", "kvm", True),
    ("kvm", "qemu", False), ("abc", ">= 2", False), (None, ">= 1", False),
])
def test_extra_specs_ops(value, req, result):
    assert extra_specs_ops.match(value, req) is result


def test_compute_capabilities_filter():
    flt = capabilities.ComputeCapabilitiesFilter()
    host = make_host(hypervisor_type="kvm",
                     cpu_info='{"arch": "x86_64", "features": ["avx"]}',
                     stats={"gpu": "yes"})
    ok = make_spec(extra_specs={
        "capabilities:hypervisor_type": "s== kvm",
        "capabilities:cpu_info:arch": "x86_64",
        "capabilities:cpu_info:features": "<in> avx",
        "stats:gpu": "ignored: other scope", "hw:cpu_policy": "shared"})
    assert flt.host_passes(host, ok)
    assert not flt.host_passes(host, make_spec(extra_specs={
        "hypervisor_type": "s== qemu"}))
    assert not flt.host_passes(host, make_spec(extra_specs={
        "capabilities:no_such": "1"}))


def test_aggregate_instance_extra_specs_filter():
    flt = capabilities.AggregateInstanceExtraSpecsFilter()
    host = make_host(aggregates=[make_aggregate({"ssd": "true"}),
                                 make_aggregate({"ssd": "false",
                                                 "tier": "3"})])
    assert flt.host_passes(host, make_spec())
    assert flt.host_passes(host, make_spec(extra_specs={"ssd": "true"}))
    assert flt.host_passes(host, make_spec(extra_specs={
        "aggregate_instance_extra_specs:tier": ">= 2",
        "hw:mem_page_size": "large"}))
    assert not flt.host_passes(host, make_spec(extra_specs={
        "aggregate_instance_extra_specs:tier": ">= 4"}))
    assert not flt.host_passes(host, make_spec(extra_specs={"gpu": "1"}))


def test_image_properties_filter():
    flt = image_props.ImagePropertiesFilter()
    host = make_host(supported_instances=[("x86_64", "kvm", "hvm")],
                     hypervisor_version=6001002)
    image = {"properties": {"hw_architecture": "x86_64",
                            "img_hv_type": "kvm"}}
    assert flt.host_passes(host, make_spec(image=image))
    assert flt.host_passes(host, make_spec(image={"properties": {}}))
    assert not flt.host_passes(host, make_spec(image={"properties": {
        "hw_architecture": "aarch64"}}))
    image["properties"]["img_hv_requested_version"] = ">=6.1"
    assert flt.host_passes(host, make_spec(image=image))
    image["properties"]["img_hv_requested_version"] = ">=6.2, <7"
    assert not flt.host_passes(host, make_spec(image=image))
    bare = make_host(supported_instances=[])
    assert not flt.host_passes(bare, make_spec(image={"properties": {
        "hw_architecture": "x86_64"}}))


def test_version_helpers():
    assert image_props.version_to_str(6001002) == "6.1.2"
    assert image_props.version_satisfies("6.1.2", ">= 6.1")
    assert not image_props.version_satisfies("6.1.2", "< 6.1.2")


def test_isolated_hosts_filter(override):
    flt = image_props.IsolatedHostsFilter()
    iso_image = str(uuid.uuid4())
    other = str(uuid.uuid4())
    override("isolated_images", [iso_image], "filter_scheduler")
    override("isolated_hosts", ["iso"], "filter_scheduler")
    iso, plain = make_host("iso"), make_host("plain")
    spec_iso = make_spec(image={"id": iso_image})
    spec_other = make_spec(image={"id": other})
    assert flt.host_passes(iso, spec_iso)
    assert not flt.host_passes(plain, spec_iso)
    assert not flt.host_passes(iso, spec_other)
    assert flt.host_passes(plain, spec_other)
    override("restrict_isolated_hosts_to_isolated_images", False,
             "filter_scheduler")
    assert flt.host_passes(iso, spec_other)
    assert not flt.host_passes(plain, spec_iso)


def test_aggregate_image_properties_isolation(override):
    flt = image_props.AggregateImagePropertiesIsolation()
    host = make_host(aggregates=[make_aggregate({"os_distro": "ubuntu"})])
    assert flt.host_passes(host, make_spec(image={"properties": {
        "os_distro": "ubuntu"}}))
    assert not flt.host_passes(host, make_spec(image={"properties": {
        "os_distro": "fedora"}}))
    assert flt.host_passes(host, make_spec(image={"properties": {}}))
    override("aggregate_image_properties_isolation_namespace", "ns",
             "filter_scheduler")
    assert flt.host_passes(host, make_spec(image={"properties": {
        "os_distro": "fedora"}}))


def group(policy, members=(), hosts=(), rules=None):
    return objects.InstanceGroup(uuid=str(uuid.uuid4()), policy=policy,
                                 members=list(members), hosts=list(hosts),
                                 _rules=rules or {})


def test_anti_affinity_filter():
    flt = affinity.ServerGroupAntiAffinityFilter()
    m1, m2 = str(uuid.uuid4()), str(uuid.uuid4())
    busy = make_host("busy", instances=[m1])
    free = make_host("free", instances=[str(uuid.uuid4())])
    spec = make_spec(group=group("anti-affinity", [m1, m2], ["busy"]))
    assert not flt.host_passes(busy, spec)
    assert flt.host_passes(free, spec)
    two = make_spec(group=group("anti-affinity", [m1], ["busy"],
                                {"max_server_per_host": "2"}))
    assert flt.host_passes(busy, two)
    # Host listed for the group although no member is known there yet.
    stale = make_host("stale")
    assert not flt.host_passes(stale, make_spec(group=group(
        "anti-affinity", [m2], ["stale"])))
    assert flt.host_passes(busy, make_spec(group=group("affinity", [m1])))


def test_affinity_filter():
    flt = affinity.ServerGroupAffinityFilter()
    spec = make_spec(group=group("affinity", hosts=["a"]))
    assert flt.host_passes(make_host("a"), spec)
    assert not flt.host_passes(make_host("b"), spec)
    assert flt.host_passes(make_host("b"), make_spec(
        group=group("affinity")))


def test_same_and_different_host_filters():
    here = str(uuid.uuid4())
    host = make_host(instances=[here])
    other = make_host("h2")
    same = affinity.SameHostFilter()
    diff = affinity.DifferentHostFilter()
    spec = make_spec(hints={"same_host": [here, str(uuid.uuid4())]})
    assert same.host_passes(host, spec)
    assert not same.host_passes(other, spec)
    spec = make_spec(hints={"different_host": here})
    assert not diff.host_passes(host, spec)
    assert diff.host_passes(other, spec)
    assert same.host_passes(other, make_spec())
    assert diff.host_passes(host, make_spec())


def test_run_filters_once_per_request_flag():
    hosts = [make_host("a"), make_host("b")]
    hosts[0].service.disabled = True
    flt = [compute.ComputeFilter()]
    assert filters.run_filters(flt, hosts, make_spec()) == [hosts[1]]
    # Later instances of a multi-create skip once-per-request filters.
    assert filters.run_filters(flt, hosts, make_spec(), index=1) == hosts


def test_num_instances_and_io_ops_filters(override):
    override("max_instances_per_host", 2, "filter_scheduler")
    override("max_io_ops_per_host", 1, "filter_scheduler")
    num, io = compute.NumInstancesFilter(), compute.IoOpsFilter()
    assert num.host_passes(make_host(num_instances=1), make_spec())
    assert not num.host_passes(make_host(num_instances=2), make_spec())
    roomy = make_aggregate({"max_instances_per_host": "5"})
    assert num.host_passes(make_host(num_instances=2, aggregates=[roomy]),
                           make_spec())
    assert io.host_passes(make_host(num_io_ops=0), make_spec())
    assert not io.host_passes(make_host(num_io_ops=1), make_spec())


def test_aggregate_multi_tenancy_isolation():
    flt = capabilities.AggregateMultiTenancyIsolation()
    host = make_host(aggregates=[make_aggregate(
        {"filter_tenant_id": "p1, p2"}), make_aggregate(
        {"filter_tenant_id3": "p3"})])
    assert flt.host_passes(host, make_spec(project_id="p2"))
    assert flt.host_passes(host, make_spec(project_id="p3"))
    assert not flt.host_passes(host, make_spec(project_id="p9"))
    assert flt.host_passes(make_host(), make_spec(project_id="p9"))
