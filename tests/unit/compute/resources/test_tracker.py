"""ResourceTracker: compute_nodes records on SQLite and providers in the real
(embedded) Placement, for two simulated hosts."""
import uuid

import os_traits
import pytest

from keel.clients import placement as pl
from keel import exception
from keel.clients import report
from keel.compute.resources import tracker as rt_mod
from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from keel.virt import fake
from tests.fixtures.placement import shared_placement
from tests.unit.clients.test_placement_client import CountingAdapter

objects.register_all()


@pytest.fixture
def ctx(tmp_path):
    CONF.set_override("connection", f"sqlite:///{tmp_path}/api.sqlite",
                      group="api_database")
    CONF.set_override("connection", f"sqlite:///{tmp_path}/cell.sqlite",
                      group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine())
    overrides = {"cpu_allocation_ratio": 16.0,
                 "initial_ram_allocation_ratio": 1.5,
                 "reserved_host_cpus": 1,
                 "reserved_host_memory_mb": 1024,
                 "reserved_host_disk_mb": 1500}
    for name, value in overrides.items():
        CONF.set_override(name, value)
    yield keel_context.get_admin_context()
    for name in overrides:
        CONF.clear_override(name)
    session.reset()
    CONF.clear_override("connection", group="api_database")
    CONF.clear_override("connection", group="database")


def _client():
    adapter = CountingAdapter(
        pl.adapter_for_endpoint(shared_placement().endpoint))
    return report.ReportClient(pl.PlacementClient(adapter), conf=CONF), \
        adapter


def _host(prefix, **resources):
    host = "%s-%s" % (prefix, uuid.uuid4().hex[:8])
    return fake.FakeDriver(host=host, conf=CONF, **resources)


class Inst(object):
    def __init__(self, vcpus, memory_mb, root_gb):
        self.uuid = str(uuid.uuid4())
        self.name = "instance-" + self.uuid[:8]
        self.vcpus, self.memory_mb, self.root_gb = vcpus, memory_mb, root_gb
        self.ephemeral_gb = 0
        self.flavor = None


def test_two_hosts_get_records_and_providers(ctx):
    client, _adapter = _client()
    d1 = _host("cmp", vcpus=8, memory_mb=16384, local_gb=100)
    d2 = _host("cmp", vcpus=32, memory_mb=65536, local_gb=2000)
    for drv in (d1, d2):
        tracker = rt_mod.ResourceTracker(drv.host, drv, client)
        tracker.update_available_resource(ctx, startup=True)

    for drv, vcpus, mem, disk in ((d1, 8, 16384, 100),
                                  (d2, 32, 65536, 2000)):
        cn = objects.ComputeNode.get_by_host_and_nodename(ctx, drv.host,
                                                          drv.nodename)
        assert (cn.vcpus, cn.memory_mb, cn.local_gb) == (vcpus, mem, disk)
        assert cn.uuid == drv.node_uuid
        assert cn.hypervisor_type == "fake"
        assert cn.hypervisor_version == 1000
        assert str(cn.host_ip) == CONF.my_ip
        assert [s.to_list() for s in cn.supported_hv_specs] == [
            ["x86_64", "kvm", "hvm"]]
        assert cn.cpu_allocation_ratio == 16.0
        assert cn.ram_allocation_ratio == 1.5
        assert cn.disk_allocation_ratio == 1.0
        # Reserved memory and (rounded-up) disk count as used on the record.
        assert (cn.memory_mb_used, cn.local_gb_used) == (1024, 2)
        assert cn.free_ram_mb == mem - 1024

        rp = client.placement.get_provider_by_name(ctx, drv.nodename)
        assert rp["uuid"] == cn.uuid
        inv, _gen = client.placement.get_inventories(ctx, cn.uuid)
        assert set(inv) == {"VCPU", "MEMORY_MB", "DISK_GB"}
        assert inv["VCPU"]["total"] == vcpus
        assert inv["VCPU"]["allocation_ratio"] == 16.0
        assert inv["VCPU"]["reserved"] == 1
        assert inv["MEMORY_MB"]["total"] == mem
        assert inv["MEMORY_MB"]["allocation_ratio"] == 1.5
        assert inv["MEMORY_MB"]["reserved"] == 1024
        assert inv["DISK_GB"]["total"] == disk
        assert inv["DISK_GB"]["allocation_ratio"] == 1.0
        assert inv["DISK_GB"]["reserved"] == 2     # 1500 MiB -> 2 GiB
        traits, _gen = client.placement.get_traits(ctx, cn.uuid)
        assert os_traits.COMPUTE_NET_ATTACH_INTERFACE in traits
        assert os_traits.COMPUTE_VOLUME_MULTI_ATTACH in traits
        assert os_traits.COMPUTE_RESCUE_BFV not in traits
        assert os_traits.COMPUTE_STATUS_DISABLED not in traits

    rows = {(c.host, c.hypervisor_hostname) for c in
            _all_compute_nodes(ctx)}
    assert rows == {(d1.host, d1.nodename), (d2.host, d2.nodename)}


