"""The local image catalogue: Nova's image API over a directory, shared
safely by several processes."""
import io
import json
import multiprocessing
import os

import pytest

from keel import context as keel_context
from keel import exception
from keel.image import local

IMG = "70a599e0-31e7-49b7-b260-868f441e862b"


def ctx(project="p1", admin=False):
    return keel_context.RequestContext(user_id="u1", project_id=project,
                                       is_admin=admin)


@pytest.fixture
def cat(tmp_path):
    return local.LocalImageAPI(str(tmp_path / "images"))


def _meta(**kw):
    meta = {"name": "cirros", "disk_format": "qcow2",
            "container_format": "bare", "min_ram": 64, "min_disk": 1,
            "visibility": "public",
            "properties": {"hw_machine_type": "q35", "os_distro": "cirros"}}
    meta.update(kw)
    return meta


def test_create_with_data_is_active_with_size_and_checksum(cat):
    img = cat.create(ctx(), _meta(id=IMG), data=b"x" * 1000)
    assert img["id"] == IMG and img["status"] == "active"
    assert img["size"] == 1000 and len(img["checksum"]) == 32
    assert img["properties"] == {"hw_machine_type": "q35",
                                 "os_distro": "cirros"}
    assert img["owner"] == "p1" and img["is_public"] is True
    got = cat.get(ctx("other"), IMG)
    assert got["min_ram"] == 64 and got["created_at"].year >= 2024
    # Stored as a Glance v2 document: properties flat.
    with open(os.path.join(cat.path, IMG + ".json")) as fh:
        doc = json.load(fh)
    assert doc["os_distro"] == "cirros" and "properties" not in doc


def test_without_data_is_queued_and_upload_activates(cat):
    img = cat.create(ctx(), _meta())
    assert img["status"] == "queued" and img["size"] == 0
    up = cat.update(ctx(), img["id"], {}, data=io.BytesIO(b"abc"),
                    purge_props=False)
    assert up["status"] == "active" and up["size"] == 3
    assert up["properties"]["os_distro"] == "cirros"
    assert b"".join(cat.download(ctx(), img["id"])) == b"abc"


def test_location_registration_and_include_locations(cat):
    img = cat.create(ctx(), _meta(location="http://example.com/c.img",
                                  size=123))
    assert img["status"] == "active" and img["size"] == 123
    assert "locations" not in img
    full = cat.get(ctx(), img["id"], include_locations=True)
    assert full["locations"] == [{"url": "http://example.com/c.img",
                                  "metadata": {}}]
    with pytest.raises(exception.ImageUnacceptable):
        cat.download(ctx(), img["id"])


def test_private_images_are_hidden_from_other_projects(cat):
    img = cat.create(ctx("p1"), _meta(visibility="private"))
    with pytest.raises(exception.ImageNotFound):
        cat.get(ctx("p2"), img["id"])
    assert cat.get(ctx("p2", admin=True), img["id"])["id"] == img["id"]
    assert [i["id"] for i in cat.get_all(ctx("p2"))] == []
    assert [i["id"] for i in cat.get_all(ctx("p1"))] == [img["id"]]


def test_only_the_owner_changes_or_deletes(cat):
    img = cat.create(ctx("p1"), _meta())
    with pytest.raises(exception.ImageNotAuthorized):
        cat.delete(ctx("p2"), img["id"])
    with pytest.raises(exception.ImageNotAuthorized):
        cat.update(ctx("p2"), img["id"], {"name": "x"})
    cat.delete(ctx("p1"), img["id"])
    with pytest.raises(exception.ImageNotFound):
        cat.get(ctx("p1"), img["id"])
    with pytest.raises(exception.ImageNotFound):
        cat.delete(ctx("p1"), img["id"])


def test_protected_image_cannot_be_deleted(cat):
    img = cat.create(ctx(), _meta(protected=True))
    with pytest.raises(exception.ImageNotAuthorized):
        cat.delete(ctx(), img["id"])


def test_update_purges_properties_not_named(cat):
    img = cat.create(ctx(), _meta())
    img["properties"] = {"os_distro": "ubuntu", "new": "1"}
    up = cat.update(ctx(), img["id"], img, purge_props=True)
    assert up["properties"] == {"os_distro": "ubuntu", "new": "1"}
    up = cat.update(ctx(), img["id"], {"properties": {"more": "2"}},
                    purge_props=False)
    assert up["properties"] == {"os_distro": "ubuntu", "new": "1",
                                "more": "2"}
    assert up["name"] == "cirros"


def test_bad_input_is_image_bad_request(cat):
    with pytest.raises(exception.ImageBadRequest):
        cat.create(ctx(), _meta(disk_format="floppy"))
    with pytest.raises(exception.ImageBadRequest):
        cat.create(ctx(), _meta(id="not-a-uuid"))
    cat.create(ctx(), _meta(id=IMG))
    with pytest.raises(exception.ImageBadRequest):
        cat.create(ctx(), _meta(id=IMG))


