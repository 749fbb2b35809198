"""Legacy compute.instance.* payloads carry Nova's keys."""
from keel.notifications import instance as notify
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications import conftest as c

# The keys of Nova's info_from_instance (legacy consumers such as
# Ceilometer read them by name).
INSTANCE_KEYS = {
    "tenant_id", "user_id", "instance_id", "display_name", "reservation_id",
    "hostname", "instance_type", "instance_type_id", "instance_flavor_id",
    "architecture", "memory_mb", "disk_gb", "vcpus", "root_gb",
    "ephemeral_gb", "host", "node", "availability_zone", "cell_name",
    "created_at", "terminated_at", "deleted_at", "launched_at",
    "image_ref_url", "os_type", "kernel_id", "ramdisk_id", "state",
    "state_description", "progress", "access_ip_v4", "access_ip_v6",
    "image_meta", "metadata"}


def test_create_end_with_network_info(ctx):
    inst = c.make_instance(ctx)
    with NotificationCapture(fmt="unversioned") as cap:
        notify.notify_about_instance_usage(
            ctx, inst, "create.end", network_info=[c.VIF],
            extra_usage_info={"message": "Success"}, host="compute")
        sent = cap.wait_for("compute.instance.create.end", versioned=False)
    assert sent["publisher_id"] == "compute.compute"
    assert sent["priority"] == "INFO"
    payload = sent["payload"]
    assert set(payload) == INSTANCE_KEYS | {"fixed_ips", "message"}
    assert payload["instance_type"] == "test_flavor"
    assert payload["disk_gb"] == 1
    assert payload["image_meta"] == {"hw_architecture": "x86_64"}
    assert payload["state_description"] == ""
    assert payload["launched_at"] == "2012-10-29T13:42:11.000000"
    ip = payload["fixed_ips"][0]
    assert (ip["address"], ip["label"], ip["vif_mac"]) == (
        "192.168.1.3", "private", "fa:16:3e:4c:2c:30")
    # The cached network model was not changed by the notification.
    assert "label" not in c.VIF["network"]["subnets"][0]["ips"][0]


def test_error_suffix_is_error_priority_with_the_fault(ctx):
    inst = c.make_instance(ctx)
    with NotificationCapture(fmt="unversioned") as cap:
        notify.notify_about_instance_usage(
            ctx, inst, "create.error", fault=ValueError("bad"))
        sent = cap.wait_for("compute.instance.create.error", versioned=False)
    assert sent["priority"] == "ERROR"
    assert sent["payload"]["message"] == "bad"
    assert sent["payload"]["code"] == 500
    assert set(sent["payload"]) == INSTANCE_KEYS | {"exception", "message",
                                                    "code"}


def test_update_carries_states_audit_period_and_old_name(ctx):
    inst = c.make_instance(ctx, display_name="new-name")
    old = c.objects.Instance(vm_state="active", task_state=None,
                             display_name="old-name")
    with NotificationCapture(fmt="unversioned",
                             notify_on_state_change="vm_state") as cap:
        notify.send_update(ctx, old, inst, host="compute")
        sent = cap.wait_for("compute.instance.update", versioned=False)
    payload = sent["payload"]
    assert payload["old_display_name"] == "old-name"
    assert (payload["old_state"], payload["state"]) == ("active", "active")
    assert payload["bandwidth"] == {}
    assert payload["audit_period_beginning"] < payload["audit_period_ending"]


def test_compute_task_legacy_request_spec(ctx):
    from tests.unit.notifications.test_versioned_samples import \
        _request_spec
    inst = c.make_instance(ctx, vm_state="error")
    spec = _request_spec(ctx, inst)
    spec.obj_reset_changes(recursive=True)
    delattr(spec, "ignore_hosts")
    with NotificationCapture(fmt="both") as cap:
        notify.notify_compute_task_failure(
            ctx, "build_instances", inst.uuid, spec, "error",
            ValueError("No valid host"), host="cond")
        sent = cap.wait_for("compute_task.build_instances", versioned=False)
        assert cap.wait_for("compute_task.build_instances.error")
    payload = sent["payload"]
    assert sent["priority"] == "ERROR"
    assert set(payload) == {"request_spec", "instance_properties",
                            "instance_id", "state", "method", "reason"}
    assert payload["method"] == "build_instances"
    legacy_spec = payload["request_spec"]
    assert set(legacy_spec) == {"num_instances", "image",
                                "instance_properties", "instance_type"}
    assert legacy_spec["instance_properties"]["uuid"] == inst.uuid
    assert legacy_spec["instance_properties"]["memory_mb"] == 512
    assert legacy_spec["instance_type"]["name"] == "test_flavor"
    assert payload["instance_properties"] == \
        legacy_spec["instance_properties"]
    # The caller's spec is left as it was (the payloads work on copies).
    assert not spec.obj_attr_is_set("ignore_hosts")
    assert not spec.numa_topology.obj_attr_is_set("instance_uuid")
    assert not spec.obj_what_changed()


def test_usage_exists_both_kinds(ctx):
    from keel.notifications import instance_actions
    inst = c.make_instance(ctx)
    with NotificationCapture(fmt="both") as cap:
        instance_actions.notify_usage_exists(ctx, inst, host="compute")
        legacy = cap.wait_for("compute.instance.exists", versioned=False)
        versioned = cap.wait_for("instance.exists")
    assert set(legacy["payload"]) == INSTANCE_KEYS | {
        "audit_period_beginning", "audit_period_ending", "bandwidth"}
    assert legacy["payload"]["image_meta"] == {"hw_architecture": "x86_64"}
    period = versioned["payload"]["nova_object.data"]["audit_period"][
        "nova_object.data"]
    # Legacy and versioned report the same (last completed) period.
    assert legacy["payload"]["audit_period_ending"].startswith(
        period["audit_period_ending"][:10])


def test_image_ref_url_from_the_glance_endpoint(ctx):
    from keel.conf import CONF
    inst = c.make_instance(ctx)
    CONF.set_override("api_servers", ["http://glance.example:9292/"],
                      group="glance")
    try:
        with NotificationCapture(fmt="unversioned") as cap:
            notify.notify_about_instance_usage(ctx, inst, "reboot.start")
            sent = cap.wait_for("compute.instance.reboot.start",
                                versioned=False)
    finally:
        CONF.clear_override("api_servers", group="glance")
    assert sent["payload"]["image_ref_url"] == (
        "http://glance.example:9292/images/" + inst.image_ref)
