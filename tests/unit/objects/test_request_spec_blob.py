"""RequestSpec's stored blob (request_specs.spec) is the primitive of a
pruned clone, as Nova stores it, whichever way it is built."""
from oslo_serialization import jsonutils
from oslo_utils import uuidutils

from keel import objects

objects.register_all()


def _flavor():
    return objects.Flavor(id=1, flavorid="1", name="m1", memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                          rxtx_factor=1.0, disabled=False, is_public=True,
                          extra_specs={"hw:cpu_policy": "shared"},
                          projects=[])


def _spec(**kw):
    spec = objects.RequestSpec(
        instance_uuid=uuidutils.generate_uuid(), project_id="p",
        user_id="u", flavor=_flavor(), num_instances=2, is_bfv=False,
        scheduler_hints={"a": ["b"]}, availability_zone="nova",
        image=objects.ImageMeta.from_dict({"id": uuidutils.generate_uuid(),
                                           "properties": {}}),
        security_groups=objects.SecurityGroupList(objects=[
            objects.SecurityGroup(name="default")]), **kw)
    return spec


def _as_nova(spec):
    """The blob as the clone-and-prune path writes it."""
    return jsonutils.loads(jsonutils.dumps(
        spec._pruned_clone().obj_to_primitive()))


def _same(blob, expected):
    blob = jsonutils.loads(blob)
    # The change list comes from a set: its order is arbitrary.
    for prim in (blob, expected):
        prim["nova_object.changes"] = sorted(
            prim.get("nova_object.changes") or [])
    assert blob == expected


def test_blob_of_a_new_spec_with_transient_fields():
    spec = _spec(
        id=7, ignore_hosts=["h1"], retry=objects.SchedulerRetries(
            num_attempts=1, hosts=objects.ComputeNodeList(objects=[])),
        requested_destination=objects.Destination(host="h2"),
        requested_resources=[],
        requested_networks=objects.NetworkRequestList(objects=[
            objects.NetworkRequest(network_id="none")]),
        network_metadata=objects.NetworkMetadata(physnets=set(),
                                                 tunneled=False),
        request_level_params=objects.RequestLevelParams())
    blob = spec._spec_blob()
    data = jsonutils.loads(blob)["nova_object.data"]
    for gone in ("id", "requested_networks", "network_metadata",
                 "request_level_params"):
        assert gone not in data
    assert data["retry"] is None and data["ignore_hosts"] is None
    assert data["requested_destination"] is None
    assert data["requested_resources"] == []   # empty: kept as it is
    assert data["flavor"]["nova_object.data"]["extra_specs"] == {
        "hw:cpu_policy": "shared"}
    _same(blob, _as_nova(spec))
    # The spec itself is left as it was.
    assert spec.id == 7 and spec.ignore_hosts == ["h1"]
    assert spec.requested_destination.host == "h2"


def test_blob_of_a_spec_without_changes():
    spec = _spec(retry=None)
    spec.obj_reset_changes(recursive=True)
    blob = spec._spec_blob()
    assert "nova_object.changes" not in jsonutils.loads(blob)
    _same(blob, _as_nova(spec))
    spec.ignore_hosts = ["x"]
    spec.obj_reset_changes(recursive=True)
    blob = spec._spec_blob()
    assert jsonutils.loads(blob)["nova_object.changes"] == ["ignore_hosts"]
    _same(blob, _as_nova(spec))


def test_blob_with_a_group_freezes_neither_members_nor_hosts():
    group = objects.InstanceGroup(uuid=uuidutils.generate_uuid(),
                                  policy="affinity", members=["m1"],
                                  hosts=["h1"], name="g")
    spec = _spec(instance_group=group)
    blob = jsonutils.loads(spec._spec_blob())
    stored = blob["nova_object.data"]["instance_group"]["nova_object.data"]
    assert stored["members"] is None and stored["hosts"] is None
    assert spec.instance_group.members == ["m1"]
