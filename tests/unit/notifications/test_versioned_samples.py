"""Each implemented versioned notification, built from instances stored in
a real database, has the envelope and payload schema of Nova's sample
(names, namespaces, versions, keys and JSON types; values differ)."""
import pytest

from keel import exception
from keel import objects
from keel.notifications import instance as notify
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications import conftest as c
from tests.unit.notifications import samples


def _raise(exc):
    try:
        raise exc
    except Exception as e:  # noqa: BLE001 - returned with its traceback
        return e


def _check(sent, sample_name):
    sample = samples.load(sample_name)
    assert sent["event_type"] == sample["event_type"]
    assert sent["priority"] == sample["priority"]
    assert (sent["publisher_id"].split(":")[0] ==
            sample["publisher_id"].split(":")[0])
    diff = samples.schema_diff(sample["payload"], sent["payload"])
    assert not diff, "\n".join(diff)


@pytest.fixture
def capture(ctx):
    mode = "vm_and_task_state"
    with NotificationCapture(fmt="versioned",
                             notify_on_state_change=mode) as cap:
        yield cap


@pytest.mark.parametrize("phase", ["start", "end"])
def test_instance_create(ctx, capture, phase):
    inst = c.make_instance(ctx, vm_state="building", task_state="spawning")
    bdms = c.make_bdms(ctx, inst)
    notify.notify_about_instance_create(ctx, inst, "compute", phase=phase,
                                        bdms=bdms)
    sent = capture.wait_for("instance.create.%s" % phase)
    _check(sent, "instance-create-%s.json" % phase)
    data = sent["payload"]["nova_object.data"]
    assert data["keypairs"][0]["nova_object.data"]["name"] == "my-key"
    assert data["tags"] == ["tag"]
    assert data["trusted_image_certificates"] == ["cert-id-1", "cert-id-2"]
    assert data["ip_addresses"][0]["nova_object.data"]["address"] == \
        "192.168.1.3"
    assert data["block_devices"][0]["nova_object.data"]["volume_id"] == \
        "a07f71dc-8151-4e7d-a0cc-cd24a3f11113"
    assert data["power_state"] == "running"
    assert data["auto_disk_config"] == "MANUAL"
    assert data["request_id"] == ctx.request_id
    assert data["instance_name"] == inst.name


def test_instance_create_error(ctx, capture):
    inst = c.make_instance(ctx, vm_state="building", power_state=0,
                           host=None, node=None, launched_at=None)
    exc = _raise(exception.FlavorDiskSmallerThanImage(
        flavor_size=1, image_size=2))
    notify.notify_about_instance_create(ctx, inst, "compute", phase="error",
                                        exception=exc, bdms=[])
    sent = capture.wait_for("instance.create.error")
    _check(sent, "instance-create-error.json")
    fault = sent["payload"]["nova_object.data"]["fault"]["nova_object.data"]
    assert fault["exception"] == "FlavorDiskSmallerThanImage"
    assert fault["module_name"] == __name__
    assert fault["function_name"] == "_raise"
    assert fault["traceback"].startswith("Traceback (most recent call")
    assert sent["payload"]["nova_object.data"]["power_state"] == "pending"


@pytest.mark.parametrize("action,phase,sample,fields", [
    ("delete", "start", "instance-delete-start.json",
     {"task_state": "deleting"}),
    ("delete", "end", "instance-delete-end.json",
     {"vm_state": "deleted", "power_state": 0}),
    ("soft_delete", "start", "instance-soft_delete-start.json",
     {"task_state": "soft-deleting"}),
    ("soft_delete", "end", "instance-soft_delete-end.json",
     {"vm_state": "soft-delete"}),
    ("restore", "start", "instance-restore-start.json",
     {"vm_state": "soft-delete", "task_state": "restoring"}),
    ("restore", "end", "instance-restore-end.json", {}),
    ("power_off", "start", "instance-power_off-start.json",
     {"task_state": "powering-off"}),
    ("reboot", "end", "instance-reboot-end.json", {}),
])
def test_instance_action(ctx, capture, action, phase, sample, fields):
    inst = c.make_instance(ctx, **fields)
    notify.notify_about_instance_action(
        ctx, inst, "compute", action=action, phase=phase,
        bdms=c.make_bdms(ctx, inst))
    sent = capture.wait_for("instance.%s.%s" % (action, phase))
    _check(sent, sample)
    data = sent["payload"]["nova_object.data"]
    if "task_state" in fields:
        assert data["task_state"] == fields["task_state"]
    if "vm_state" in fields:
        assert data["state"] == fields["vm_state"]


