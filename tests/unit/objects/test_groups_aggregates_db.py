"""InstanceGroup and Aggregate on the API database."""
import pytest
from oslo_utils import uuidutils

from keel import exception
from keel import objects


def test_instance_group_crud_and_members(ctx):
    m1, m2 = uuidutils.generate_uuid(), uuidutils.generate_uuid()
    group = objects.InstanceGroup(ctx, name="web", project_id="fake-project",
                                  user_id="fake-user", policy="anti-affinity",
                                  _rules={"max_server_per_host": "1"},
                                  members=[m1])
    group.create()
    got = objects.InstanceGroup.get_by_uuid(ctx, group.uuid)
    assert (got.policy, got.policies, got.rules) == (
        "anti-affinity", ["anti-affinity"], {"max_server_per_host": "1"})
    assert got.members == [m1]
    assert objects.InstanceGroup.get_by_name(ctx, "web").uuid == group.uuid
    assert objects.InstanceGroup.get_by_hint(ctx, group.uuid).name == "web"
    assert objects.InstanceGroup.add_members(ctx, group.uuid, [m1, m2]) == \
        [m2]
    assert objects.InstanceGroup.get_by_instance_uuid(ctx, m2).uuid == \
        group.uuid
    with pytest.raises(exception.InstanceGroupIdExists):
        objects.InstanceGroup(ctx, uuid=group.uuid, name="x").create()
    got.refresh()
    assert sorted(got.members) == sorted([m1, m2])
    # No instance mappings yet: no hosts.
    assert got.get_hosts() == []
    assert objects.InstanceGroupList.get_counts(
        ctx, "fake-project", "fake-user") == {
            "project": {"server_groups": 1}, "user": {"server_groups": 1}}
    got.name = "web2"
    got.save()
    assert [g.name for g in objects.InstanceGroupList.get_by_project_id(
        ctx, "fake-project")] == ["web2"]
    got.destroy()
    with pytest.raises(exception.InstanceGroupNotFound):
        objects.InstanceGroup.get_by_uuid(ctx, group.uuid)


def test_group_hosts_come_from_member_instances_in_their_cell(ctx, tmp_path):
    from keel.conf import CONF

    cell = objects.CellMapping(ctx, uuid=uuidutils.generate_uuid(),
                               name="cell1", transport_url="fake://",
                               database_connection=CONF.database.connection)
    cell.create()
    inst = objects.Instance(ctx, uuid=uuidutils.generate_uuid(), host="h7",
                            project_id="fake-project", user_id="fake-user")
    inst.create()
    objects.InstanceMapping(ctx, instance_uuid=inst.uuid,
                            project_id="fake-project", user_id="fake-user",
                            cell_mapping=cell).create()
    group = objects.InstanceGroup(ctx, name="g", policy="affinity",
                                  project_id="fake-project",
                                  members=[inst.uuid])
    group.create()
    assert group.hosts == ["h7"]
    assert group.count_members_by_user("fake-user") == 1


def test_aggregates(ctx):
    agg = objects.Aggregate(ctx, name="fast",
                            metadata={"availability_zone": "az1"})
    agg.create()
    assert agg.uuid and agg.availability_zone == "az1"
    with pytest.raises(exception.AggregateNameExists):
        objects.Aggregate(ctx, name="fast").create()
    agg.add_host("h1")
    agg.add_host("h2")
    with pytest.raises(exception.AggregateHostExists):
        agg.add_host("h1")
    agg.delete_host("h2")
    with pytest.raises(exception.AggregateHostNotFound):
        agg.delete_host("h2")
    agg.update_metadata({"ssd": "true", "availability_zone": None})
    got = objects.Aggregate.get_by_uuid(ctx, agg.uuid)
    assert got.hosts == ["h1"] and got.metadata == {"ssd": "true"}
    other = objects.Aggregate(ctx, name="slow", metadata={"ssd": "false"})
    other.create()
    assert [a.name for a in objects.AggregateList.get_by_host(ctx, "h1")] \
        == ["fast"]
    assert [a.name for a in objects.AggregateList.get_by_metadata_key(
        ctx, "ssd")] == ["fast", "slow"]
    assert [a.name for a in objects.AggregateList.get_by_metadata(
        ctx, key="ssd", value="false")] == ["slow"]
    got.hosts = ["x"]
    with pytest.raises(exception.ObjectActionError):
        got.save()
    other.destroy()
    with pytest.raises(exception.AggregateNotFound):
        objects.Aggregate.get_by_id(ctx, other.id)
    assert len(objects.AggregateList.get_all(ctx)) == 1
