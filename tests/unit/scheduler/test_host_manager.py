"""Host states from the databases: a fixed number of statements whatever
the number of hosts (no query per host)."""
import datetime
import uuid

import orjson
import pytest
import sqlalchemy as sa

from keel.clients import placement_candidates
from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from keel.scheduler import host_manager
from tests.unit.scheduler.conftest import make_host
from tests.unit.scheduler.conftest import make_spec

CELL = "2b7f3c1e-5d4a-4e6f-9a8b-7c6d5e4f3a2b"


@pytest.fixture
def ctxt(tmp_path):
    api_url = f"sqlite:///{tmp_path}/api.sqlite"
    cell_url = f"sqlite:///{tmp_path}/cell.sqlite"
    CONF.set_override("connection", api_url, group="api_database")
    CONF.set_override("connection", cell_url, group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine(cell_url))
    ctx = keel_context.get_admin_context()
    objects.CellMapping(ctx, uuid=CELL, name="cell1", transport_url="fake:/",
                        database_connection=cell_url).create()
    yield ctx
    session.reset()
    for group in ("api_database", "database"):
        CONF.clear_override("connection", group=group)


def add_hosts(ctx, count, instances_per_host=2):
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    nodes = []
    with session.cell_writer(ctx) as s:
        for i in range(count):
            host = "host%03d" % i
            node = str(uuid.uuid4())
            nodes.append(node)
            s.add(cell_models.Service(uuid=str(uuid.uuid4()), host=host,
                                      binary="nova-compute",
                                      topic="compute", report_count=1,
                                      disabled=(i == 0),
                                      last_seen_up=now))
            s.add(cell_models.ComputeNode(
                host=host, uuid=node, hypervisor_hostname=host, vcpus=8,
                memory_mb=4096, local_gb=100, vcpus_used=0,
                memory_mb_used=1024, local_gb_used=10,
                hypervisor_type="fake", hypervisor_version=1000,
                cpu_info="{}", stats='{"failed_builds": "%d"}' % (i % 2),
                ram_allocation_ratio=1.0, cpu_allocation_ratio=4.0,
                disk_allocation_ratio=1.0))
            for _ in range(instances_per_host):
                s.add(cell_models.Instance(uuid=str(uuid.uuid4()),
                                           host=host, node=host))
    return nodes


def count_statements(fn):
    seen = []

    def before(conn, cursor, statement, *args):
        seen.append(statement)
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", before)
    try:
        result = fn()
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", before)
    return result, len(seen)


def test_statements_do_not_grow_with_hosts(ctxt):
    few = add_hosts(ctxt, 3)
    many = few + add_hosts_offset(ctxt, 30)
    manager = host_manager.HostManager()
    manager.cells(ctxt)                      # cached cell list
    states, n_few = count_statements(
        lambda: manager.get_host_states_by_uuids(ctxt, few))
    assert len(states) == 3
    states, n_many = count_statements(
        lambda: manager.get_host_states_by_uuids(ctxt, many))
    assert len(states) == 33
    assert n_many == n_few <= 10
    # Nothing changed: the node rows are not loaded again.
    states, n_cached = count_statements(
        lambda: manager.get_host_states_by_uuids(ctxt, many))
    assert len(states) == 33 and n_cached < n_many


def test_changed_node_is_reloaded(ctxt):
    nodes = add_hosts(ctxt, 2)
    manager = host_manager.HostManager()
    before = {s.uuid: s for s in manager.get_host_states_by_uuids(
        ctxt, nodes)}
    assert before[nodes[0]].total_usable_ram_mb == 4096
    before[nodes[0]].consume_from_request(make_spec(memory_mb=1000))
    later = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) + datetime.timedelta(seconds=5)
    with session.cell_writer(ctxt) as s:
        s.execute(sa.update(cell_models.ComputeNode).where(
            cell_models.ComputeNode.uuid == nodes[0]).values(
            memory_mb=8192, updated_at=later))
    after = {s.uuid: s for s in manager.get_host_states_by_uuids(
        ctxt, nodes)}
    assert after[nodes[0]].total_usable_ram_mb == 8192
    # What one request consumed does not leak into the next.
    assert after[nodes[1]].free_ram_mb == before[nodes[1]].free_ram_mb
    assert after[nodes[0]].free_ram_mb == 8192 - 1024


def add_hosts_offset(ctx, count):
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    nodes = []
    with session.cell_writer(ctx) as s:
        for i in range(count):
            host = "more%03d" % i
            node = str(uuid.uuid4())
            nodes.append(node)
            s.add(cell_models.Service(uuid=str(uuid.uuid4()), host=host,
                                      binary="nova-compute",
                                      topic="compute", report_count=1,
                                      last_seen_up=now))
            s.add(cell_models.ComputeNode(
                host=host, uuid=node, hypervisor_hostname=host, vcpus=8,
                memory_mb=4096, local_gb=100, vcpus_used=0,
                memory_mb_used=0, local_gb_used=0, hypervisor_type="fake",
                hypervisor_version=1000, cpu_info="{}"))
    return nodes


