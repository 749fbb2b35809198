"""The report client against the real (embedded) Placement service."""
import collections
import socketserver
import threading
import uuid

from keystoneauth1 import exceptions as ks_exc
import pytest
from oslo_config import cfg

from keel import exception
from keel.clients import placement as pl
from keel.clients import report
from keel.conf import compute as compute_conf
from keel.conf import placement as placement_conf
from keel.context import RequestContext
from tests.fixtures.placement import shared_placement


class CountingAdapter(object):
    """Wraps the real Adapter, recording (method, path, headers) per call."""

    def __init__(self, adapter):
        self._adapter = adapter
        self.calls = []

    def request(self, url, method, **kwargs):
        self.calls.append((method, url, kwargs.get("headers", {})))
        return self._adapter.request(url, method, **kwargs)

    def methods(self):
        return collections.Counter(m for m, _u, _h in self.calls)

    def reset(self):
        self.calls = []


def _conf(endpoint):
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    compute_conf.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("auth_type", "none", group="placement")
    conf.set_override("endpoint_override", endpoint, group="placement")
    return conf


@pytest.fixture
def env():
    endpoint = shared_placement().endpoint
    conf = _conf(endpoint)
    adapter = CountingAdapter(pl.build_adapter(conf))
    client = report.ReportClient(pl.PlacementClient(adapter), conf=conf)
    ctx = RequestContext(user_id="u", project_id="p")
    return conf, adapter, client, ctx


INV = {
    "VCPU": {"total": 8, "reserved": 1, "allocation_ratio": 4.0,
             "min_unit": 1, "max_unit": 8, "step_size": 1},
    "MEMORY_MB": {"total": 4096, "reserved": 512, "allocation_ratio": 1.0,
                  "min_unit": 1, "max_unit": 4096, "step_size": 1},
}


def _new_root(client, ctx, name=None):
    rp = str(uuid.uuid4())
    name = name or "host-" + rp[:8]
    client.get_provider_tree_and_ensure_root(ctx, rp, name=name)
    return rp, name


def test_adapter_from_placement_options_sends_version_and_request_id(env):
    _conf_, adapter, client, _ctx = env
    ctx = RequestContext(user_id="u", project_id="p",
                         global_request_id="req-" + str(uuid.uuid4()))
    rp, name = _new_root(client, ctx)
    assert all(h["X-OpenStack-Request-ID"] == ctx.global_request_id
               for _m, _u, h in adapter.calls)
    # The server honoured the version we asked for.
    resp = client.placement.request(ctx, "GET", "/resource_providers/" + rp,
                                    pl.PROVIDER_VERSION)
    assert resp.headers["OpenStack-API-Version"] == "placement 1.14"
    by_name = client.placement.get_provider_by_name(ctx, name)
    assert by_name["uuid"] == rp
    assert [p["uuid"] for p in
            client.placement.get_providers_in_tree(ctx, rp)] == [rp]


def test_ensure_root_creates_once_then_uses_cache(env):
    _conf_, adapter, client, ctx = env
    rp, name = _new_root(client, ctx)
    assert adapter.methods()["POST"] == 1
    assert client.placement.get_provider(ctx, rp)["name"] == name
    adapter.reset()
    client.get_provider_tree_and_ensure_root(ctx, rp, name=name)
    assert adapter.calls == []


def test_identical_inventory_is_not_put_twice(env):
    _conf_, adapter, client, ctx = env
    rp, _name = _new_root(client, ctx)
    adapter.reset()
    client.set_inventory_for_provider(ctx, rp, INV)
    assert adapter.methods() == {"PUT": 1}
    inv, gen = client.placement.get_inventories(ctx, rp)
    assert inv["VCPU"]["total"] == 8 and inv["VCPU"]["reserved"] == 1
    assert inv["VCPU"]["allocation_ratio"] == 4.0
    adapter.reset()
    client.set_inventory_for_provider(ctx, rp, INV)
    # Fields left to Placement's defaults do not count as a change either.
    client.set_inventory_for_provider(
        ctx, rp, {"VCPU": {"total": 8, "reserved": 1, "allocation_ratio": 4},
                  "MEMORY_MB": {"total": 4096, "reserved": 512}})
    assert adapter.calls == []


