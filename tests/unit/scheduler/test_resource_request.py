from keel import objects
from keel.scheduler import resource_request
from tests.unit.scheduler.conftest import make_spec


def query(spec, **kw):
    return resource_request.ResourceRequest.from_request_spec(
        spec, **kw).to_query()


def test_flavor_resources_disk_includes_ephemeral_and_swap():
    q = query(make_spec(vcpus=2, memory_mb=2048, root_gb=10,
                        ephemeral_gb=5, swap=1500), limit=1000)
    assert q == {"resources": "DISK_GB:17,MEMORY_MB:2048,VCPU:2",
                 "limit": "1000"}


def test_boot_from_volume_drops_root_disk_and_zero_amounts():
    q = query(make_spec(root_gb=10, is_bfv=True))
    assert q["resources"] == "MEMORY_MB:1024,VCPU:2"


def test_extra_spec_overrides_traits_and_groups():
    spec = make_spec(extra_specs={
        "resources:VCPU": "0", "resources:CUSTOM_GOLD": "1",
        "trait:HW_CPU_X86_AVX2": "required",
        "trait:CUSTOM_SLOW": "forbidden",
        "resources1:SRIOV_NET_VF": "1", "trait1:CUSTOM_PHYSNET_A": "required",
        "resources2:SRIOV_NET_VF": "1", "hw:cpu_policy": "shared",
        "unrelated": "x"})
    q = query(spec)
    assert q["resources"] == "CUSTOM_GOLD:1,DISK_GB:10,MEMORY_MB:1024"
    assert q["required"] == "HW_CPU_X86_AVX2,!CUSTOM_SLOW"
    assert q["resources1"] == "SRIOV_NET_VF:1"
    assert q["required1"] == "CUSTOM_PHYSNET_A"
    assert q["resources2"] == "SRIOV_NET_VF:1"
    # Several suffixed groups and no policy in the flavor: "none".
    assert q["group_policy"] == "none"


def test_explicit_group_policy_and_dedicated_cpus():
    spec = make_spec(vcpus=4, extra_specs={
        "hw:cpu_policy": "dedicated", "group_policy": "isolate",
        "resources1:CUSTOM_X": "1"})
    q = query(spec)
    assert q["resources"] == "DISK_GB:10,MEMORY_MB:1024,PCPU:4"
    assert q["group_policy"] == "isolate"


def test_image_traits_and_request_level_params():
    spec = make_spec(image={"properties": {
        "trait:COMPUTE_IMAGE_TYPE_QCOW2": "required"}})
    spec.request_level_params.root_required = {"COMPUTE_IMAGE_TYPE_RAW"}
    spec.request_level_params.root_forbidden = {"COMPUTE_STATUS_DISABLED"}
    q = query(spec)
    assert q["required"] == "COMPUTE_IMAGE_TYPE_QCOW2"
    assert q["root_required"] == \
        "COMPUTE_IMAGE_TYPE_RAW,!COMPUTE_STATUS_DISABLED"


def test_destination_aggregates_become_member_of():
    spec = make_spec()
    spec.requested_destination = objects.Destination(
        aggregates=["b,a", "c"], forbidden_aggregates={"z", "y"})
    q = query(spec)
    assert q["member_of"] == ["in:a,b", "in:c", "!in:y,z"]


def test_port_request_groups_are_suffixed():
    spec = make_spec()
    spec.requested_resources = [objects.RequestGroup(
        requester_id="port-1", resources={"NET_BW_EGR_KILOBIT_PER_SEC": 10},
        required_traits={"CUSTOM_PHYSNET_NET0"}, forbidden_traits=set(),
        aggregates=[], forbidden_aggregates=set(), in_tree=None,
        provider_uuids=[], use_same_provider=True)]
    q = query(spec)
    assert q["resources_port-1"] == "NET_BW_EGR_KILOBIT_PER_SEC:10"
    assert q["required_port-1"] == "CUSTOM_PHYSNET_NET0"
    assert "group_policy" not in q


def test_microversion():
    rr = resource_request.ResourceRequest.from_request_spec(make_spec())
    assert rr.microversion == "1.36"
    rr.groups[""].any_of.append(["A", "B"])
    assert rr.microversion == "1.39"
    assert rr.to_query()["required"] == "in:A,B"