def test_instance_action_error_carries_the_fault(ctx, capture):
    inst = c.make_instance(ctx, task_state="rebooting_hard")
    exc = _raise(exception.UnexpectedTaskStateError(
        instance_uuid=inst.uuid, expected="x", actual="y"))
    notify.notify_about_instance_action(ctx, inst, "compute", "reboot",
                                        phase="error", exception=exc,
                                        bdms=[])
    sent = capture.wait_for("instance.reboot.error")
    _check(sent, "instance-reboot-error.json")


def test_delete_context_manager_api_source(ctx, capture):
    inst = c.make_instance(ctx)
    with notify.notify_about_instance_delete(ctx, inst, host="fake-mini"):
        assert capture.event_types() == ["instance.delete.start"]
    start, end = capture.versioned
    assert start["publisher_id"] == "nova-api:fake-mini"
    assert end["event_type"] == "instance.delete.end"
    # The not-scheduled sample is sent by the API: same schema.
    _check(end, "instance-delete-end_not_scheduled.json")


def test_delete_end_sent_when_the_block_raises(ctx, capture):
    inst = c.make_instance(ctx)
    with pytest.raises(RuntimeError):
        with notify.notify_about_instance_delete(ctx, inst,
                                                 delete_type="soft_delete"):
            raise RuntimeError("db down")
    assert capture.event_types() == ["instance.soft_delete.start",
                                     "instance.soft_delete.end"]


def test_force_delete_has_no_versioned_notification(ctx, capture):
    inst = c.make_instance(ctx)
    with notify.notify_about_instance_delete(ctx, inst,
                                             delete_type="force_delete"):
        pass
    assert capture.versioned == []


def test_instance_update(ctx, capture):
    inst = c.make_instance(ctx, vm_state="building", task_state="networking",
                           power_state=0)
    old = objects.Instance(vm_state="building", task_state="scheduling",
                           display_name=inst.display_name)
    notify.send_update(ctx, old, inst, host="fake-mini")
    sent = capture.wait_for("instance.update")
    _check(sent, "instance-update.json")
    assert sent["publisher_id"] == "nova-compute:fake-mini"
    data = sent["payload"]["nova_object.data"]
    assert data["state_update"]["nova_object.data"] == {
        "old_state": "building", "state": "building",
        "old_task_state": "scheduling", "new_task_state": "networking"}
    assert data["tags"] == ["tag"]
    period = data["audit_period"]["nova_object.data"]
    assert period["audit_period_beginning"] <= period["audit_period_ending"]


def test_instance_update_from_the_api_tags_sample(ctx, capture):
    inst = c.make_instance(ctx)
    notify.send_update(ctx, inst, inst, service="api", host="fake-mini")
    sent = capture.wait_for("instance.update")
    assert sent["publisher_id"] == "nova-api:fake-mini"
    _check(sent, "instance-update-tags-action.json")


