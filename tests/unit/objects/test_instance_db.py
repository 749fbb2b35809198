"""Instance and InstanceList against a SQLite cell database."""
import pytest
from oslo_utils import uuidutils

from keel import exception
from keel import objects


def _flavor():
    return objects.Flavor(id=1, flavorid="1", name="m1.small", memory_mb=2048,
                          vcpus=1, root_gb=20, ephemeral_gb=0, swap=0,
                          rxtx_factor=1.0, vcpu_weight=None, disabled=False,
                          is_public=True, extra_specs={}, projects=[],
                          description=None)


def _instance(ctx, **kw):
    values = dict(uuid=uuidutils.generate_uuid(), project_id="fake-project",
                  user_id="fake-user", host="host1", node="node1",
                  vm_state="building", task_state="scheduling",
                  memory_mb=2048, vcpus=1, display_name="vm",
                  flavor=_flavor(), metadata={"role": "web"},
                  system_metadata={"image_os": "cirros"},
                  info_cache=objects.InstanceInfoCache(network_info=[]),
                  tags=objects.TagList(objects=[objects.Tag(tag="blue")]))
    values.update(kw)
    inst = objects.Instance(ctx, **values)
    inst.create()
    return inst


def test_create_and_load_everything(ctx):
    inst = _instance(ctx)
    assert inst.id and not inst.obj_what_changed()
    got = objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=["metadata", "system_metadata",
                                        "info_cache", "tags", "flavor"])
    assert got.metadata == {"role": "web"}
    assert got.system_metadata == {"image_os": "cirros"}
    assert got.info_cache.network_info == []
    assert [t.tag for t in got.tags] == ["blue"]
    assert got.flavor.name == "m1.small" and got.old_flavor is None
    assert got.name == "instance-%08x" % got.id
    # Not asked for: loaded lazily through the context on first access.
    plain = objects.Instance.get_by_uuid(ctx, inst.uuid)
    assert not plain.obj_attr_is_set("metadata")
    assert plain.metadata == {"role": "web"}
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(ctx, uuidutils.generate_uuid())


def test_save_fields_metadata_and_flavor(ctx):
    inst = _instance(ctx)
    inst.vm_state = "active"
    inst.task_state = None
    inst.metadata["role"] = "db"
    inst.metadata["new"] = "1"
    inst.new_flavor = _flavor()
    inst.save()
    assert not inst.obj_what_changed()
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["metadata", "flavor"])
    assert (got.vm_state, got.task_state) == ("active", None)
    assert got.metadata == {"role": "db", "new": "1"}
    assert got.new_flavor.flavorid == "1"
    del got.metadata["new"]
    got.save()
    assert objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=["metadata"]).metadata == {
            "role": "db"}


def test_expected_task_state_is_compare_and_swap(ctx):
    inst = _instance(ctx, task_state="spawning")
    first = objects.Instance.get_by_uuid(ctx, inst.uuid)
    second = objects.Instance.get_by_uuid(ctx, inst.uuid)
    first.task_state = None
    first.vm_state = "active"
    first.save(expected_task_state=["spawning"])
    second.task_state = "deleting"
    with pytest.raises(exception.UnexpectedTaskStateError) as err:
        second.save(expected_task_state=["spawning"])
    assert err.value.kwargs["actual"] == {"task_state": None}
    # The losing writer changed nothing.
    got = objects.Instance.get_by_uuid(ctx, inst.uuid)
    assert (got.vm_state, got.task_state) == ("active", None)
    # [None] means "must currently be NULL".
    got.task_state = "deleting"
    got.save(expected_task_state=[None])
    other = objects.Instance.get_by_uuid(ctx, inst.uuid)
    other.task_state = "rebooting"
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        other.save(expected_task_state=[None])
    other.vm_state = "error"
    with pytest.raises(exception.InstanceUpdateConflict):
        other.save(expected_vm_state=["stopped"])


