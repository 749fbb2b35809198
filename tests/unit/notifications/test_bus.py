"""Notifications travel over a real oslo.messaging notification transport
(fake://): legacy ones on ``notifications`` with ``<service>.<host>``,
versioned ones on ``versioned_notifications`` with ``nova-<service>:<host>``,
as [notifications]/notification_format says."""
import time

import pytest

from keel.notifications import instance as notify
from tests.unit.notifications import bus as nbus
from tests.unit.notifications import conftest as c


def _delete(ctx, inst):
    with notify.notify_about_instance_delete(ctx, inst, host="api-1"):
        pass


@pytest.mark.parametrize("fmt", ["both", "unversioned", "versioned"])
def test_format_picks_the_topics(ctx, fmt):
    inst = c.make_instance(ctx)
    with nbus.Bus(fmt) as bus:
        _delete(ctx, inst)
        if fmt in ("both", "unversioned"):
            end = bus.legacy.wait_for("compute.instance.delete.end")
            assert end["publisher_id"] == "compute.api-1"
            assert end["priority"] == "INFO"
            assert end["payload"]["instance_id"] == inst.uuid
            assert end["context"]["request_id"] == ctx.request_id
        if fmt in ("both", "versioned"):
            end = bus.versioned.wait_for("instance.delete.end")
            assert end["publisher_id"] == "nova-api:api-1"
            assert end["payload"]["nova_object.name"] == \
                "InstanceActionPayload"
        time.sleep(0.3)  # anything misrouted has arrived by now
        if fmt == "unversioned":
            assert bus.versioned.got == []
        if fmt == "versioned":
            assert bus.legacy.got == []
        legacy_types = [n["event_type"] for n in bus.legacy.got]
        versioned_types = [n["event_type"] for n in bus.versioned.got]
    assert legacy_types == ([] if fmt == "versioned" else
                            ["compute.instance.delete.start",
                             "compute.instance.delete.end"])
    assert versioned_types == ([] if fmt == "unversioned" else
                               ["instance.delete.start",
                                "instance.delete.end"])


def test_error_priority_and_compute_task_failure(ctx):
    inst = c.make_instance(ctx, vm_state="error")
    try:
        raise RuntimeError("no hosts")
    except RuntimeError as exc:
        with nbus.Bus("both") as bus:
            notify.notify_about_instance_create(
                ctx, inst, "cmp-1", phase="error", exception=exc, bdms=[])
            notify.notify_about_instance_usage(
                ctx, inst, "create.error", fault=exc, host="cmp-1")
            notify.notify_compute_task_failure(
                ctx, "build_instances", inst.uuid, None, "error", exc,
                host="cond-1")
            v_err = bus.versioned.wait_for("instance.create.error")
            l_err = bus.legacy.wait_for("compute.instance.create.error")
            task = bus.versioned.wait_for(
                "compute_task.build_instances.error")
            l_task = bus.legacy.wait_for("compute_task.build_instances")
    assert v_err["priority"] == "ERROR"
    assert v_err["publisher_id"] == "nova-compute:cmp-1"
    assert l_err["priority"] == "ERROR"
    assert l_err["payload"]["message"] == "no hosts"
    assert l_err["payload"]["code"] == 500
    assert task["priority"] == "ERROR"
    assert task["publisher_id"] == "nova-conductor:cond-1"
    assert task["payload"]["nova_object.data"]["request_spec"] is None
    assert l_task["publisher_id"] == "compute_task.cond-1"
    assert l_task["payload"]["instance_id"] == inst.uuid
    assert l_task["payload"]["state"] == "error"
    assert "no hosts" in str(l_task["payload"]["reason"])
