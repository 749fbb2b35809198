"""createImage and createBackup end to end: openstacksdk -> API -> compute
RPC -> fake virt driver, which uploads into the local image catalogue."""
import time

import pytest

from keel import exception
from keel import objects
from keel.notifications.testing import notification_capture  # noqa: F401
from tests.functional.api import moves_helpers as mh
from tests.functional.api.moves_helpers import sdk  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    cloud, launcher = mh.start(tmp_path_factory.mktemp("snap"), count=1)
    yield cloud
    mh.stop(launcher)


def _active(image_id):
    return wait_for(lambda: mh.image(image_id)["status"] == "active"
                    and mh.image(image_id), timeout=15)


def test_create_image_uploads_an_active_snapshot(
        cloud, sdk, notification_capture):  # noqa: F811
    server = mh.boot(sdk)
    # The server resource's own call (the proxy's would then ask Glance).
    image_id = server.create_image(sdk.compute, "snap-1",
                                   metadata={"purpose": "test"})
    snap = _active(image_id)
    assert snap, mh.image(image_id)
    props = snap["properties"]
    assert snap["name"] == "snap-1"
    assert props["image_type"] == "snapshot"
    assert props["instance_uuid"] == server.id
    assert props["base_image_ref"] == mh.IMAGE
    assert props["purpose"] == "test"
    assert props["os_distro"] == "cirros"  # inherited from the boot image
    assert snap["owner"] == mh.read(cloud, server.id).project_id
    assert snap["size"] > 0 and snap["disk_format"] == "raw"
    inst = mh.idle(cloud, server.id)
    assert inst.vm_state == "active"
    notification_capture.wait_for("instance.snapshot.end")
    assert "compute.instance.snapshot.start" in \
        notification_capture.event_types(versioned=False)
    assert wait_for(lambda: ("createImage", [
        ("compute_snapshot_instance", "Success")]) in
        mh.actions(cloud, server.id))


def test_location_header_before_245_and_body_after(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    resp = mh.action(cloud, server.id, {"createImage": {"name": "old"}},
                     version="2.44")
    assert resp.status_int == 202
    image_id = resp.headers["Location"].rsplit("/", 1)[1]
    assert _active(image_id)
    mh.idle(cloud, server.id)
    resp = mh.action(cloud, server.id, {"createImage": {"name": "new"}},
                     version="2.45")
    assert resp.status_int == 202
    assert _active(resp.json["image_id"])


def test_failed_snapshot_deletes_the_image_and_records_a_fault(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    mh.driver(cloud, server.compute_host).inject_failure(
        "snapshot", times=1, instance_uuid=server.id)
    resp = mh.action(cloud, server.id, {"createImage": {"name": "bad"}})
    assert resp.status_int == 202
    image_id = resp.json["image_id"]
    inst = mh.idle(cloud, server.id)
    assert inst.vm_state == "active" and inst.task_state is None
    assert wait_for(lambda: mh.image_gone(image_id))
    assert wait_for(lambda: ("createImage", [
        ("compute_snapshot_instance", "Error")]) in
        mh.actions(cloud, server.id))
    faults = wait_for(lambda: objects.InstanceFaultList
                      .get_by_instance_uuids(mh.cell_ctxt(cloud),
                                             [server.id]).objects)
    assert "Injected failure" in faults[0].message


def test_wrong_states_and_bad_bodies(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    inst = mh.read(cloud, server.id)
    inst.task_state = "pausing"
    inst.save()
    resp = mh.action(cloud, server.id, {"createImage": {"name": "x"}})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'createImage' instance {server.id} while it is in "
        f"task_state pausing")
    inst.task_state = None
    inst.save()
    assert mh.action(cloud, server.id, {"createImage": {}}).status_int == 400
    resp = mh.action(cloud, server.id, {"createBackup": {
        "name": "b", "backup_type": "daily"}})
    assert resp.status_int == 400
    resp = mh.action(cloud, server.id, {"createImage": {
        "name": "q", "metadata": {f"k{i}": "v" for i in range(200)}}})
    assert resp.status_int == 403
    assert "Image metadata limit exceeded" in resp.text


def test_backup_rotation_keeps_the_newest(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    ids = []
    for n in range(3):
        if n:
            # Image timestamps have a one-second resolution (as Glance's):
            # rotation can only order backups made in distinct seconds.
            time.sleep(1.05)
        resp = mh.action(cloud, server.id, {"createBackup": {
            "name": f"bk-{n}", "backup_type": "daily", "rotation": 2}})
        assert resp.status_int == 202, resp.text
        ids.append(resp.json["image_id"])
        assert mh.idle(cloud, server.id)
        assert _active(ids[-1])
    backup = mh.image(ids[-1])
    assert backup["properties"]["image_type"] == "backup"
    assert backup["properties"]["backup_type"] == "daily"
    # Rotation runs just after the task clears.
    assert wait_for(lambda: mh.image_gone(ids[0]))
    assert all(mh.image(i)["status"] == "active" for i in ids[1:])


def test_backup_location_only_when_kept(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    resp = mh.action(cloud, server.id, {"createBackup": {
        "name": "w", "backup_type": "weekly", "rotation": "1"}},
        version="2.44")
    assert resp.status_int == 202
    image_id = resp.headers["Location"].rsplit("/", 1)[1]
    assert _active(image_id)
    assert mh.idle(cloud, server.id)
    resp = mh.action(cloud, server.id, {"createBackup": {
        "name": "w0", "backup_type": "weekly", "rotation": 0}},
        version="2.44")
    assert resp.status_int == 202 and "Location" not in resp.headers
    assert mh.idle(cloud, server.id)
    # Rotation 0 keeps none of this type.
    assert wait_for(lambda: mh.image_gone(image_id))


def test_guest_gone_during_snapshot_drops_the_image_quietly(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    mh.driver(cloud, server.compute_host).inject_failure(
        "snapshot", exc=exception.InstanceNotFound(instance_id=server.id),
        times=1, instance_uuid=server.id)
    resp = mh.action(cloud, server.id, {"createImage": {"name": "gone"}})
    assert resp.status_int == 202
    image_id = resp.json["image_id"]
    assert wait_for(lambda: mh.image_gone(image_id))
    # An instance deleted meantime is no failure of the snapshot.
    assert wait_for(lambda: ("createImage", [
        ("compute_snapshot_instance", "Success")]) in
        mh.actions(cloud, server.id))


def test_start_up_clears_an_interrupted_snapshot(cloud, sdk):  # noqa: F811
    from keel.compute.ops import recovery
    server = mh.boot(sdk)
    inst = mh.read(cloud, server.id)
    inst.task_state = "image_uploading"
    inst.save()
    mgr = next(s.manager for s in cloud.services
               if s.binary == "nova-compute")
    recovery.init_instances(mgr, mh.cell_ctxt(cloud))
    inst = mh.read(cloud, server.id)
    assert inst.task_state is None and inst.vm_state == "active"
    assert mh.action(cloud, server.id,
                     {"createImage": {"name": "again"}}).status_int == 202