def test_list_filters_sort_and_paging(cat):
    ids = [cat.create(ctx(), _meta(name="img%d" % i, min_ram=i))["id"]
           for i in range(5)]
    listed = [i["id"] for i in cat.get_all(ctx())]
    assert sorted(listed) == sorted(ids)
    by_name = cat.get_all(ctx(), filters={"name": "img3"})
    assert [i["id"] for i in by_name] == [ids[3]]
    assert [i["id"] for i in cat.get_all(
        ctx(), filters={"min_ram": "2"})] == [ids[2]]
    assert cat.get_all(ctx(), filters={"property-os_distro": "cirros"})
    assert not cat.get_all(ctx(), filters={"property-os_distro": "x"})
    page1 = cat.get_all(ctx(), limit=2)
    page2 = cat.get_all(ctx(), limit=2, marker=page1[-1]["id"])
    assert len(page1) == 2 and len(page2) == 2
    assert not {i["id"] for i in page1} & {i["id"] for i in page2}
    with pytest.raises(exception.Invalid):
        cat.get_all(ctx(), marker="nope")


def _writer(path, n, start):
    api = local.LocalImageAPI(path)
    img_id = open(os.path.join(path, "target")).read()
    for i in range(n):
        api.update(None, img_id, {"properties": {"k%d" % (start + i): "v"}},
                   purge_props=False)


def test_concurrent_processes_lose_no_update(cat):
    img = cat.create(ctx(), _meta(properties={}))
    with open(os.path.join(cat.path, "target"), "w") as fh:
        fh.write(img["id"])
    procs = [multiprocessing.get_context("fork").Process(
        target=_writer, args=(cat.path, 15, 100 * p)) for p in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert all(p.exitcode == 0 for p in procs)
    props = cat.get(ctx(), img["id"])["properties"]
    assert len(props) == 45


def test_upload_claims_the_image_and_a_failed_one_leaves_it_queued(cat):
    img = cat.create(ctx(), _meta())
    seen = {}

    def chunks():
        yield b"abc"
        # mid-upload: the image is saving, a second upload is refused
        seen["status"] = cat.get(ctx(), img["id"])["status"]
        with pytest.raises(exception.ImageBadRequest):
            cat.update(ctx(), img["id"], {}, data=b"other",
                       purge_props=False)
        raise IOError("connection lost")

    with pytest.raises(IOError):
        cat.update(ctx(), img["id"], {}, data=chunks(), purge_props=False)
    assert seen["status"] == "saving"
    assert cat.get(ctx(), img["id"])["status"] == "queued"
    assert not [n for n in os.listdir(cat.path) if n.startswith(".tmp-")]
    done = cat.update(ctx(), img["id"], {}, data=b"abcd", purge_props=False)
    assert done["status"] == "active" and done["size"] == 4
    with pytest.raises(exception.ImageBadRequest):  # active: no re-upload
        cat.update(ctx(), img["id"], {}, data=b"x", purge_props=False)


def test_volume_backed_snapshot_is_active_and_empty(cat):
    # Nova creates it with size 0 and no data: Glance gets an empty upload
    img = cat.create(ctx(), {"name": "vol-snap", "size": 0,
                             "properties": {"bdm_v2": "True"}})
    assert img["status"] == "active" and img["size"] == 0
    assert (img["disk_format"], img["container_format"]) == ("raw",
                                                             "bare")


def test_data_is_read_from_a_file_location(cat, tmp_path):
    disk = tmp_path / "disk.raw"
    disk.write_bytes(b"r" * 300)
    img = cat.create(ctx(), _meta(location=disk.as_uri(),
                                  disk_format="raw"))
    assert img["size"] == 300  # taken from the file
    assert b"".join(cat.download(ctx(), img["id"])) == b"r" * 300
    dst = tmp_path / "copy"
    cat.download(ctx(), img["id"], dst_path=str(dst))
    assert dst.read_bytes() == b"r" * 300
    disk.unlink()
    with pytest.raises(exception.ImageUnacceptable):
        cat.download(ctx(), img["id"])


def test_only_admins_add_locations(cat, tmp_path):
    img = cat.create(ctx("p1"), _meta())
    op = [{"op": "add", "path": "/locations/-",
           "value": {"url": "file:///etc/hostname", "metadata": {}}}]
    with pytest.raises(exception.ImageNotAuthorized):
        cat.patch(ctx("p1"), img["id"], op)
    cat.patch(ctx("p1", admin=True), img["id"], op)
    assert cat.get(ctx(), img["id"], include_locations=True)[
        "locations"][0]["url"] == "file:///etc/hostname"
