"""KeyPair, BuildRequest and RequestSpec on the API database."""
import pytest
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from keel.db.api import models
from keel.db import session
from keel import exception
from keel import objects


def test_keypairs(ctx):
    for name in ("b", "a", "c"):
        objects.KeyPair(ctx, name=name, user_id="u1", fingerprint="fp",
                        public_key="ssh-rsa AAA", type="ssh").create()
    with pytest.raises(exception.KeyPairExists):
        objects.KeyPair(ctx, name="a", user_id="u1", type="ssh").create()
    kp = objects.KeyPair.get_by_name(ctx, "u1", "a")
    assert kp.public_key == "ssh-rsa AAA" and kp.deleted is False
    assert [k.name for k in objects.KeyPairList.get_by_user(ctx, "u1")] == \
        ["a", "b", "c"]
    assert [k.name for k in objects.KeyPairList.get_by_user(
        ctx, "u1", limit=1, marker="a")] == ["b"]
    assert objects.KeyPairList.get_count_by_user(ctx, "u1") == 3
    kp.destroy()
    with pytest.raises(exception.KeypairNotFound):
        objects.KeyPair.get_by_name(ctx, "u1", "a")
    with pytest.raises(exception.KeypairNotFound):
        objects.KeyPair.destroy_by_name(ctx, "u1", "a")


def _flavor():
    return objects.Flavor(id=1, flavorid="1", name="m1", memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                          rxtx_factor=1.0, disabled=False, is_public=True,
                          extra_specs={}, projects=[])


def test_build_request_round_trip(ctx):
    uuid = uuidutils.generate_uuid()
    inst = objects.Instance(ctx, uuid=uuid, project_id="fake-project",
                            display_name="vm", vm_state="building",
                            flavor=_flavor())
    bdms = objects.BlockDeviceMappingList(objects=[
        objects.BlockDeviceMapping(source_type="image",
                                   destination_type="local", boot_index=0,
                                   image_id=uuidutils.generate_uuid())])
    req = objects.BuildRequest(ctx, instance_uuid=uuid,
                               project_id="fake-project", instance=inst,
                               block_device_mappings=bdms,
                               tags=objects.TagList(objects=[]))
    req.create()
    with pytest.raises(exception.BuildRequestAlreadyExists):
        objects.BuildRequest(ctx, instance_uuid=uuid, project_id="p",
                             instance=inst).create()
    got = objects.BuildRequest.get_by_instance_uuid(ctx, uuid)
    assert got.instance.display_name == "vm"
    assert got.instance.flavor.name == "m1"
    assert got.instance.host is None and got.instance.created_at
    assert got.block_device_mappings[0].boot_index == 0
    # Stored as Nova stores it: the Instance primitive as JSON.
    with session.api_reader(ctx) as s:
        blob = s.execute(sa.select(models.BuildRequest.instance)).scalar()
    assert jsonutils.loads(blob)["nova_object.name"] == "Instance"
    assert [r.instance_uuid for r in objects.BuildRequestList.get_all(
        ctx)] == [uuid]
    assert len(objects.BuildRequestList.get_by_filters(
        ctx, {"display_name": "other"})) == 0
    assert len(objects.BuildRequestList.get_by_filters(
        ctx, {"vm_state": ["building"]})) == 1
    fresh = got.get_new_instance(ctx)
    assert fresh.uuid == uuid and "display_name" in fresh.obj_what_changed()
    got.destroy()
    with pytest.raises(exception.BuildRequestNotFound):
        objects.BuildRequest.get_by_instance_uuid(ctx, uuid)


def test_request_spec_persists_only_what_nova_persists(ctx):
    uuid = uuidutils.generate_uuid()
    spec = objects.RequestSpec(
        ctx, instance_uuid=uuid, project_id="p", user_id="u",
        flavor=_flavor(), num_instances=1, is_bfv=False,
        scheduler_hints={"group": ["g1"]},
        ignore_hosts=["bad-host"],
        retry=objects.SchedulerRetries(
            num_attempts=1, hosts=objects.ComputeNodeList(objects=[])),
        requested_networks=objects.NetworkRequestList(objects=[]),
        network_metadata=objects.NetworkMetadata(physnets={"p1"},
                                                 tunneled=True),
        security_groups=objects.SecurityGroupList(objects=[]))
    spec.create()
    assert spec.id
    got = objects.RequestSpec.get_by_instance_uuid(ctx, uuid)
    assert got.flavor.flavorid == "1"
    assert got.get_scheduler_hint("group") == "g1"
    assert got.retry is None and got.ignore_hosts is None
    assert got.network_metadata.physnets == set()
    with session.api_reader(ctx) as s:
        blob = jsonutils.loads(s.execute(
            sa.select(models.RequestSpec.spec)).scalar())
    assert blob["nova_object.name"] == "RequestSpec"
    assert "network_metadata" not in blob["nova_object.data"]
    got.availability_zone = "az1"
    got.save()
    assert objects.RequestSpec.get_by_instance_uuid(
        ctx, uuid).availability_zone == "az1"
    assert len(objects.RequestSpec.get_by_instance_uuids(ctx, [uuid])) == 1
    got.destroy()
    with pytest.raises(exception.RequestSpecNotFound):
        objects.RequestSpec.get_by_instance_uuid(ctx, uuid)
