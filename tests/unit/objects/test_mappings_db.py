"""CellMapping, HostMapping and InstanceMapping on the API database."""
import pytest
from oslo_utils import uuidutils
import sqlalchemy as sa

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


def _flavor(ctx, flavorid="1", name="m1.tiny", **kw):
    values = dict(flavorid=flavorid, name=name, memory_mb=512, vcpus=1,
                  root_gb=1, ephemeral_gb=0, swap=0, is_public=True,
                  disabled=False, extra_specs={"hw:cpu_policy": "shared"},
                  projects=[])
    values.update(kw)
    flavor = objects.Flavor(ctx, **values)
    flavor.create()
    return flavor


def test_flavor_crud(admin_ctx):
    flavor = _flavor(admin_ctx)
    got = objects.Flavor.get_by_flavor_id(admin_ctx, "1")
    assert got.id == flavor.id and got.extra_specs == {
        "hw:cpu_policy": "shared"}
    assert got.rxtx_factor == 1.0
    assert not got.obj_attr_is_set("deleted")
    assert objects.Flavor.get_by_name(admin_ctx, "m1.tiny").id == flavor.id
    with pytest.raises(exception.FlavorNotFoundByName):
        objects.Flavor.get_by_name(admin_ctx, "nope")
    with pytest.raises(exception.FlavorIdExists):
        _flavor(admin_ctx, name="other")
    with pytest.raises(exception.FlavorExists):
        _flavor(admin_ctx, flavorid="2")
    got.extra_specs = {"hw:mem_page_size": "large"}
    got.description = "tiny"
    got.save()
    again = objects.Flavor.get_by_id(admin_ctx, flavor.id)
    assert again.extra_specs == {"hw:mem_page_size": "large"}
    assert again.description == "tiny"
    again.memory_mb = 1
    with pytest.raises(exception.ObjectActionError):
        again.save()
    again.destroy()
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_id(admin_ctx, flavor.id)


def test_flavor_private_visibility_and_list(ctx, admin_ctx):
    _flavor(admin_ctx, flavorid="1", name="a", memory_mb=2048)
    private = _flavor(admin_ctx, flavorid="2", name="b", is_public=False)
    _flavor(admin_ctx, flavorid="3", name="c", is_public=False)
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctx, "2")
    private.add_access("fake-project")
    with pytest.raises(exception.FlavorAccessExists):
        private.add_access("fake-project")
    assert objects.Flavor.get_by_flavor_id(ctx, "2").projects == [
        "fake-project"]
    assert [f.flavorid for f in objects.FlavorList.get_all(ctx)] == \
        ["1", "2"]
    assert [f.flavorid for f in objects.FlavorList.get_all(admin_ctx)] == \
        ["1", "2", "3"]
    page = objects.FlavorList.get_all(admin_ctx, limit=2, marker="1")
    assert [f.flavorid for f in page] == ["2", "3"]
    assert [f.flavorid for f in objects.FlavorList.get_all(
        admin_ctx, filters={"min_memory_mb": 1024})] == ["1"]
    with pytest.raises(exception.MarkerNotFound):
        objects.FlavorList.get_all(admin_ctx, marker="99")


def test_flavor_read_is_one_statement_with_every_extra_spec(ctx, admin_ctx):
    _flavor(admin_ctx, flavorid="1", name="a", extra_specs={
        "hw:cpu_policy": "shared", "hw:mem_page_size": "large",
        "trait:CUSTOM_X": "required"}, description="d", vcpu_weight=3)
    _flavor(admin_ctx, flavorid="2", name="b", extra_specs={})
    hidden = _flavor(admin_ctx, flavorid="3", name="c", is_public=False,
                     extra_specs={"k": "v"})
    statements = []
    listen = lambda *a, **k: statements.append(a[2])
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", listen)
    try:
        got = objects.Flavor.get_by_flavor_id(ctx, "1")
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute",
                        listen)
    assert len([t for t in statements if t != "BEGIN"]) == 1
    assert got.extra_specs == {"hw:cpu_policy": "shared",
                               "hw:mem_page_size": "large",
                               "trait:CUSTOM_X": "required"}
    assert (got.flavorid, got.name, got.description, got.vcpu_weight,
            got.memory_mb, got.is_public, got.disabled) == (
        "1", "a", "d", 3, 512, True, False)
    assert got.obj_what_changed() == set()
    assert not got.obj_attr_is_set("projects")
    assert objects.Flavor.get_by_flavor_id(ctx, "2").extra_specs == {}
    # A private flavor: only for admins and the projects it is shared with.
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctx, "3")
    hidden.add_access(ctx.project_id)
    assert objects.Flavor.get_by_flavor_id(ctx, "3").extra_specs == {
        "k": "v"}
    assert objects.Flavor.get_by_id(admin_ctx, hidden.id).flavorid == "3"


def test_flavor_backport_drops_description(admin_ctx):
    flavor = _flavor(admin_ctx, description="d")
    prim = flavor.obj_to_primitive(target_version="1.1")
    assert prim["nova_object.version"] == "1.1"
    assert "description" not in prim["nova_object.data"]


def test_templated_cell_urls_are_filled_from_local_config(ctx):
    from keel.conf import CONF
    CONF.set_override("transport_url",
                      "rabbit://alice:s3cret@mq1:5672,bob:pw@mq2:5673/vh")
    try:
        cell = objects.CellMapping(
            ctx, uuid=uuidutils.generate_uuid(), name="tpl",
            transport_url="rabbit://{username1}:{password1}@{hostname1}:"
                          "{port1},{username2}:{password2}@{hostname2}/"
                          "{path}",
            database_connection="sqlite:///{path}")
        cell.create()
        got = objects.CellMapping.get_by_uuid(ctx, cell.uuid)
        assert got.transport_url == \
            "rabbit://alice:s3cret@mq1:5672,bob:pw@mq2/vh"
        from urllib import parse
        assert got.database_connection == "sqlite:///" + parse.urlparse(
            CONF.database.connection).path.lstrip("/")
    finally:
        CONF.clear_override("transport_url")


def test_instance_mapping_counts_one_statement(ctx):
    """Project and user counts come from one statement; mappings queued
    for delete and other projects' do not count."""
    rows = [("p1", "u1", False), ("p1", "u1", None), ("p1", "u2", False),
            ("p1", "u1", True), ("p2", "u1", False)]
    for project, user, queued in rows:
        im = objects.InstanceMapping(
            ctx, instance_uuid=uuidutils.generate_uuid(), project_id=project,
            user_id=user, cell_mapping=None)
        if queued is not None:
            im.queued_for_delete = queued
        im.create()
    seen = []
    engine = sa.engine.Engine

    def record(conn, cursor, statement, *args):
        seen.append(statement)
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        both = objects.InstanceMappingList.get_counts(ctx, "p1", "u1")
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    assert both == {"project": {"instances": 3}, "user": {"instances": 2}}
    assert [s for s in seen if "instance_mappings" in s and
            s.lstrip().upper().startswith("SELECT")] == seen[-1:]
    assert len([s for s in seen if "instance_mappings" in s]) == 1
    assert objects.InstanceMappingList.get_counts(ctx, "p1") == {
        "project": {"instances": 3}}
    assert objects.InstanceMappingList.get_counts(ctx, "p3", "u9") == {
        "project": {"instances": 0}, "user": {"instances": 0}}
