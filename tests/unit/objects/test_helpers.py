"""Helpers other services build requests with (no database)."""
from oslo_utils import uuidutils

from keel import context as keel_context
from keel import objects


def test_image_meta_from_glance_dict():
    image = objects.ImageMeta.from_dict({
        "id": uuidutils.generate_uuid(), "name": None, "size": None,
        "min_ram": 64, "disk_format": "qcow2", "unknown_key": 1,
        "properties": {"hw_disk_bus": "virtio", "architecture": "x86_64",
                       "trait:HW_CPU_X86_AVX2": "required",
                       "not_a_property": "x"}})
    assert image.name == "" and image.size == 0 and image.min_ram == 64
    props = image.properties
    assert props.hw_disk_bus == "virtio"
    assert props.hw_architecture == "x86_64"
    assert props.traits_required == ["HW_CPU_X86_AVX2"]
    assert props.get("hw_video_model", "vga") == "vga"
    prim = image.obj_to_primitive()
    assert objects.ImageMeta.obj_from_primitive(
        prim).properties.hw_disk_bus == "virtio"


def test_network_request_list_special_ids():
    auto = objects.NetworkRequestList(objects=[
        objects.NetworkRequest(network_id="auto")])
    assert auto.auto_allocate and not auto.no_allocate
    reqs = objects.NetworkRequestList.from_tuples([("net1", None, None,
                                                    None)])
    assert reqs.as_tuples() == [("net1", None, None, None)]
    assert not reqs.is_single_unspecified


def test_request_spec_from_components():
    ctx = keel_context.RequestContext(user_id="u", project_id="p")
    flavor = objects.Flavor(flavorid="1", memory_mb=512, vcpus=1)
    spec = objects.RequestSpec.from_components(
        ctx, uuidutils.generate_uuid(), {"properties": {}}, flavor, None,
        None, {"scheduler_hints": {"group": "g1", "same_host": ["a", "b"]},
               "force_hosts": "h1", "limits": {"vcpu": 8}},
        None, "az1")
    assert spec.scheduler_hints == {"group": ["g1"],
                                    "same_host": ["a", "b"]}
    assert spec.get_scheduler_hint("group") == "g1"
    assert spec.force_hosts == ["h1"] and spec.limits.vcpu == 8
    assert spec.limits.to_dict() == {"vcpu": 8}
    assert (spec.project_id, spec.user_id) == ("p", "u")
    # Every field is set, so the spec can cross RPC as is.
    prim = spec.obj_to_primitive()
    assert objects.RequestSpec.obj_from_primitive(prim).availability_zone \
        == "az1"


def test_instance_mapping_backport_drops_newer_fields():
    im = objects.InstanceMapping(instance_uuid=uuidutils.generate_uuid(),
                                 project_id="p", user_id="u",
                                 queued_for_delete=False, cell_mapping=None)
    data = im.obj_to_primitive(target_version="1.0")["nova_object.data"]
    assert "user_id" not in data and "queued_for_delete" not in data


def test_selection_from_host_state():
    class HostState:
        uuid = uuidutils.generate_uuid()
        host = "h1"
        nodename = "n1"
        cell_uuid = uuidutils.generate_uuid()
        limits = {"vcpu": 16}

    sel = objects.Selection.from_host_state(
        HostState(), allocation_request={"allocations": {}},
        allocation_request_version="1.36")
    assert sel.service_host == "h1" and sel.limits.vcpu == 16
    assert sel.allocation_request == '{"allocations": {}}'
    assert sel.to_dict() == {"host": "h1", "nodename": "n1",
                             "limits": {"vcpu": 16}}
    back = objects.Selection.obj_from_primitive(sel.obj_to_primitive())
    assert back.compute_node_uuid == HostState.uuid


def test_instance_backport_follows_nova_history():
    inst = objects.Instance(uuid=uuidutils.generate_uuid(), compute_id=3,
                            hidden=False, host="h")
    data = inst.obj_to_primitive(target_version="2.7")["nova_object.data"]
    assert "compute_id" not in data and data["hidden"] is False
    data = inst.obj_to_primitive(target_version="2.5")["nova_object.data"]
    assert "hidden" not in data and data["host"] == "h"


def test_instance_name_follows_the_template():
    from keel.conf import CONF

    inst = objects.Instance(id=255, uuid=uuidutils.generate_uuid())
    assert inst.name == "instance-000000ff"
    CONF.set_override("instance_name_template", "vm-%(uuid)s")
    try:
        assert inst.name == "vm-" + inst.uuid
    finally:
        CONF.clear_override("instance_name_template")
    assert objects.Instance(uuid=inst.uuid).name == ""
