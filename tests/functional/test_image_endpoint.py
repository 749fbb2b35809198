"""The all-in-one's Glance v2 endpoint over the local catalogue, driven by
openstacksdk's image proxy (what the openstack CLI uses) and by keel's own
Glance client."""
import io

from oslo_config import cfg
import pytest

from keel.allinone import image_endpoint
from keel.allinone import images as seed_images
from keel.clients import glance as glance_client
from keel import conf as keel_conf
from keel import context as keel_context
from keel import exception
from keel.image import glance as image_glance
from tests.fixtures import http_app

QCOW2 = seed_images.empty_qcow2()


@pytest.fixture
def endpoint(tmp_path):
    from tests.unit.api.conftest import ensure_parsed
    ensure_parsed()  # development roles are read from CONF
    path = str(tmp_path / "images")
    seed_images.seed(path)
    with http_app.served(image_endpoint.ImageEndpoint(path),
                         threads=2) as url:
        yield url


def test_openstacksdk_image_proxy(endpoint, tmp_path):
    import openstack
    conn = openstack.connection.Connection(
        auth_type="none", image_endpoint_override=endpoint)
    try:
        [seed] = list(conn.image.images())
        assert seed.name == seed_images.SEED_NAME
        assert conn.image.find_image(seed_images.SEED_NAME).id == seed.id
        made = conn.image.create_image(
            name="up", disk_format="qcow2", container_format="bare",
            data=io.BytesIO(QCOW2), validate_checksum=False,
            hw_disk_bus="virtio")
        got = conn.image.get_image(made.id)
        assert got.status == "active" and got.size == len(QCOW2)
        assert got.hw_disk_bus == "virtio"
        conn.image.update_image(made.id, hw_disk_bus="scsi")
        assert conn.image.get_image(made.id).hw_disk_bus == "scsi"
        dst = tmp_path / "saved"
        conn.image.download_image(made.id, output=str(dst))
        assert dst.read_bytes() == QCOW2
        assert sorted(i.name for i in conn.image.images(limit=1)) == \
            sorted(["up", seed_images.SEED_NAME])  # follows next links
        conn.image.delete_image(made.id)
        assert [i.id for i in conn.image.images()] == [seed.id]
    finally:
        conn.close()


def test_keel_glance_client_against_it(endpoint):
    conf = cfg.ConfigOpts()
    keel_conf.register_all(conf)
    conf([])
    conf.set_override("endpoint_override", endpoint, group="glance")
    conf.set_override("num_retries", 0, group="glance")
    api = image_glance.GlanceImageAPI(glance_client.GlanceClient(conf))
    ctx = keel_context.RequestContext(user_id="u", project_id="p",
                                      is_admin=True)
    [seed] = api.get_all(ctx, filters={"name": seed_images.SEED_NAME})
    assert seed["properties"]["kubevirt_container_disk"]
    assert b"".join(api.download(ctx, seed["id"])) == QCOW2
    img = api.create(ctx, {"name": "snap", "disk_format": "raw",
                           "container_format": "bare",
                           "properties": {"a": "1", "b": "2"}})
    api.update(ctx, img["id"], {"properties": {"a": "1"}},
               data=iter([b"ab", b"cd"]), purge_props=True)
    got = api.get(ctx, img["id"])
    assert got["properties"] == {"a": "1"} and got["size"] == 4
    api.delete(ctx, img["id"])
    with pytest.raises(exception.ImageNotFound):
        api.get(ctx, img["id"])
    # Glance's answers to a read-only attribute and a bad patch
    client = glance_client.GlanceClient(conf)
    for op, status in (({"op": "replace", "path": "/checksum",
                         "value": "x"}, 403),
                       ({"op": "remove", "path": "/nope"}, 400),
                       ({"op": "move", "path": "/name"}, 400)):
        with pytest.raises(glance_client.HTTPError) as err:
            client.patch_image(ctx, seed["id"], [op])
        assert err.value.status == status