def test_destroy_soft_deletes(ctx, admin_ctx):
    inst = _instance(ctx)
    inst.destroy()
    assert inst.deleted is True
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(ctx, inst.uuid)
    with pytest.raises(exception.InstanceNotFound):
        inst.destroy()
    admin_ctx.read_deleted = "yes"
    gone = objects.Instance.get_by_uuid(admin_ctx, inst.uuid)
    assert gone.deleted and gone.deleted_at is not None


def test_list_filters_sort_and_paging(ctx):
    made = [_instance(ctx, host="h1" if i < 3 else "h2",
                      display_name="vm-%d" % i,
                      vm_state="active" if i % 2 else "stopped")
            for i in range(5)]
    assert [i.uuid for i in objects.InstanceList.get_by_host(ctx, "h1")] == \
        [i.uuid for i in made[:3]]
    active = objects.InstanceList.get_by_filters(
        ctx, {"vm_state": ["active"]}, sort_key="display_name",
        sort_dir="asc")
    assert [i.display_name for i in active] == ["vm-1", "vm-3"]
    page1 = objects.InstanceList.get_by_filters(
        ctx, {}, sort_keys=["display_name"], sort_dirs=["asc"], limit=2)
    page2 = objects.InstanceList.get_by_filters(
        ctx, {}, sort_keys=["display_name"], sort_dirs=["asc"], limit=2,
        marker=page1[-1].uuid)
    assert [i.display_name for i in page1] + \
        [i.display_name for i in page2] == ["vm-0", "vm-1", "vm-2", "vm-3"]
    assert [i.display_name for i in objects.InstanceList.get_by_filters(
        ctx, {"display_name": "vm-[34]"}, sort_key="display_name",
        sort_dir="asc")] == ["vm-3", "vm-4"]
    made[0].destroy()
    assert len(objects.InstanceList.get_by_filters(ctx, {})) == 4
    assert len(objects.InstanceList.get_by_filters(
        ctx, {"deleted": True})) == 1
    with pytest.raises(exception.MarkerNotFound):
        objects.InstanceList.get_by_filters(ctx, {}, marker="nope")
    assert objects.InstanceList.get_counts(ctx, "fake-project") == {
        "project": {"instances": 4, "cores": 4, "ram": 8192}}


def test_list_loads_relations_without_n_plus_1(ctx):
    import sqlalchemy as sa
    from keel.db import session

    for i in range(6):
        _instance(ctx, display_name="vm-%d" % i)
    statements = []

    def _count(*args, **kwargs):
        statements.append(args[2])

    engine = session.cell_engine()
    sa.event.listen(engine, "before_cursor_execute", _count)
    try:
        insts = objects.InstanceList.get_by_filters(
            ctx, {}, expected_attrs=["metadata", "system_metadata",
                                     "info_cache", "tags", "flavor"])
        assert all(i.metadata == {"role": "web"} for i in insts)
    finally:
        sa.event.remove(engine, "before_cursor_execute", _count)
    selects = [s for s in statements if s.lstrip().upper().startswith(
        "SELECT")]
    # instances + extra + metadata + system_metadata + info_cache + tags.
    assert len(selects) <= 6, selects


def test_host_queries_and_usage_window(ctx):
    import datetime

    from oslo_utils import timeutils

    a = _instance(ctx, host="h1", node="n1", vm_state="active",
                  launched_at=timeutils.utcnow() - datetime.timedelta(
                      hours=2))
    b = _instance(ctx, host="h2", node="n2", vm_state="active",
                  launched_at=timeutils.utcnow())
    assert objects.InstanceList.get_uuids_by_host_and_node(
        ctx, "h1", "n1") == [a.uuid]
    assert objects.InstanceList.get_uuids_by_hosts(ctx, ["h1", "h2"]) == {
        "h1": [a.uuid], "h2": [b.uuid]}
    assert objects.InstanceList.get_count_by_vm_state(
        ctx, "fake-project", "fake-user", "active") == 2
    a.task_state = "rebooting"
    a.save()
    assert len(objects.InstanceList.get_hung_in_rebooting(ctx, 3600)) == 0
    assert [i.uuid for i in objects.InstanceList.get_hung_in_rebooting(
        ctx, -60)] == [a.uuid]
    a.terminated_at = timeutils.utcnow() - datetime.timedelta(hours=1)
    a.save()
    window = objects.InstanceList.get_active_by_window_joined(
        ctx, timeutils.utcnow() - datetime.timedelta(minutes=30))
    assert [i.uuid for i in window] == [b.uuid]