def test_generation_conflict_is_refreshed_and_retried(env):
    conf, adapter, client, ctx = env
    rp, name = _new_root(client, ctx)
    client.set_inventory_for_provider(ctx, rp, INV)
    # Another writer (its own client and cache) bumps the generation.
    other = report.ReportClient(
        pl.PlacementClient(pl.build_adapter(conf)), conf=conf)
    other.get_provider_tree_and_ensure_root(ctx, rp, name=name)
    other.set_traits_for_provider(ctx, rp, {"HW_CPU_X86_AVX2"})
    stale_gen = client.get_cached_provider(rp).generation
    assert client.placement.get_provider(ctx, rp)["generation"] > stale_gen

    adapter.reset()
    bigger = dict(INV, VCPU=dict(INV["VCPU"], total=16, max_unit=16))
    client.set_inventory_for_provider(ctx, rp, bigger)
    puts = [u for m, u, _h in adapter.calls if m == "PUT"]
    assert len(puts) == 2          # the refused one and the retry
    inv, gen = client.placement.get_inventories(ctx, rp)
    assert inv["VCPU"]["total"] == 16
    assert client.get_cached_provider(rp).generation == gen
    # The refresh also picked up the other writer's trait.
    assert client.get_cached_provider(rp).traits == {"HW_CPU_X86_AVX2"}


def test_raw_put_with_stale_generation_raises_conflict(env):
    _conf_, _adapter, client, ctx = env
    rp, _name = _new_root(client, ctx)
    client.placement.put_inventories(ctx, rp, INV, 0)
    with pytest.raises(pl.GenerationConflict):
        client.placement.put_inventories(ctx, rp, INV, 0)


def test_traits_including_custom_and_aggregates(env):
    _conf_, adapter, client, ctx = env
    rp, _name = _new_root(client, ctx)
    custom = "CUSTOM_KEEL_" + uuid.uuid4().hex[:6].upper()
    client.set_traits_for_provider(ctx, rp, {"COMPUTE_NET_ATTACH_INTERFACE",
                                             custom})
    traits, _gen = client.placement.get_traits(ctx, rp)
    assert traits == {"COMPUTE_NET_ATTACH_INTERFACE", custom}
    agg = str(uuid.uuid4())
    client.set_aggregates_for_provider(ctx, rp, {agg})
    aggs, _gen = client.placement.get_aggregates(ctx, rp)
    assert aggs == {agg}
    adapter.reset()
    client.set_traits_for_provider(ctx, rp, {"COMPUTE_NET_ATTACH_INTERFACE",
                                             custom})
    client.set_aggregates_for_provider(ctx, rp, {agg})
    assert adapter.calls == []


def test_allocations_candidates_claim_usages_and_delete(env):
    _conf_, _adapter, client, ctx = env
    rp, _name = _new_root(client, ctx)
    # Traits narrow candidates to this test's provider.
    marker = "CUSTOM_KEEL_" + uuid.uuid4().hex[:6].upper()
    client.set_inventory_for_provider(ctx, rp, INV)
    client.set_traits_for_provider(ctx, rp, {marker})
    reqs, summaries, _v = client.get_allocation_candidates(
        ctx, {"resources": "VCPU:2,MEMORY_MB:1024", "required": marker})
    assert len(reqs) == 1 and rp in summaries
    consumer = str(uuid.uuid4())
    project = str(uuid.uuid4())
    assert client.claim_resources(ctx, consumer, reqs[0], project, "u")
    allocs = client.get_allocs_for_consumer(ctx, consumer)
    assert allocs["allocations"][rp]["resources"] == {"VCPU": 2,
                                                      "MEMORY_MB": 1024}
    assert allocs["consumer_generation"] == 1
    assert client.get_provider_usages(ctx, rp) == {"VCPU": 2,
                                                   "MEMORY_MB": 1024}
    assert client.get_usages_counts_for_quota(ctx, project) == {
        "VCPU": 2, "MEMORY_MB": 1024}

    # A writer holding an old consumer generation must not overwrite.
    with pytest.raises(exception.AllocationUpdateFailed):
        client.put_allocations(ctx, consumer, {rp: {"resources": {"VCPU": 1}}},
                               project, "u", consumer_generation=None)
    # More than the capacity (8 * 4.0 - 1 reserved) is refused, not raised.
    assert not client.put_allocations(
        ctx, consumer, {rp: {"resources": {"VCPU": 40}}}, project, "u", 1)

    assert client.delete_allocation_for_instance(ctx, consumer)
    assert client.get_allocs_for_consumer(ctx, consumer)["allocations"] == {}
    assert not client.delete_allocation_for_instance(ctx, consumer)
    assert client.get_provider_usages(ctx, rp) == {"VCPU": 0, "MEMORY_MB": 0}