def _all_compute_nodes(ctx):
    import sqlalchemy as sa
    with session.cell_reader(ctx) as s:
        return s.execute(sa.select(cell_models.ComputeNode)).scalars().all()


def test_periodic_update_without_change_writes_nothing(ctx):
    client, adapter = _client()
    drv = _host("quiet")
    tracker = rt_mod.ResourceTracker(drv.host, drv, client)
    tracker.update_available_resource(ctx, startup=True)
    before = objects.ComputeNode.get_by_host_and_nodename(
        ctx, drv.host, drv.nodename)
    adapter.reset()
    tracker.update_available_resource(ctx)
    assert adapter.calls == []
    after = objects.ComputeNode.get_by_host_and_nodename(
        ctx, drv.host, drv.nodename)
    assert after.updated_at == before.updated_at

    # A guest changes usage on the record, not the Placement inventory.
    drv.spawn(ctx, Inst(2, 2048, 10), None, [], None, {})
    tracker.update_available_resource(ctx)
    assert adapter.calls == []
    cn = objects.ComputeNode.get_by_host_and_nodename(ctx, drv.host,
                                                      drv.nodename)
    assert (cn.vcpus_used, cn.memory_mb_used, cn.local_gb_used) == (
        2, 1024 + 2048, 2 + 10)
    assert cn.running_vms == 1


def test_restart_keeps_node_uuid_and_operator_ratio(ctx):
    client, _adapter = _client()
    drv = _host("restart")
    rt_mod.ResourceTracker(drv.host, drv, client).update_available_resource(
        ctx, startup=True)
    cn = objects.ComputeNode.get_by_host_and_nodename(ctx, drv.host,
                                                      drv.nodename)
    # An operator changes the RAM ratio straight in Placement.
    inv, gen = client.placement.get_inventories(ctx, cn.uuid)
    inv["MEMORY_MB"]["allocation_ratio"] = 3.0
    client.placement.put_inventories(ctx, cn.uuid, inv, gen)

    # Restart: a new tracker and a new (empty-cache) client.
    client2, adapter2 = _client()
    drv2 = fake.FakeDriver(host=drv.host, conf=CONF)
    rt_mod.ResourceTracker(drv.host, drv2, client2).update_available_resource(
        ctx, startup=True)
    assert [m for m, _u, _h in adapter2.calls if m in ("POST", "PUT")] == []
    assert len(_all_compute_nodes(ctx)) == 1
    inv, _gen = client2.placement.get_inventories(ctx, cn.uuid)
    # No [DEFAULT]/ram_allocation_ratio: Placement's value is kept ...
    assert inv["MEMORY_MB"]["allocation_ratio"] == 3.0
    # ... but a configured one wins.
    CONF.set_override("ram_allocation_ratio", 2.0)
    try:
        rt_mod.ResourceTracker(drv.host, drv2,
                               client2).update_available_resource(ctx)
    finally:
        CONF.clear_override("ram_allocation_ratio")
    inv, _gen = client2.placement.get_inventories(ctx, cn.uuid)
    assert inv["MEMORY_MB"]["allocation_ratio"] == 2.0
    cn = objects.ComputeNode.get_by_host_and_nodename(ctx, drv.host,
                                                      drv.nodename)
    assert cn.ram_allocation_ratio == 2.0


def test_disabled_service_trait(ctx):
    client, _adapter = _client()
    drv = _host("dis")
    tracker = rt_mod.ResourceTracker(drv.host, drv, client)
    tracker.update_available_resource(ctx, startup=True)
    node_uuid = tracker.get_node_uuid(drv.nodename)

    tracker.update_compute_provider_status(ctx, disabled=True)
    traits, _gen = client.placement.get_traits(ctx, node_uuid)
    assert os_traits.COMPUTE_STATUS_DISABLED in traits
    # The periodic update keeps it while disabled ...
    tracker.update_available_resource(ctx)
    traits, _gen = client.placement.get_traits(ctx, node_uuid)
    assert os_traits.COMPUTE_STATUS_DISABLED in traits
    # ... and a callable hook takes precedence over the flag.
    tracker.is_service_disabled = lambda: False
    tracker.update_available_resource(ctx)
    traits, _gen = client.placement.get_traits(ctx, node_uuid)
    assert os_traits.COMPUTE_STATUS_DISABLED not in traits
    assert os_traits.COMPUTE_NET_ATTACH_INTERFACE in traits


def test_tracker_builds_its_client_from_placement_options(ctx):
    CONF.set_override("auth_type", "none", group="placement")
    CONF.set_override("endpoint_override", shared_placement().endpoint,
                      group="placement")
    try:
        drv = _host("conf")
        tracker = rt_mod.ResourceTracker(drv.host, drv)
        tracker.update_available_resource(ctx, startup=True)
        rp = tracker.reportclient.placement.get_provider(
            ctx, tracker.get_node_uuid(drv.nodename))
        assert rp["name"] == drv.nodename
    finally:
        CONF.clear_override("auth_type", group="placement")
        CONF.clear_override("endpoint_override", group="placement")


