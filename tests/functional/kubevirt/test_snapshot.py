"""snapshot: VirtualMachineSnapshot + VirtualMachineExport streamed into the
image service (the real local image catalogue), with Nova's task states."""
import threading

import pytest

from keel.image import local as local_images
from keel.virt.kubevirt import driver as kv_driver
from keel.virt.kubevirt import errors

from .conftest import HOST, NS, Ctx, image, make_instance


class AdminCtx(Ctx):
    is_admin = True
    project_id = "p1"


@pytest.fixture
def images(tmp_path):
    return local_images.LocalImageAPI(str(tmp_path / "images"))


@pytest.fixture
def drv(conf, images):
    d = kv_driver.KubeVirtDriver(host=HOST, conf=conf, image_api=images)
    d.init_host(HOST)
    yield d
    d.cleanup_host(HOST)


@pytest.fixture
def guest(sim, drv, running):
    inst = make_instance(project_id="p1")
    drv.spawn(Ctx(), inst, image(), [], None, {})
    return inst


def _queued(images, **props):
    return images.create(AdminCtx(), {"name": "snap-1", "properties": props})


def _leftovers(sim):
    return (sim.list("VirtualMachineSnapshot", NS),
            sim.list("VirtualMachineExport", NS),
            [s for s in sim.list("Secret", NS)
             if s["metadata"]["name"].startswith("keel-snapshot-")])


def test_snapshot_uploads_the_root_disk(sim, drv, guest, images):
    sim.export_data[(NS, guest.uuid + "-root")] = b"root disk bytes" * 1000
    snap = _queued(images, base_image_ref=guest.image_ref)
    calls = []

    def update_task_state(task_state, expected_state=None):
        calls.append((task_state, expected_state))
        if task_state == "image_uploading":
            # The disk is captured: later guest writes are not in the image.
            sim.export_data[(NS, guest.uuid + "-root")] = b"changed"
    drv.snapshot(AdminCtx(), guest, snap["id"], update_task_state)
    assert calls == [("image_pending_upload", None),
                     ("image_uploading", "image_pending_upload")]
    data = b"".join(images.download(AdminCtx(), snap["id"]))
    assert data == b"root disk bytes" * 1000
    meta = images.get(AdminCtx(), snap["id"])
    assert meta["status"] == "active" and meta["disk_format"] == "raw"
    assert meta["properties"]["base_image_ref"] == guest.image_ref
    assert meta["properties"]["image_location"] == "snapshot"
    sim.settle()
    assert _leftovers(sim) == ([], [], [])
    assert sim.list("VirtualMachineSnapshotContent", NS) == []


def test_snapshot_survives_a_watch_disconnect(sim, drv, guest, images):
    """The wait for the snapshot resumes after its watch is cut abruptly."""
    snap = _queued(images)
    sim.stop_controllers()
    done = []
    worker = threading.Thread(target=lambda: done.append(drv.snapshot(
        AdminCtx(), guest, snap["id"], lambda **kw: None)))
    worker.start()
    # The three informers plus the snapshot's own watch are streaming
    # (stream starts are not notified: a short bounded poll).
    for _ in range(500):
        if sim.watches.active >= 4:
            break
        threading.Event().wait(0.01)
    assert sim.watches.active >= 4
    assert sim.list("VirtualMachineSnapshot", NS)
    sim.disconnect_watches(abrupt=True)
    sim.start_controllers(interval=0.01)
    worker.join(20)
    assert done == [None]
    assert images.get(AdminCtx(), snap["id"])["status"] == "active"


def test_failed_snapshot_cleans_up_and_uploads_nothing(sim, drv, guest,
                                                       images):
    snap = _queued(images)
    sim.fail_snapshot("keel-snapshot-" + snap["id"])
    calls = []
    with pytest.raises(errors.SnapshotFailed) as err:
        drv.snapshot(AdminCtx(), guest, snap["id"],
                     lambda **kw: calls.append(kw["task_state"]))
    assert "injected" in str(err.value)
    assert calls == ["image_pending_upload"]
    assert images.get(AdminCtx(), snap["id"])["status"] == "queued"
    sim.settle()
    assert _leftovers(sim) == ([], [], [])


def test_export_download_error_fails_before_the_image_is_touched(
        sim, drv, guest, images):
    snap = _queued(images)
    fault = sim.fail_requests("GET", "/kubesim/export/", status=503)
    with pytest.raises(errors.SnapshotFailed) as err:
        drv.snapshot(AdminCtx(), guest, snap["id"], lambda **kw: None)
    assert fault.hits == 1 and "503" in str(err.value)
    assert images.get(AdminCtx(), snap["id"])["status"] == "queued"
    sim.settle()
    assert _leftovers(sim) == ([], [], [])


def test_container_disk_root_cannot_be_snapshotted(sim, drv, running, images):
    inst = make_instance(system_metadata={
        "image_kubevirt_container_disk": "quay.io/containerdisks/fedora:41"})
    drv.spawn(Ctx(), inst, image(), [], None, {})
    with pytest.raises(errors.SnapshotFailed):
        drv.snapshot(AdminCtx(), inst, _queued(images)["id"],
                     lambda **kw: None)