def test_inventory_in_use_and_delete_provider(env):
    _conf_, _adapter, client, ctx = env
    rp, _name = _new_root(client, ctx)
    client.set_inventory_for_provider(ctx, rp, INV)
    consumer = str(uuid.uuid4())
    assert client.put_allocations(ctx, consumer,
                                  {rp: {"resources": {"VCPU": 1}}},
                                  "p", "u", None)
    with pytest.raises(pl.InventoryInUse):
        client.set_inventory_for_provider(ctx, rp, {"MEMORY_MB":
                                                    INV["MEMORY_MB"]})
    with pytest.raises(pl.ResourceProviderInUse):
        client.placement.delete_provider(ctx, rp)
    client.delete_resource_provider(ctx, rp, cascade=True)
    assert client.placement.get_provider(ctx, rp) is None
    assert client.get_cached_provider(rp) is None


def test_unreachable_placement_raises_connect_failure():
    conf = _conf("http://127.0.0.1:9")  # discard port: nothing listens
    conf.set_override("connect_retries", 0, group="placement")
    client = report.ReportClient(conf=conf)
    with pytest.raises(exception.PlacementAPIConnectFailure):
        client.get_provider_tree_and_ensure_root(
            RequestContext(), str(uuid.uuid4()), name="x")


def test_many_hosts_one_client_second_cycle_is_free(env):
    """One compute process simulating many hosts shares one client: each
    host gets only its own tree, and an unchanged cycle makes no request."""
    _conf_, adapter, client, ctx = env
    hosts = {str(uuid.uuid4()): "many-%d-%s" % (i, uuid.uuid4().hex[:6])
             for i in range(15)}

    def cycle():
        for rp, name in hosts.items():
            tree = client.get_provider_tree_and_ensure_root(ctx, rp,
                                                            name=name)
            assert tree.roots() == [rp]          # not the other hosts
            tree.update_inventory(rp, INV)
            tree.update_traits(rp, {"COMPUTE_NET_ATTACH_INTERFACE"})
            client.update_from_provider_tree(ctx, tree)

    cycle()
    assert adapter.methods()["PUT"] == 2 * len(hosts)
    adapter.reset()
    cycle()
    assert adapter.calls == []
    for rp in list(hosts)[:3]:
        inv, _gen = client.placement.get_inventories(ctx, rp)
        assert inv["MEMORY_MB"]["reserved"] == 512


class _DropSecondRequestHandler(socketserver.StreamRequestHandler):
    """Answers the first request of a connection keeping it alive, then
    closes it without answering the next one: a keep-alive connection the
    server expired just as the client reused it."""

    def _read_request(self):
        line = self.rfile.readline()
        if not line:
            return None
        length = 0
        while True:
            header = self.rfile.readline()
            if header in (b"\r\n", b"\n", b""):
                break
            name, _, value = header.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if length:
            self.rfile.read(length)
        return line

    def handle(self):
        if self._read_request() is None:
            return
        self.server.answered += 1
        body = b'{"uuid": "x"}'
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json"
                         b"\r\nContent-Length: %d\r\n\r\n%s"
                         % (len(body), body))
        self.wfile.flush()
        # The connection's next request arrives and is dropped unanswered.
        self._read_request()