class MultiNodeDriver(fake.FakeDriver):
    """One service, several nodes (as the KubeVirt driver has)."""

    def __init__(self, nodes, **kw):
        super().__init__(**kw)
        self.nodes = list(nodes)

    def get_available_nodes(self, refresh=False):
        return list(self.nodes)

    def get_nodenames_by_uuid(self, refresh=False):
        return {}

    def get_available_resource(self, nodename):
        self.nodename = nodename
        res = super().get_available_resource(nodename)
        del res["uuid"]       # let the tracker generate node uuids
        return res

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        self.nodename = nodename
        super().update_provider_tree(provider_tree, nodename, allocations)


def test_nodes_of_one_host_and_vanished_node_cleanup(ctx):
    client, _adapter = _client()
    suffix = uuid.uuid4().hex[:6]
    nodes = ["kn1-" + suffix, "kn2-" + suffix]
    drv = MultiNodeDriver(nodes, host="cluster-" + suffix, conf=CONF)
    tracker = rt_mod.ResourceTracker(drv.host, drv, client)
    tracker.update_available_resource(ctx, startup=True)
    uuids = {n: tracker.get_node_uuid(n) for n in nodes}
    assert len(set(uuids.values())) == 2
    for node in nodes:
        assert client.placement.get_provider_by_name(ctx, node)["uuid"] == \
            uuids[node]

    # A node with allocations is kept while they exist ...
    consumer = str(uuid.uuid4())
    assert client.put_allocations(ctx, consumer, {uuids[nodes[1]]: {
        "resources": {"VCPU": 1}}}, "p", "u", None)
    drv.nodes = [nodes[0]]
    tracker.update_available_resource(ctx)
    assert client.placement.get_provider(ctx, uuids[nodes[1]]) is not None
    objects.ComputeNode.get_by_host_and_nodename(ctx, drv.host, nodes[1])

    # ... and removed, record and provider, once they are gone.
    client.delete_allocation_for_instance(ctx, consumer, force=True)
    tracker.update_available_resource(ctx)
    assert client.placement.get_provider(ctx, uuids[nodes[1]]) is None
    with pytest.raises(exception.ComputeHostNotFound):
        objects.ComputeNode.get_by_host_and_nodename(ctx, drv.host, nodes[1])
    assert client.placement.get_provider(ctx, uuids[nodes[0]]) is not None

    # An empty node list (a hypervisor hiccup) deletes nothing.
    drv.nodes = []
    tracker.update_available_resource(ctx)
    objects.ComputeNode.get_by_host_and_nodename(ctx, drv.host, nodes[0])


def test_unchanged_node_list_does_not_reread_the_host_records(ctx,
                                                              monkeypatch):
    client, _adapter = _client()
    suffix = uuid.uuid4().hex[:6]
    nodes = ["kn1-" + suffix, "kn2-" + suffix]
    drv = MultiNodeDriver(nodes, host="steady-" + suffix, conf=CONF)
    tracker = rt_mod.ResourceTracker(drv.host, drv, client)
    reads = []
    real = objects.ComputeNodeList.get_all_by_host

    def counting(context, host, *args, **kwargs):
        reads.append(host)
        return real(context, host, *args, **kwargs)
    monkeypatch.setattr(objects.ComputeNodeList, "get_all_by_host",
                        counting)
    tracker.update_available_resource(ctx, startup=True)
    tracker.update_available_resource(ctx)
    tracker.update_available_resource(ctx)
    assert reads == [drv.host]

    # The driver dropping a node is looked at (and acted on) at once.
    uuid_gone = tracker.get_node_uuid(nodes[1])
    drv.nodes = [nodes[0]]
    tracker.update_available_resource(ctx)
    assert reads == [drv.host, drv.host]
    assert client.placement.get_provider(ctx, uuid_gone) is None
    tracker.update_available_resource(ctx)
    assert reads == [drv.host, drv.host]


def test_unchanged_refresh_does_not_save_the_record(ctx, monkeypatch):
    # Over RPC every save is a conductor round trip, per host per period.
    client, _adapter = _client()
    drv = _host("still")
    tracker = rt_mod.ResourceTracker(drv.host, drv, client)
    tracker.update_available_resource(ctx, startup=True)
    saves = []
    real = objects.ComputeNode.save

    def counting(self, *args, **kwargs):
        saves.append(sorted(self.obj_what_changed()))
        return real(self, *args, **kwargs)
    monkeypatch.setattr(objects.ComputeNode, "save", counting)
    tracker.update_available_resource(ctx)
    tracker.update_available_resource(ctx)
    assert saves == []
    drv.spawn(ctx, Inst(1, 512, 1), None, [], None, {})
    tracker.update_available_resource(ctx)
    assert len(saves) == 1 and "memory_mb_used" in saves[0]