def test_host_state_contents(ctxt):
    nodes = add_hosts(ctxt, 2)
    agg = objects.Aggregate(ctxt, name="z", metadata={
        "availability_zone": "zone-1"})
    agg.create()
    agg.add_host("host001")
    summaries = placement_candidates.decode(orjson.dumps(
        {"provider_summaries": {nodes[1]: {"resources": {
            "MEMORY_MB": {"capacity": 4096, "used": 3000},
            "VCPU": {"capacity": 32, "used": 5}},
            "traits": ["CUSTOM_X"]}}})).provider_summaries
    states = host_manager.HostManager().get_host_states_by_uuids(
        ctxt, nodes, provider_summaries=summaries)
    by_host = {s.host: s for s in states}
    first, second = by_host["host000"], by_host["host001"]
    assert first.service["disabled"] and not second.service["disabled"]
    assert first.cell_uuid == CELL
    assert len(first.instances) == 2 and first.num_instances == 2
    assert first.free_ram_mb == 3072 and first.free_disk_mb == 90 * 1024
    assert first.availability_zone == CONF.default_availability_zone
    assert second.availability_zone == "zone-1"
    assert [a.uuid for a in second.aggregates] == [agg.uuid]
    # Placement's usage wins over the compute node row.
    assert second.free_ram_mb == 4096 - 3000 and second.vcpus_used == 5
    assert second.traits == {"CUSTOM_X"}
    assert (first.failed_builds, second.failed_builds) == (0, 1)


def test_tracked_hosts_take_instances_from_the_view(ctxt):
    from keel.scheduler import manager

    nodes = add_hosts(ctxt, 1)
    view = manager.HostInstanceView(loader=lambda c, h: {})
    tracked = objects.Instance(uuid=str(uuid.uuid4()))
    view.update(ctxt, "host000", [tracked, objects.Instance(
        uuid=str(uuid.uuid4()))])
    view.delete(ctxt, "host001", str(uuid.uuid4()))   # rebuilt, unconfirmed
    assert view.updated_hosts() == {"host000"}
    states = host_manager.HostManager(view).get_host_states_by_uuids(
        ctxt, nodes)
    assert tracked.uuid in states[0].instances
    assert len(states[0].instances) == 2


def test_ignore_and_force_hosts():
    hosts = [make_host("a"), make_host("b"), make_host("c")]
    spec = make_spec()
    spec.ignore_hosts = ["B"]
    kept, forced = host_manager.strip_ignored_and_forced(hosts, spec)
    assert [h.host for h in kept] == ["a", "c"] and not forced
    spec.force_hosts = ["c", "b"]
    kept, forced = host_manager.strip_ignored_and_forced(hosts, spec)
    assert [h.host for h in kept] == ["c"] and forced
    spec.ignore_hosts, spec.force_hosts, spec.force_nodes = None, None, ["a"]
    kept, forced = host_manager.strip_ignored_and_forced(hosts, spec)
    assert [h.host for h in kept] == ["a"] and forced


def test_consume_from_request():
    host = make_host(free_ram_mb=4096, free_disk_mb=20480, vcpus_used=1)
    host.consume_from_request(make_spec(vcpus=2, memory_mb=1024, root_gb=5,
                                        ephemeral_gb=1, swap=512))
    assert (host.free_ram_mb, host.free_disk_mb, host.vcpus_used,
            host.num_instances) == (3072, 20480 - 7 * 1024, 3, 1)


def test_reset_forgets_cells_and_nodes(ctxt):
    nodes = add_hosts(ctxt, 1)
    manager = host_manager.HostManager()
    manager.get_host_states_by_uuids(ctxt, nodes)
    assert manager._cells and manager._templates
    manager.reset()
    assert manager._cells is None and manager._templates == {}
    assert len(manager.get_host_states_by_uuids(ctxt, nodes)) == 1


