"""The scheduler's decoding of GET /allocation_candidates: the same
allocation requests as a plain decode wherever they leave the scheduler,
and the summary numbers it reads."""
import orjson

from keel.clients import placement_candidates

ROOT, CHILD, SHARED = "r-1", "c-1", "s-1"

BODY = {
    "allocation_requests": [
        {"allocations": {ROOT: {"resources": {"VCPU": 2, "MEMORY_MB": 512}}},
         "mappings": {"": [ROOT]}},
        # A nested tree and a sharing provider in one request.
        {"allocations": {
            CHILD: {"resources": {"CUSTOM_VF": 1}},
            SHARED: {"resources": {"DISK_GB": 20}}},
         "mappings": {"_NET": [CHILD], "": [SHARED]}},
    ],
    "provider_summaries": {
        ROOT: {"resources": {"VCPU": {"capacity": 8, "used": 3},
                             "MEMORY_MB": {"capacity": 4096, "used": 0}},
               "traits": ["HW_CPU_X86_AVX2"],
               "parent_provider_uuid": None, "root_provider_uuid": ROOT},
        CHILD: {"resources": {"CUSTOM_VF": {"capacity": 4, "used": 1}},
                "traits": [], "parent_provider_uuid": ROOT,
                "root_provider_uuid": ROOT},
        # A field this decoder does not know is skipped, not an error.
        SHARED: {"resources": {"DISK_GB": {"capacity": 100, "used": 7}},
                 "traits": ["MISC_SHARES_VIA_AGGREGATE"],
                 "parent_provider_uuid": None, "root_provider_uuid": SHARED,
                 "later_field": {"x": 1}},
    },
}


def test_requests_turn_into_the_plain_decode():
    raw = orjson.dumps(BODY)
    found = placement_candidates.decode(raw)
    plain = orjson.loads(raw)["allocation_requests"]
    assert [placement_candidates.as_dict(a)
            for a in found.allocation_requests] == plain
    assert [list(a.allocations) for a in found.allocation_requests] == [
        [ROOT], [CHILD, SHARED]]


def test_summaries_keep_usage_traits_and_tree():
    found = placement_candidates.decode(orjson.dumps(BODY))
    root = found.provider_summaries[ROOT]
    assert root.resources["VCPU"].used == 3
    assert root.resources["VCPU"].capacity == 8
    assert root.traits == ["HW_CPU_X86_AVX2"]
    child = found.provider_summaries[CHILD]
    assert (child.root_provider_uuid, child.parent_provider_uuid) == (
        ROOT, ROOT)
    assert found.provider_summaries[SHARED].resources["DISK_GB"].used == 7


def test_no_mappings_no_key_and_dicts_pass_through():
    found = placement_candidates.decode(orjson.dumps({
        "allocation_requests": [{"allocations": {ROOT: {"resources": {
            "VCPU": 1}}}}], "provider_summaries": {}}))
    assert placement_candidates.as_dict(found.allocation_requests[0]) == {
        "allocations": {ROOT: {"resources": {"VCPU": 1}}}}
    areq = {"allocations": {}}
    assert placement_candidates.as_dict(areq) is areq


def test_empty_answer():
    found = placement_candidates.decode(
        b'{"allocation_requests": [], "provider_summaries": {}}')
    assert found.allocation_requests == [] and found.provider_summaries == {}
