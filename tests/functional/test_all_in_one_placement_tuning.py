"""The all-in-one's Placement tuning (keel.allinone.placement_tuning) sends
the same SQL and gives the same answers as Placement untouched: a boot's
requests (allocation candidates, claim, provider and consumer reads,
usages) run with and without the alias cache, statement for statement."""
import uuid

import pytest
import requests
import sqlalchemy as sa

from keel.allinone import placement_tuning
from tests.fixtures.placement import shared_placement

HEADERS = {"OpenStack-API-Version": "placement 1.36",
           "X-Auth-Token": "admin"}


@pytest.fixture(scope="module")
def placement():
    handle = shared_placement()
    url = handle.endpoint
    # Two providers (one sharing-free tree each) with room for the boots.
    rps = []
    for _ in range(2):
        rp = str(uuid.uuid4())
        _call("POST", url, "/resource_providers",
              {"uuid": rp, "name": "tuning-" + rp})
        _call("PUT", url, f"/resource_providers/{rp}/inventories", {
            "resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 64},
                            "MEMORY_MB": {"total": 65536},
                            "DISK_GB": {"total": 1000}}})
        _call("PUT", url, f"/resource_providers/{rp}/traits", {
            "resource_provider_generation": 1,
            "traits": ["HW_CPU_X86_AVX"]})
        rps.append(rp)
    return url, rps


def _call(method, url, path, body=None, expect=(200, 201, 204)):
    resp = requests.request(method, url + path, json=body, headers=HEADERS,
                            timeout=10)
    assert resp.status_code in expect, resp.text
    return resp.json() if resp.content else None


def _boot_requests(url, rps):
    """A boot's Placement traffic; returns the answers that do not depend
    on the consumer's uuid."""
    consumer = str(uuid.uuid4())
    project, user = uuid.uuid4().hex, uuid.uuid4().hex
    query = ("/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,"
             "DISK_GB:1&limit=1000&in_tree=%s"
             "&required=HW_CPU_X86_AVX&root_required=HW_CPU_X86_AVX,"
             "!COMPUTE_STATUS_DISABLED" % rps[0])
    cands = _call("GET", url, query)
    areq = cands["allocation_requests"][0]
    _call("PUT", url, f"/allocations/{consumer}", {
        "allocations": areq["allocations"], "project_id": project,
        "user_id": user, "consumer_generation": None})
    usages = _call("GET", url, f"/resource_providers/{rps[0]}/usages")
    allocs = _call("GET", url, f"/allocations/{consumer}")
    provider = _call("GET", url, f"/resource_providers/{rps[0]}")
    inventories = _call("GET", url,
                        f"/resource_providers/{rps[0]}/inventories")
    by_provider = _call("GET", url,
                        f"/resource_providers/{rps[0]}/allocations")
    _call("DELETE", url, f"/allocations/{consumer}")
    # (provider generations move on with every claim: left out)
    return (sorted(cands["provider_summaries"]),
            areq["allocations"],
            usages["usages"],
            {rp: a["resources"] for rp, a in allocs["allocations"].items()},
            {k: provider[k] for k in ("uuid", "root_provider_uuid",
                                      "parent_provider_uuid")},
            inventories["inventories"],
            by_provider["allocations"][consumer]["resources"])


def _statements(engine, fn):
    seen = []

    def record(_conn, _cursor, statement, _params, _context, _many):
        seen.append(" ".join(statement.split()))
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        return fn(), seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


def test_alias_cache_sends_the_same_sql_and_answers(placement):
    from placement import db_api
    url, rps = placement
    engine = db_api.placement_context_manager.writer.get_engine()
    plain, plain_sql = _statements(engine, lambda: _boot_requests(url, rps))
    restore = placement_tuning._cache_aliases()
    try:
        for _ in range(2):      # first fills the cache, then reuses it
            tuned, tuned_sql = _statements(
                engine, lambda: _boot_requests(url, rps))
            assert tuned == plain
            assert tuned_sql == plain_sql
    finally:
        restore()


def test_alias_cache_only_at_the_reviewed_sites():
    restore = placement_tuning._cache_aliases()
    try:
        from placement.objects import research_context
        from placement.objects import resource_class
        table = research_context._RP_TBL

        def get_sharing_providers():      # a reviewed function's name
            return research_context.sa.alias(table, name="rp")

        def elsewhere():
            return research_context.sa.alias(table, name="rp")

        assert get_sharing_providers() is get_sharing_providers()
        assert elsewhere() is not elsewhere()
        assert resource_class.sa is sa     # a module not in the list
        # every reviewed function still exists in this Placement release
        import importlib
        for name, functions in placement_tuning._ALIAS_SITES.items():
            module = importlib.import_module(name)
            for fn in functions:
                assert callable(getattr(module, fn)), (name, fn)
    finally:
        restore()
    assert research_context.sa is sa
