"""The image a snapshot or backup creates, from the instance's record of
the image it was booted from (Nova's snapshot metadata)."""
from keel.compute_api import server_snapshot
from keel import context as keel_context
from keel import objects
from tests.unit.api.conftest import ensure_parsed

objects.register_all()


def _instance():
    return objects.Instance(
        uuid="0f4b7a9e-4a8e-4f4b-9c55-1c3e0c7b8d21", project_id="proj",
        image_ref="img-base", system_metadata={
            "image_min_ram": "256", "image_min_disk": "1",
            "image_disk_format": "qcow2", "image_container_format": "bare",
            "image_os_distro": "cirros", "image_cache_in_nova": "True",
            "image_img_signature": "sig", "image_base_image_ref": "img-base",
            "image_os_glance_import_method": "web-download",
            "owner_user_name": "not an image key"})


def _ctx():
    return keel_context.RequestContext(user_id="user", project_id="proj")


def test_snapshot_inherits_the_boot_image_without_its_formats():
    ensure_parsed()
    meta = server_snapshot.snapshot_metadata(
        _ctx(), _instance(), "snap", "snapshot", {"purpose": "x"})
    assert meta["name"] == "snap" and meta["visibility"] == "private"
    assert meta["owner"] == "proj"
    assert (meta["min_ram"], meta["min_disk"]) == (256, 1)
    # The driver may convert the disk: it sets the formats on upload.
    assert "disk_format" not in meta and "container_format" not in meta
    assert meta["properties"] == {
        "os_distro": "cirros", "base_image_ref": "img-base",
        "instance_uuid": "0f4b7a9e-4a8e-4f4b-9c55-1c3e0c7b8d21",
        "user_id": "user", "image_type": "snapshot", "purpose": "x"}


def test_backup_keeps_the_formats_and_its_type():
    ensure_parsed()
    meta = server_snapshot.snapshot_metadata(
        _ctx(), _instance(), "bk", "backup", {"backup_type": "daily"})
    assert (meta["disk_format"], meta["container_format"]) == \
        ("qcow2", "bare")
    assert meta["properties"]["image_type"] == "backup"
    assert meta["properties"]["backup_type"] == "daily"