@pytest.fixture
def dropping_server():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0),
                                             _DropSecondRequestHandler)
    server.daemon_threads = True
    server.answered = 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_dropped_keepalive_connection_is_retried_for_idempotent(
        dropping_server):
    endpoint = "http://127.0.0.1:%d" % dropping_server.server_address[1]
    client = pl.PlacementClient(pl.adapter_for_endpoint(endpoint))
    for method in ("GET", "PUT", "DELETE", "GET"):
        resp = client.request(None, method, "/resource_providers/x", "1.14",
                              json={} if method == "PUT" else None)
        assert resp.status_code == 200
    assert dropping_server.answered == 4
    # The first request of a connection is not a retry, its reuse is.
    client = pl.PlacementClient(pl.adapter_for_endpoint(endpoint))
    assert [client.request(None, "GET", "/x", "1.0").keel_retried
            for _ in range(2)] == [False, True]


def test_dropped_keepalive_connection_fails_a_post(dropping_server):
    endpoint = "http://127.0.0.1:%d" % dropping_server.server_address[1]
    client = pl.PlacementClient(pl.adapter_for_endpoint(endpoint))
    assert client.request(None, "GET", "/x", "1.0").status_code == 200
    # A POST may have been applied: it is not sent twice.
    with pytest.raises(exception.PlacementAPIConnectFailure):
        client.request(None, "POST", "/resource_providers", "1.20",
                       json={"name": "n"})


class _LosesFirstAnswer(object):
    """The first PUT reaches Placement, then its answer is lost."""

    def __init__(self, adapter, apply_first):
        self._adapter = adapter
        self.apply_first = apply_first
        self.lost = 0

    def request(self, url, method, **kwargs):
        if method == "PUT" and not self.lost:
            self.lost += 1
            if self.apply_first:
                self._adapter.request(url, method, **kwargs)
            raise ks_exc.ConnectFailure("Connection aborted.")
        return self._adapter.request(url, method, **kwargs)


@pytest.mark.parametrize("apply_first", [True, False])
def test_claim_survives_a_lost_answer(env, apply_first):
    conf, _adapter, client, ctx = env
    rp, _name = _new_root(client, ctx)
    client.set_inventory_for_provider(ctx, rp, INV)
    lossy = report.ReportClient(pl.PlacementClient(_LosesFirstAnswer(
        pl.build_adapter(conf), apply_first)), conf=conf)
    consumer = str(uuid.uuid4())
    areq = {"allocations": {rp: {"resources": {"VCPU": 2}}}}
    assert lossy.claim_resources(ctx, consumer, areq, "p", "u")
    held = client.get_allocs_for_consumer(ctx, consumer)
    assert held["allocations"][rp]["resources"] == {"VCPU": 2}
    assert held["consumer_generation"] == 1     # written once
    # Someone else's allocations under the same consumer still conflict.
    other = str(uuid.uuid4())
    assert client.claim_resources(
        ctx, other, {"allocations": {rp: {"resources": {"VCPU": 1}}}},
        "p", "u")
    lossy.placement.adapter.lost = 0
    lossy.placement.adapter.apply_first = False
    with pytest.raises(exception.AllocationUpdateFailed):
        lossy.claim_resources(ctx, other, areq, "p", "u")


def test_placement_retry_options_reach_the_adapter():
    # Nova's [placement] keystoneauth adapter options: an operator's
    # connect_retries / status_code_retries apply to every request.
    conf = _conf("http://127.0.0.1:9")
    conf.set_override("connect_retries", 3, group="placement")
    conf.set_override("status_code_retries", 2, group="placement")
    adapter = pl.build_adapter(conf)
    assert (adapter.connect_retries, adapter.status_code_retries) == (3, 2)
