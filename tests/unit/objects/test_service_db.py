"""Service and ComputeNode against a real (SQLite) cell database."""
import pytest

from keel import exception
from keel import objects
from keel.objects import service as service_obj


def _service(ctx, host="host1", binary="nova-compute", **kw):
    svc = objects.Service(ctx, host=host, binary=binary,
                          topic=binary.replace("nova-", ""), report_count=0,
                          **kw)
    svc.create()
    return svc


def _node(ctx, host="host1", nodename="node1", **kw):
    values = dict(host=host, hypervisor_hostname=nodename, vcpus=8,
                  memory_mb=16384, local_gb=100, vcpus_used=0,
                  memory_mb_used=0, local_gb_used=0,
                  hypervisor_type="kvm", hypervisor_version=1,
                  cpu_info="{}")
    values.update(kw)
    node = objects.ComputeNode(ctx, **values)
    node.create()
    return node


def _age(ctx, svc, version):
    """Make a record look written by older code (a direct UPDATE)."""
    import sqlalchemy as sa

    from keel.db.cell import models
    from keel.db import session

    with session.cell_writer(ctx) as s:
        s.execute(sa.update(models.Service).where(
            models.Service.id == svc.id).values(version=version))


def test_service_create_fills_id_uuid_and_current_version(ctx):
    svc = _service(ctx)
    assert svc.id > 0
    assert svc.uuid
    assert svc.version == service_obj.SERVICE_VERSION
    assert svc.disabled is False and svc.forced_down is False
    assert not svc.obj_what_changed()


def test_service_lookups(ctx):
    svc = _service(ctx)
    assert objects.Service.get_by_id(ctx, svc.id).host == "host1"
    assert objects.Service.get_by_uuid(ctx, svc.uuid).id == svc.id
    assert objects.Service.get_by_host_and_binary(
        ctx, "host1", "nova-compute").id == svc.id
    assert objects.Service.get_by_host_and_binary(
        ctx, "host1", "nova-scheduler") is None
    assert objects.Service.get_by_compute_host(ctx, "host1").id == svc.id
    with pytest.raises(exception.ComputeHostNotFound):
        objects.Service.get_by_compute_host(ctx, "nohost")
    with pytest.raises(exception.ServiceNotFound):
        objects.Service.get_by_id(ctx, 999)


def test_service_duplicate_binary_is_refused(ctx):
    _service(ctx)
    dup = objects.Service(ctx, host="host1", binary="nova-compute",
                          topic="other", report_count=0)
    with pytest.raises(exception.ServiceBinaryExists):
        dup.create()
    dup_topic = objects.Service(ctx, host="host1", binary="nova-other",
                                topic="compute", report_count=0)
    with pytest.raises(exception.ServiceTopicExists):
        dup_topic.create()


def test_service_save_and_destroy_soft_deletes_nodes(ctx, admin_ctx):
    svc = _service(ctx)
    _node(ctx)
    svc.report_count = 5
    svc.disabled = True
    svc.save()
    again = objects.Service.get_by_id(ctx, svc.id)
    assert (again.report_count, again.disabled) == (5, True)
    svc.destroy()
    with pytest.raises(exception.ServiceNotFound):
        objects.Service.get_by_id(ctx, svc.id)
    assert list(objects.ComputeNodeList.get_all(ctx)) == []
    # Soft delete: still readable with read_deleted='yes'.
    admin_ctx.read_deleted = "yes"
    gone = objects.Service.get_by_id(admin_ctx, svc.id)
    assert gone.deleted is True and gone.deleted_at is not None
    # And the same host/binary can register again.
    assert _service(ctx).id != svc.id


def test_minimum_versions_skip_forced_down_and_deleted(ctx):
    _service(ctx, host="a")
    _age(ctx, _service(ctx, host="b"), 60)
    down = _service(ctx, host="c")
    down.forced_down = True
    down.save()
    _age(ctx, down, 50)
    assert objects.Service.get_minimum_version(ctx, "nova-compute") == 60
    assert objects.Service.get_minimum_version_multi(
        ctx, ["nova-compute", "nova-conductor"]) == {
            "nova-compute": 60, "nova-conductor": 0}
    with pytest.raises(exception.ObjectActionError):
        objects.Service.get_minimum_version(ctx, "compute")


def test_service_lists(ctx):
    _service(ctx, host="a")
    disabled = _service(ctx, host="b")
    disabled.disabled = True
    disabled.save()
    _service(ctx, host="a", binary="nova-conductor")
    _node(ctx, host="a")
    assert [s.host for s in objects.ServiceList.get_by_binary(
        ctx, "nova-compute")] == ["a"]
    assert len(objects.ServiceList.get_by_binary(
        ctx, "nova-compute", include_disabled=True)) == 2
    assert len(objects.ServiceList.get_all(ctx)) == 3
    assert len(objects.ServiceList.get_all(ctx, disabled=True)) == 1
    assert [s.host for s in objects.ServiceList.get_by_topic(
        ctx, "compute")] == ["a"]
    assert [s.host for s in objects.ServiceList.get_all_computes_by_hv_type(
        ctx, "kvm")] == ["a"]