def test_most_of_a_cell_read_whole_only_candidates_kept(ctxt):
    nodes = add_hosts(ctxt, 4)
    manager = host_manager.HostManager()
    assert len(manager.get_host_states_by_uuids(ctxt, nodes)) == 4
    # Three of four known nodes: the cell is read whole, the fourth
    # node is still not a candidate.
    seen = []

    def before(conn, cursor, statement, *args):
        seen.append(statement)
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", before)
    try:
        states = manager.get_host_states_by_uuids(ctxt, nodes[:3])
        one = manager.get_host_states_by_uuids(ctxt, nodes[3:])
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", before)
    assert sorted(s.uuid for s in states) == sorted(nodes[:3])
    assert [s.uuid for s in one] == [nodes[3]]
    # Each state has its own host's two instances, whichever way read.
    by_host = {}
    for state in states + one:
        assert len(state.instances) == 2 == state.num_instances
        by_host[state.host] = set(state.instances)
    assert len(set().union(*by_host.values())) == 8
    node_queries = [q for q in seen if "FROM compute_nodes" in q]
    assert " IN (" not in node_queries[0]
    assert " IN (" in node_queries[1]
    instance_queries = [q for q in seen if "FROM instances" in q]
    assert " IN (" not in instance_queries[0]
    assert " IN (" in instance_queries[1]


def test_a_cells_reads_share_one_connection(ctxt):
    nodes = add_hosts(ctxt, 3)
    manager = host_manager.HostManager()
    manager.cells(ctxt)         # the API database's cell list, cached
    checkouts = []

    def checkout(dbapi_conn, record, proxy):
        checkouts.append(record)
    sa.event.listen(sa.pool.Pool, "checkout", checkout)
    try:
        # Rows, the new nodes and the instances: three queries, one
        # connection taken from the pool (no aggregates: the driver's copy).
        states = manager.get_host_states_by_uuids(ctxt, nodes, aggregates=[])
    finally:
        sa.event.remove(sa.pool.Pool, "checkout", checkout)
    assert len(states) == 3
    assert len(checkouts) == 1


def _set_node(ctx, node_uuid, **values):
    with session.cell_writer(ctx) as s:
        s.execute(sa.update(cell_models.ComputeNode).where(
            cell_models.ComputeNode.uuid == node_uuid).values(**values))


def _node_reads(fn):
    """``fn()`` and the number of node detail reads it made (the query
    of the columns a template is built from)."""
    seen = []

    def before(conn, cursor, statement, *args):
        if "FROM compute_nodes" in statement and "memory_mb" in statement:
            seen.append(statement)
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", before)
    try:
        return fn(), len(seen)
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", before)


def test_change_in_the_same_second_is_seen(ctxt):
    """MariaDB keeps whole seconds: a write in the second of the version
    the scheduler read leaves the version as it was, and the next decision
    still sees the write."""
    nodes = add_hosts(ctxt, 2)
    now = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)
    _set_node(ctxt, nodes[1], updated_at=now)
    manager = host_manager.HostManager()
    first = {s.uuid: s for s in manager.get_host_states_by_uuids(
        ctxt, nodes)}
    assert first[nodes[1]].total_usable_ram_mb == 4096
    _set_node(ctxt, nodes[1], memory_mb=8192, updated_at=now)
    later, reads = _node_reads(lambda: {
        s.uuid: s for s in manager.get_host_states_by_uuids(ctxt, nodes)})
    assert later[nodes[1]].total_usable_ram_mb == 8192 and reads == 1
    # A version old enough that no write can share its second: trusted.
    old = now - datetime.timedelta(seconds=10)
    _set_node(ctxt, nodes[1], memory_mb=2048, updated_at=old)
    states, reads = _node_reads(lambda: {
        s.uuid: s for s in manager.get_host_states_by_uuids(ctxt, nodes)})
    assert states[nodes[1]].total_usable_ram_mb == 2048 and reads == 1
    states, reads = _node_reads(lambda: {
        s.uuid: s for s in manager.get_host_states_by_uuids(ctxt, nodes)})
    assert states[nodes[1]].total_usable_ram_mb == 2048 and reads == 0


def test_disabled_and_deleted_nodes_seen_by_the_next_decision(ctxt):
    from keel.scheduler.filters import compute as compute_filters

    nodes = add_hosts(ctxt, 3)
    manager = host_manager.HostManager()
    states = manager.get_host_states_by_uuids(ctxt, nodes)
    up = compute_filters.ComputeFilter().filter_all(states, make_spec())
    assert sorted(s.host for s in up) == ["host001", "host002"]
    # Disable host001's service, soft-delete host002's node: no node row's
    # version moves for the first.
    with session.cell_writer(ctxt) as s:
        s.execute(sa.update(cell_models.Service).where(
            cell_models.Service.host == "host001").values(disabled=True))
        s.execute(sa.update(cell_models.ComputeNode).where(
            cell_models.ComputeNode.uuid == nodes[2]).values(
            deleted=cell_models.ComputeNode.id))
    states = manager.get_host_states_by_uuids(ctxt, nodes)
    assert sorted(s.host for s in states) == ["host000", "host001"]
    assert compute_filters.ComputeFilter().filter_all(
        states, make_spec()) == []
