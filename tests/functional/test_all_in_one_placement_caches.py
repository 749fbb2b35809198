"""The all-in-one's Placement shares its trait / resource class / consumer
type caches between requests (keel.allinone.placement_caches): tables are
read once instead of once per request, and Placement's answers stay those of
fresh reads -- custom traits and resource classes created, renamed or
deleted between requests are seen at once. Also the allocation candidates'
JSON with sets turned into lists directly is the same text."""
import datetime
import uuid

import pytest
import requests
import sqlalchemy as sa
from oslo_serialization import jsonutils

from keel.allinone import placement_caches
from keel.allinone import placement_tuning
from tests.fixtures.placement import shared_placement


def _h(version):
    return {"OpenStack-API-Version": "placement %s" % version,
            "X-Auth-Token": "admin"}


def _call(url, method, path, body=None, version="1.36"):
    return requests.request(method, url + path, json=body,
                            headers=_h(version), timeout=10)


@pytest.fixture(scope="module")
def placement():
    url = shared_placement().endpoint
    rp = str(uuid.uuid4())
    assert _call(url, "POST", "/resource_providers",
                 {"uuid": rp, "name": "caches-" + rp}).status_code == 200
    assert _call(url, "PUT", f"/resource_providers/{rp}/inventories", {
        "resource_provider_generation": 0,
        "inventories": {"VCPU": {"total": 8},
                        "MEMORY_MB": {"total": 8192}}}).status_code == 200
    restore = placement_caches.install()
    try:
        yield url, rp
    finally:
        restore()


def _table_reads(fn):
    from placement import db_api
    engine = db_api.placement_context_manager.writer.get_engine()
    seen = []

    def record(_conn, _cursor, statement, _params, _context, _many):
        text = " ".join(statement.split())
        for table in ("traits", "resource_classes", "consumer_types"):
            if text.startswith(f"SELECT {table}.id, {table}.name, "
                               f"{table}.updated_at, {table}.created_at "
                               f"FROM {table}"):
                seen.append(table)
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        fn()
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    return seen


def _candidates(url, rp, required=None):
    query = (f"/allocation_candidates?resources=VCPU:1,MEMORY_MB:64"
             f"&in_tree={rp}&root_required=!COMPUTE_STATUS_DISABLED")
    if required:
        query += "&required=" + required
    return _call(url, "GET", query)


def test_tables_read_once_not_per_request(placement):
    url, rp = placement
    _candidates(url, rp)                     # fills the shared caches
    reads = _table_reads(lambda: [
        _candidates(url, rp) for _ in range(3)])
    assert reads == []
    resp = _candidates(url, rp)
    assert resp.status_code == 200
    assert list(resp.json()["provider_summaries"]) == [rp]


def test_custom_trait_created_and_deleted_between_requests(placement):
    url, rp = placement
    trait = "CUSTOM_KEEL_CACHE_" + uuid.uuid4().hex[:8].upper()
    assert _candidates(url, rp).status_code == 200
    assert _candidates(url, rp, trait).status_code == 400   # no such trait
    assert _call(url, "PUT", f"/traits/{trait}",
                 version="1.6").status_code == 201
    resp = _candidates(url, rp, trait)
    assert resp.status_code == 200
    assert resp.json()["allocation_requests"] == []        # rp lacks it
    gen = _call(url, "GET", f"/resource_providers/{rp}").json()[
        "generation"]
    assert _call(url, "PUT", f"/resource_providers/{rp}/traits", {
        "resource_provider_generation": gen,
        "traits": [trait]}).status_code == 200
    resp = _candidates(url, rp, trait)
    assert trait in resp.json()["provider_summaries"][rp]["traits"]
    gen = _call(url, "GET", f"/resource_providers/{rp}").json()[
        "generation"]
    assert _call(url, "PUT", f"/resource_providers/{rp}/traits", {
        "resource_provider_generation": gen,
        "traits": []}).status_code == 200
    assert _call(url, "DELETE", f"/traits/{trait}",
                 version="1.6").status_code == 204
    # A fresh read would not know it: neither may the shared cache.
    assert _candidates(url, rp, trait).status_code == 400
    assert _call(url, "GET", f"/traits/{trait}",
                 version="1.6").status_code == 404


def test_resource_class_renamed_and_deleted(placement):
    url, _rp = placement
    name = "CUSTOM_KEEL_RC_" + uuid.uuid4().hex[:8].upper()
    renamed = name + "_NEW"
    assert _call(url, "POST", "/resource_classes", {"name": name},
                 version="1.2").status_code == 201
    assert _call(url, "GET", f"/resource_classes/{name}",
                 version="1.2").status_code == 200
    # Rename (microversions 1.2 - 1.6): the old name is gone at once.
    assert _call(url, "PUT", f"/resource_classes/{name}", {"name": renamed},
                 version="1.2").status_code == 200
    assert _call(url, "GET", f"/resource_classes/{name}",
                 version="1.2").status_code == 404
    assert _call(url, "GET", f"/resource_classes/{renamed}",
                 version="1.2").status_code == 200
    assert _call(url, "DELETE", f"/resource_classes/{renamed}",
                 version="1.2").status_code == 204
    assert _call(url, "GET", f"/resource_classes/{renamed}",
                 version="1.2").status_code == 404


def test_read_during_a_change_is_not_kept():
    """A table read that a clear overtook is used by its own request but
    not handed to later ones."""
    store = placement_caches._Store()
    generation = store.generation
    store.invalidate()                       # a change committed meanwhile
    store.publish("T", generation, ({}, {}, {}))
    assert store.tables == {}
    store.publish("T", store.generation, ({"A": 1}, {1: "A"}, {}))
    assert store.tables["T"][0] == {"A": 1}
    store.invalidate()
    assert store.tables == {}


def test_candidates_json_is_the_same_text():
    when = datetime.datetime(2026, 1, 2, 3, 4, 5)
    value = {"provider_summaries": {
        "a": {"traits": {"HW_CPU_X86_AVX", "COMPUTE_NODE", "Z"},
              "resources": {"VCPU": {"capacity": 8, "used": 0}}},
        "b": {"traits": frozenset(["X"]), "when": when,
              "nested": [{"s": {1, 2, 3}}, (1, 2)]}},
        "allocation_requests": [{"allocations": {"a": {"resources": {
            "VCPU": 1}}}}]}
    assert jsonutils.dumps(value, default=placement_tuning._json_default) \
        == jsonutils.dumps(value)


def test_candidates_json_installed_in_the_handler_only():
    from placement.handlers import allocation
    from placement.handlers import allocation_candidate as handler
    real = handler.jsonutils
    restore = placement_tuning._lists_from_sets()
    try:
        assert handler.jsonutils is not real
        assert handler.jsonutils.dumps({"t": {"A"}}) == '{"t": ["A"]}'
        assert handler.jsonutils.loads is real.loads
        assert allocation.jsonutils is real
    finally:
        restore()
    assert handler.jsonutils is real