def test_saving_new_flavor_keeps_the_current_one(ctx):
    inst = _instance(ctx)
    partial = objects.Instance.get_by_uuid(ctx, inst.uuid)
    bigger = _flavor()
    bigger.name = "m1.large"
    partial.new_flavor = bigger
    partial.save()
    got = objects.Instance.get_by_uuid(ctx, inst.uuid,
                                       expected_attrs=["flavor"])
    assert got.flavor.name == "m1.small"
    assert got.new_flavor.name == "m1.large" and got.old_flavor is None


def test_tags(ctx):
    inst = _instance(ctx, tags=objects.TagList(objects=[]))
    tags = objects.TagList.create(ctx, inst.uuid, ["b", "a", "b"])
    assert [t.tag for t in tags] == ["a", "b"]
    objects.Tag(ctx, resource_id=inst.uuid, tag="c").create()
    assert objects.Tag.exists(ctx, inst.uuid, "c")
    objects.Tag.destroy(ctx, inst.uuid, "c")
    with pytest.raises(exception.InstanceTagNotFound):
        objects.Tag.destroy(ctx, inst.uuid, "c")
    assert [i.uuid for i in objects.InstanceList.get_by_filters(
        ctx, {"tags": ["a", "b"]})] == [inst.uuid]
    objects.TagList.destroy(ctx, inst.uuid)
    assert len(objects.TagList.get_by_resource_id(ctx, inst.uuid)) == 0


def test_disabled_database_access_is_refused(ctx):
    from keel.objects import base

    base.disable_db_access()
    try:
        with pytest.raises(exception.DBNotAllowed):
            objects.InstanceList.get_all(ctx)
    finally:
        base.enable_db_access()
    assert len(objects.InstanceList.get_all(ctx)) == 0


def test_extra_blobs_readable_on_their_own(ctx):
    cpu = objects.VirtCPUModel(arch="x86_64", vendor="Intel", features=[])
    inst = _instance(ctx, vcpu_model=cpu, numa_topology=None)
    got = objects.VirtCPUModel.get_by_instance_uuid(ctx, inst.uuid)
    assert (got.arch, got.vendor) == ("x86_64", "Intel")
    assert objects.InstanceNUMATopology.get_by_instance_uuid(
        ctx, inst.uuid) is None
    with pytest.raises(exception.InstanceNotFound):
        objects.TrustedCerts.get_by_instance_uuid(
            ctx, uuidutils.generate_uuid())


def test_loaded_instance_crosses_rpc_unchanged(ctx):
    from keel.objects import base

    inst = _instance(ctx)
    got = objects.Instance.get_by_uuid(
        ctx, inst.uuid, expected_attrs=["metadata", "system_metadata",
                                        "info_cache", "tags", "flavor",
                                        "security_groups"])
    ser = base.KeelObjectSerializer()
    wire = ser.serialize_entity(ctx, got)
    assert wire["nova_object.data"]["info_cache"]["nova_object.data"][
        "network_info"] == "[]"
    back = ser.deserialize_entity(ctx, wire)
    assert not back.obj_what_changed()
    assert base.obj_equal_prims(back, got)
    assert back.flavor.name == "m1.small" and back.metadata == {
        "role": "web"}
