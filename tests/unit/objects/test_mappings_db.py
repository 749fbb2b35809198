"""CellMapping, HostMapping and InstanceMapping on the API database."""
import pytest
from oslo_utils import uuidutils

from keel import exception
from keel import objects
from keel.objects import cell_mapping as cell_mapping_obj


def _cell(ctx, uuid=None, name="cell1"):
    cell = objects.CellMapping(
        ctx, uuid=uuid or uuidutils.generate_uuid(), name=name,
        transport_url="rabbit://guest:guest@localhost:5672/",
        database_connection="sqlite:///x.sqlite")
    cell.create()
    return cell


def test_cell_mapping_crud_and_cell0(ctx):
    cell0 = _cell(ctx, uuid=cell_mapping_obj.CELL0_UUID, name="cell0")
    cell1 = _cell(ctx)
    assert cell0.is_cell0() and not cell1.is_cell0()
    assert objects.CellMapping.CELL0_UUID == \
        "00000000-0000-0000-0000-000000000000"
    assert [c.name for c in objects.CellMappingList.get_all(ctx)] == \
        ["cell0", "cell1"]
    got = objects.CellMapping.get_by_uuid(ctx, cell1.uuid)
    assert got.transport_url.startswith("rabbit://")
    assert got.disabled is False
    got.disabled = True
    got.save()
    assert [c.uuid for c in objects.CellMappingList.get_by_disabled(
        ctx, True)] == [cell1.uuid]
    got.destroy()
    with pytest.raises(exception.CellMappingNotFound):
        objects.CellMapping.get_by_uuid(ctx, cell1.uuid)
    with pytest.raises(exception.CellMappingExists):
        _cell(ctx, uuid=cell0.uuid)


def test_host_mapping(ctx):
    cell1, cell2 = _cell(ctx), _cell(ctx, name="cell2")
    hm = objects.HostMapping(ctx, host="h1", cell_mapping=cell1)
    hm.create()
    got = objects.HostMapping.get_by_host(ctx, "h1")
    assert got.cell_mapping.uuid == cell1.uuid
    with pytest.raises(exception.HostMappingExists):
        objects.HostMapping(ctx, host="h1", cell_mapping=cell2).create()
    got.cell_mapping = cell2
    got.save()
    assert objects.HostMapping.get_by_host(ctx, "h1").cell_mapping.name == \
        "cell2"
    objects.HostMapping(ctx, host="h2", cell_mapping=cell1).create()
    assert [m.host for m in objects.HostMappingList.get_all(ctx)] == \
        ["h1", "h2"]
    assert [m.host for m in objects.HostMappingList.get_by_cell_id(
        ctx, cell1.id)] == ["h2"]
    got.destroy()
    with pytest.raises(exception.HostMappingNotFound):
        objects.HostMapping.get_by_host(ctx, "h1")


def test_instance_mapping(ctx):
    cell = _cell(ctx)
    uuids = [uuidutils.generate_uuid() for _ in range(3)]
    for i, uuid in enumerate(uuids):
        im = objects.InstanceMapping(ctx, instance_uuid=uuid,
                                     project_id="p1" if i < 2 else "p2",
                                     user_id="u1", cell_mapping=None)
        im.create()
    got = objects.InstanceMapping.get_by_instance_uuid(ctx, uuids[0])
    assert got.cell_mapping is None and got.queued_for_delete is False
    got.cell_mapping = cell
    got.save()
    got = objects.InstanceMapping.get_by_instance_uuid(ctx, uuids[0])
    assert got.cell_mapping.uuid == cell.uuid
    assert [m.instance_uuid for m in
            objects.InstanceMappingList.get_by_project_id(ctx, "p1")] == \
        uuids[:2]
    assert len(objects.InstanceMappingList.get_by_instance_uuids(
        ctx, uuids[1:])) == 2
    assert [m.instance_uuid for m in
            objects.InstanceMappingList.get_by_cell_id(ctx, cell.id)] == \
        uuids[:1]
    assert objects.InstanceMappingList.get_counts(ctx, "p1", "u1") == {
        "project": {"instances": 2}, "user": {"instances": 2}}
    assert [c.uuid for c in objects.CellMappingList.get_by_project_id(
        ctx, "p1")] == [cell.uuid]
    got.destroy()
    with pytest.raises(exception.InstanceMappingNotFound):
        objects.InstanceMapping.get_by_instance_uuid(ctx, uuids[0])