def test_compute_node_round_trip(ctx):
    node = _node(ctx, stats={"num_instances": "1"}, host_ip="10.0.0.5",
                 supported_hv_specs=[objects.HVSpec(
                     arch="x86_64", hv_type="kvm", vm_mode="hvm")])
    got = objects.ComputeNode.get_by_host_and_nodename(ctx, "host1",
                                                       "node1")
    assert got.uuid == node.uuid
    assert got.stats == {"num_instances": "1"}
    assert str(got.host_ip) == "10.0.0.5"
    assert got.supported_hv_specs[0].arch == "x86_64"
    assert not got.obj_what_changed()
    # Unset allocation ratios read as the initial_* defaults.
    assert got.cpu_allocation_ratio == 4.0
    assert objects.ComputeNode.get_by_uuid(ctx, node.uuid).id == node.id
    assert objects.ComputeNode.get_by_id(ctx, node.id).id == node.id
    got.vcpus_used = 2
    got.stats = {"io": "3"}
    got.save()
    fresh = objects.ComputeNode.get_by_id(ctx, node.id)
    assert fresh.vcpus_used == 2
    # Nova's save replaces the stats column (no merge).
    assert fresh.stats == {"io": "3"}
    fresh.destroy()
    with pytest.raises(exception.ComputeHostNotFound):
        objects.ComputeNode.get_by_id(ctx, node.id)


def test_compute_node_lists(ctx):
    _node(ctx, host="h1", nodename="n1")
    _node(ctx, host="h1", nodename="n2")
    _node(ctx, host="h2", nodename="other")
    assert [n.hypervisor_hostname for n in
            objects.ComputeNodeList.get_all_by_host(ctx, "h1")] == \
        ["n1", "n2"]
    with pytest.raises(exception.ComputeHostNotFound):
        objects.ComputeNodeList.get_all_by_host(ctx, "h9")
    assert [n.hypervisor_hostname for n in
            objects.ComputeNodeList.get_by_hypervisor(ctx, "oth")] == \
        ["other"]
    assert len(objects.ComputeNodeList.get_all(ctx)) == 3


def test_compute_node_duplicate_uuid(ctx):
    node = _node(ctx)
    with pytest.raises(exception.DuplicateRecord):
        _node(ctx, nodename="n2", uuid=node.uuid)


def test_compute_node_pagination(ctx):
    nodes = [_node(ctx, nodename="n%d" % i) for i in range(4)]
    page = objects.ComputeNodeList.get_by_pagination(ctx, limit=2,
                                                     marker=nodes[0].id)
    assert [n.id for n in page] == [nodes[1].id, nodes[2].id]
    with pytest.raises(exception.MarkerNotFound):
        objects.ComputeNodeList.get_by_pagination(ctx, marker=999)


def test_minimum_version_across_cells(ctx, tmp_path):
    from keel.conf import CONF
    from keel.db.cell import models as cell_models
    from keel.db import session
    from keel import context as keel_context
    from oslo_utils import uuidutils

    other_url = "sqlite:///%s/cell2.sqlite" % tmp_path
    cell_models.Base.metadata.create_all(session.cell_engine(other_url))
    cells = []
    for name, url in (("cell1", CONF.database.connection),
                      ("cell2", other_url)):
        cell = objects.CellMapping(ctx, uuid=uuidutils.generate_uuid(),
                                   name=name, transport_url="none:///",
                                   database_connection=url)
        cell.create()
        cells.append(cell)
    _service(ctx, host="a")
    with keel_context.target_cell(ctx, cells[1]) as cctxt:
        _age(cctxt, _service(cctxt, host="b"), 61)
    assert objects.Service.get_minimum_version(ctx, "nova-compute") == \
        service_obj.SERVICE_VERSION
    assert service_obj.get_minimum_version_all_cells(
        ctx, ["nova-compute", "nova-conductor"]) == {
            "nova-compute": 61, "nova-conductor": 0}


def test_older_code_cannot_write_its_record(ctx):
    svc = _service(ctx, host="a")
    _service(ctx, host="b")
    _age(ctx, svc, 60)
    stale = objects.Service.get_by_id(ctx, svc.id)
    assert stale.version == 60
    stale.version = 59
    stale.report_count = 1
    with pytest.raises(exception.ServiceTooOld):
        stale.save()
    with pytest.raises(exception.ObjectActionError):
        objects.Service(ctx, host="x", binary="nova-compute", version=1)


def test_service_zone_and_node_lazy_loads(ctx):
    svc = _service(ctx, host="h1")
    _node(ctx, host="h1")
    conductor = _service(ctx, host="h1", binary="nova-conductor")
    assert objects.Service.get_by_id(ctx, svc.id).availability_zone == \
        "nova"
    agg = objects.Aggregate(ctx, name="a1",
                            metadata={"availability_zone": "az1"})
    agg.create()
    agg.add_host("h1")
    got = objects.Service.get_by_id(ctx, svc.id)
    assert got.availability_zone == "az1"
    assert got.compute_node.hypervisor_hostname == "node1"
    other = objects.Service.get_by_id(ctx, conductor.id)
    assert other.availability_zone == "internal"
    with pytest.raises(exception.ServiceNotFound):
        other.compute_node


def test_service_backport_drops_newer_fields():
    svc = objects.Service(host="h", binary="nova-compute",
                          uuid="2b8e3b56-a8c9-4a0f-9f56-1c8d3f1f2f10",
                          forced_down=False)
    data = svc.obj_to_primitive(target_version="1.20")["nova_object.data"]
    assert "uuid" not in data and data["version"] == \
        service_obj.SERVICE_VERSION
    data = svc.obj_to_primitive(target_version="1.13")["nova_object.data"]
    assert "forced_down" not in data and "version" not in data
