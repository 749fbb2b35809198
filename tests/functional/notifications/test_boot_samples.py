"""A boot through the real services sends notifications shaped as Nova's
samples: instance.create.start/end from the compute and, when nothing
fits, compute_task.build_instances.error from the conductor (with their
legacy counterparts)."""
import pytest

from keel.notifications.testing import NotificationCapture
from tests.functional.boot import conftest as boot_fx
from tests.functional.boot.conftest import boot  # noqa: F401
from tests.functional.boot.conftest import ctxt  # noqa: F401
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.unit.notifications import samples


def _for(capture, uuid, event_type, versioned=True):
    def key(n):
        data = n["payload"]
        if versioned:
            data = data["nova_object.data"]
            return data.get("uuid") or data.get("instance_uuid")
        return data.get("instance_id")
    found = [n for n in (capture.versioned if versioned else capture.legacy)
             if n["event_type"] == event_type and key(n) == uuid]
    return found[0] if found else None


def _like_sample(sent, sample_name):
    sample = samples.load(sample_name)
    assert sent["priority"] == sample["priority"]
    assert sent["publisher_id"].split(":")[0] == \
        sample["publisher_id"].split(":")[0]
    diff = samples.schema_diff(sample["payload"], sent["payload"])
    assert not diff, "\n".join(diff)


@pytest.fixture
def capture(cloud):  # noqa: F811
    with NotificationCapture(fmt="both") as cap:
        yield cap


def test_boot_sends_create_start_and_end(ctxt, boot, capture):  # noqa: F811
    [server] = boot()
    inst = boot_fx.settled(ctxt, server.uuid)
    assert inst.vm_state == "active"
    end = boot_fx.wait_for(lambda: _for(capture, server.uuid,
                                        "instance.create.end"))
    start = _for(capture, server.uuid, "instance.create.start")
    _like_sample(start, "instance-create-start.json")
    _like_sample(end, "instance-create-end.json")
    assert end["publisher_id"] == "nova-compute:%s" % inst.host
    data = end["payload"]["nova_object.data"]
    assert (data["state"], data["power_state"]) == ("active", "running")
    assert data["tags"] == ["blue"]
    legacy = boot_fx.wait_for(lambda: _for(
        capture, server.uuid, "compute.instance.create.end",
        versioned=False))
    assert legacy["publisher_id"] == "compute.%s" % inst.host


def test_no_valid_host_sends_build_instances_error(ctxt, boot,  # noqa: F811
                                                   capture):
    [server] = boot(memory_mb=10 ** 7)
    assert boot_fx.settled(ctxt, server.uuid).vm_state == "error"
    err = boot_fx.wait_for(lambda: _for(
        capture, server.uuid, "compute_task.build_instances.error"))
    _like_sample(err, "compute_task-build_instances-error.json")
    reason = err["payload"]["nova_object.data"]["reason"]["nova_object.data"]
    assert reason["exception"] == "NoValidHost"
    legacy = boot_fx.wait_for(lambda: _for(
        capture, server.uuid, "compute_task.build_instances",
        versioned=False))
    assert legacy["priority"] == "ERROR"
    assert legacy["payload"]["state"] == "error"


def test_state_changes_of_a_boot_as_instance_update(ctxt, boot,  # noqa: F811
                                                   cloud):  # noqa: F811
    """With notify_on_state_change, each state change of the build is an
    instance.update whose state_update tells old and new states."""
    with NotificationCapture(fmt="versioned",
                             notify_on_state_change="vm_and_task_state") \
            as cap:
        [server] = boot()
        assert boot_fx.settled(ctxt, server.uuid).vm_state == "active"

        def last_is_active():
            updates = [n for n in cap.versioned
                       if n["event_type"] == "instance.update" and
                       n["payload"]["nova_object.data"]["uuid"] ==
                       server.uuid]
            if updates and updates[-1]["payload"]["nova_object.data"][
                    "state"] == "active":
                return updates
            return None
        updates = boot_fx.wait_for(last_is_active)
    assert updates, "no instance.update ending ACTIVE"
    sample = samples.load("instance-update.json")
    for sent in updates:
        # The conductor's own updates (instance created) come from
        # nova-conductor, the compute's saves from nova-compute (as Nova).
        assert sent["publisher_id"].split(":")[0] in ("nova-compute",
                                                      "nova-conductor")
        diff = samples.schema_diff(sample["payload"], sent["payload"])
        assert not diff, "\n".join(diff)
    transitions = [
        tuple(n["payload"]["nova_object.data"]["state_update"][
            "nova_object.data"][k] for k in ("old_state", "state"))
        for n in updates]
    assert ("building", "active") in transitions
