"""Every instance.<action> sample whose payload is a plain
InstanceActionPayload is produced by notify_about_instance_action: the
actions other services add later need nothing more from this package."""
import os

import pytest

from keel import context as keel_context
from keel.notifications import instance as notify
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications import conftest as c
from tests.unit.notifications import samples


def _action_samples():
    out = []
    for name in sorted(os.listdir(samples.SAMPLES)):
        if not name.startswith("instance-") or not name.endswith(".json"):
            continue
        sample = samples.load(name)
        if sample["payload"]["nova_object.name"] == "InstanceActionPayload":
            out.append(name)
    return out


ACTION_SAMPLES = _action_samples()


def test_there_are_many():
    assert len(ACTION_SAMPLES) > 60


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    # One stored instance for all the samples (a database per sample would
    # be most of the run time).
    with c.cell_databases(tmp_path_factory.mktemp("actions")), \
            c.fake_transport():
        ctx = keel_context.RequestContext(user_id="fake", project_id="p",
                                          request_id="req-1")
        inst = c.make_instance(ctx)
        yield ctx, inst, c.make_bdms(ctx, inst)


@pytest.mark.parametrize("name", ACTION_SAMPLES)
def test_action_sample(instance, name):
    ctx, inst, bdms = instance
    sample = samples.load(name)
    parts = sample["event_type"].split(".")
    action = parts[1]
    phase = parts[2] if len(parts) > 2 else None
    source, host = sample["publisher_id"].split(":")
    exc = None
    if sample["priority"] == "ERROR":
        try:
            raise ValueError("failed")
        except ValueError as e:
            exc = e
    with NotificationCapture(fmt="versioned") as cap:
        notify.notify_about_instance_action(
            ctx, inst, host, action, phase=phase, source=source,
            exception=exc, bdms=bdms)
        [sent] = cap.versioned
    assert sent["event_type"] == sample["event_type"]
    assert sent["priority"] == sample["priority"]
    assert sent["publisher_id"] == sample["publisher_id"]
    diff = samples.schema_diff(sample["payload"], sent["payload"])
    assert not diff, "\n".join(diff)


OTHER_ID = "a2459075-d96c-40d5-893e-577ff92e721c"
VOLUME_ID = "a07f71dc-8151-4e7d-a0cc-cd24a3f11113"
SHARE_ID = "e8debdc0-447a-4376-a10a-4cd9122d7986"


def _send_special(ctx, inst, bdms, sample, exc):
    """Call the helper that produces ``sample`` (by payload name)."""
    from keel.notifications import instance_actions as ia
    name = sample["payload"]["nova_object.name"]
    parts = sample["event_type"].split(".")
    action = parts[1]
    phase = parts[2] if len(parts) > 2 else None
    source, host = sample["publisher_id"].split(":")
    if name == "InstanceActionRebuildPayload":
        ia.notify_about_instance_rebuild(ctx, inst, host, action=action,
                                         phase=phase, source=source,
                                         exception=exc, bdms=bdms)
    elif name == "InstanceActionRescuePayload":
        ia.notify_about_instance_rescue_action(ctx, inst, host, OTHER_ID,
                                               phase=phase)
    elif name == "InstanceActionResizePrepPayload":
        ia.notify_about_resize_prep_instance(ctx, inst, host, phase,
                                             c.make_flavor())
    elif name == "InstanceActionSnapshotPayload":
        ia.notify_about_instance_snapshot(ctx, inst, host, phase=phase,
                                          snapshot_image_id=OTHER_ID)
    elif name == "InstanceActionVolumePayload":
        ia.notify_about_volume_attach_detach(ctx, inst, host, action, phase,
                                             volume_id=VOLUME_ID,
                                             exception=exc)
    elif name == "InstanceActionVolumeSwapPayload":
        ia.notify_about_volume_swap(ctx, inst, host, phase, VOLUME_ID,
                                    OTHER_ID, exception=exc)
    elif name == "InstanceExistsPayload":
        ia.notify_about_instance_exists(ctx, inst, host=host)
    elif name == "InstanceActionSharePayload":
        ia.notify_about_share_attach_detach(ctx, inst, host, action, phase,
                                            share_id=SHARE_ID, exception=exc)
    else:
        raise AssertionError(name)


SPECIAL = ("InstanceActionRebuildPayload", "InstanceActionRescuePayload",
           "InstanceActionResizePrepPayload",
           "InstanceActionSnapshotPayload", "InstanceActionVolumePayload",
           "InstanceActionVolumeSwapPayload", "InstanceExistsPayload",
           "InstanceActionSharePayload")
SPECIAL_SAMPLES = [
    n for n in sorted(os.listdir(samples.SAMPLES))
    if n.endswith(".json") and samples.load(n)["payload"].get(
        "nova_object.name") in SPECIAL]


@pytest.mark.parametrize("name", SPECIAL_SAMPLES)
def test_special_action_sample(instance, name):
    ctx, inst, bdms = instance
    sample = samples.load(name)
    exc = None
    if sample["priority"] == "ERROR":
        try:
            raise ValueError("failed")
        except ValueError as e:
            exc = e
    with NotificationCapture(fmt="versioned") as cap:
        _send_special(ctx, inst, bdms, sample, exc)
        [sent] = cap.versioned
    assert sent["event_type"] == sample["event_type"]
    assert sent["priority"] == sample["priority"]
    assert sent["publisher_id"] == sample["publisher_id"]
    diff = samples.schema_diff(sample["payload"], sent["payload"])
    assert not diff, "\n".join(diff)


def test_special_samples_found():
    assert len(SPECIAL_SAMPLES) == 25