def _request_spec(ctx, inst):
    numa = objects.InstanceNUMATopology(cells=[objects.InstanceNUMACell(
        id=0, cpuset={0}, pcpuset=set(), memory=512, cpu_policy=None,
        cpu_thread_policy=None, cpuset_reserved=None, pagesize=None,
        cpu_pinning_raw=None)], emulator_threads_policy=None)
    image = objects.ImageMeta.from_dict({
        "id": "155d900f-4e14-4e4c-a73d-069cbf4541e6",
        "name": "fakeimage123456", "status": "active",
        "container_format": "raw", "disk_format": "raw",
        "size": 25165824, "min_ram": 0, "min_disk": 0,
        "visibility": "public", "protected": False,
        "tags": ["tag1", "tag2"],
        "created_at": "2011-01-01T01:02:03Z",
        "updated_at": "2011-01-01T01:02:03Z",
        "properties": {"hw_architecture": "x86_64"}})
    return objects.RequestSpec(
        instance_uuid=inst.uuid, project_id=inst.project_id,
        user_id=inst.user_id, availability_zone=None,
        flavor=c.make_flavor(), image=image, num_instances=1,
        numa_topology=numa,
        pci_requests=objects.InstancePCIRequests(requests=[]),
        ignore_hosts=None, force_hosts=None, force_nodes=None,
        scheduler_hints={}, requested_destination=None, retry=None,
        instance_group=None,
        security_groups=objects.SecurityGroupList(
            objects=[objects.SecurityGroup(name="default")]))


@pytest.mark.parametrize("task", ["build_instances", "migrate_server",
                                  "rebuild_server"])
def test_compute_task_error(ctx, capture, task):
    inst = c.make_instance(ctx, vm_state="error")
    spec = _request_spec(ctx, inst)
    exc = _raise(exception.NoValidHost(reason="There are not enough hosts "
                                              "available."))
    notify.notify_about_compute_task_error(
        ctx, task, inst.uuid, spec, "error", exc,
        tb="Traceback (most recent call last):\n  ...")
    sent = capture.wait_for("compute_task.%s.error" % task)
    _check(sent, "compute_task-%s-error.json" % task)
    data = sent["payload"]["nova_object.data"]
    assert data["reason"]["nova_object.data"]["exception"] == "NoValidHost"
    props = data["request_spec"]["nova_object.data"]["image"][
        "nova_object.data"]["properties"]
    # Only the properties the image has, not a wall of nulls.
    assert props["nova_object.data"] == {"hw_architecture": "x86_64"}
    assert data["request_spec"]["nova_object.data"]["security_groups"] == [
        "default"]


def test_delete_accepts_novas_notifier_first_form(ctx, capture):
    from keel import notifications
    inst = c.make_instance(ctx)
    with notify.notify_about_instance_delete(notifications.NOOP, ctx, inst,
                                             "soft_delete"):
        pass
    assert capture.event_types() == ["instance.soft_delete.start",
                                     "instance.soft_delete.end"]


def test_instance_not_in_a_cell_yet(ctx, capture):
    """An API delete of a server still in its BuildRequest: the instance
    has no row to lazy-load from; the payload shows what it has."""
    flavor = c.make_flavor()
    inst = objects.Instance(
        ctx, uuid="d5e6a7b7-80e5-4166-85a3-cd6115201082",
        project_id=ctx.project_id, user_id=ctx.user_id,
        display_name="vm", vm_state="building", task_state="scheduling",
        power_state=0, flavor=flavor, metadata={}, system_metadata={},
        locked=False, auto_disk_config=False, host=None, node=None)
    with notify.notify_about_instance_delete(ctx, inst, host="fake-mini"):
        pass
    end = capture.wait_for("instance.delete.end")
    _check(end, "instance-delete-end_not_scheduled.json")
    data = end["payload"]["nova_object.data"]
    assert data["ip_addresses"] == [] and data["host"] is None


def test_payloads_report_no_changes_and_stay_out_of_rpc(ctx):
    from keel.notifications.objects import instance as inst_obj
    from keel.objects import base as obj_base
    inst = c.make_instance(ctx)
    payload = inst_obj.InstanceActionPayload(ctx, inst, fault=None)
    prim = payload.obj_to_primitive()
    assert "nova_object.changes" not in prim
    assert "nova_object.changes" not in prim["nova_object.data"]["flavor"]
    # Not an RPC object: the RPC registry does not know the name.
    assert "InstanceActionPayload" not in \
        obj_base.KeelObjectRegistry.obj_classes()
    assert not hasattr(objects, "InstanceActionPayload")
