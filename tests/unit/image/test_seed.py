"""The all-in-one's first image: seeded once, bootable on KubeVirt, and
written where keel manage finds it."""
import struct

from oslo_config import cfg

from keel.allinone import images
from keel.allinone import settings
from keel import conf as keel_conf
from keel.image import local


def test_seed_once_and_not_again_after_delete(tmp_path):
    path = str(tmp_path / "images")
    first = images.seed(path)
    assert first["name"] == images.SEED_NAME
    assert first["status"] == "active"
    assert first["disk_format"] == "qcow2"
    assert first["container_format"] == "bare"
    assert first["properties"]["kubevirt_container_disk"].startswith(
        "quay.io/kubevirt/cirros-container-disk-demo")
    assert images.seed(path) is None  # a restart
    api = local.LocalImageAPI(path)
    assert [i["id"] for i in api.get_all(None)] == [first["id"]]
    api.delete(None, first["id"])
    assert images.seed(path) is None
    assert api.get_all(None) == []


def test_seed_data_is_a_qcow2_of_the_announced_size(tmp_path):
    path = str(tmp_path / "images")
    img = images.seed(path)
    data = b"".join(local.LocalImageAPI(path).download(None, img["id"]))
    magic, version = struct.unpack(">II", data[:8])
    assert magic == 0x514649FB and version == 2
    assert struct.unpack(">Q", data[24:32])[0] == images.SEED_VIRTUAL_SIZE
    assert img["size"] == len(data) < 64 * 1024


def test_all_in_one_points_the_catalogue_into_the_state_dir(tmp_path):
    conf = cfg.ConfigOpts()
    keel_conf.register_all(conf)
    conf([])
    layout = settings.Layout(str(tmp_path))
    settings.apply(conf, layout, "http://127.0.0.1:1")
    assert conf.image_catalogue.path == str(tmp_path / "images")
    settings.write_config(conf, layout)
    text = open(layout.config_file).read()
    assert "[image_catalogue]\npath = %s" % (tmp_path / "images") in text
    assert layout.api_db in text


def test_an_operator_catalogue_path_is_kept(tmp_path):
    conf = cfg.ConfigOpts()
    keel_conf.register_all(conf)
    conf([])
    conf.set_override("path", "/srv/images", group="image_catalogue")
    settings.apply(conf, settings.Layout(str(tmp_path)), "http://h:1")
    assert conf.image_catalogue.path == "/srv/images"


def test_flavors_seeded_once(tmp_path):
    from keel.allinone import flavors
    from keel import context as keel_context
    from keel.db.api import models as api_models
    from keel.db import session
    from keel import objects
    from tests.unit.api.conftest import ensure_parsed
    ensure_parsed()
    objects.register_all()
    CONF = keel_conf.CONF
    CONF.set_override("connection", f"sqlite:///{tmp_path}/api.sqlite",
                      group="api_database")
    session.reset()
    try:
        api_models.Base.metadata.create_all(session.api_engine())
        ctxt = keel_context.get_admin_context()
        objects.Flavor(ctxt, flavorid="9", name="m1.small", vcpus=1,
                       memory_mb=1, root_gb=1, ephemeral_gb=0, swap=0,
                       is_public=True, disabled=False).create()
        made = flavors.seed(str(tmp_path))
        # an operator's m1.small is kept; the others are created
        assert made == ["m1.tiny", "m1.medium", "m1.large", "m1.xlarge"]
        assert flavors.seed(str(tmp_path)) == []
        tiny = objects.Flavor.get_by_flavor_id(ctxt, "1")
        assert (tiny.name, tiny.memory_mb, tiny.root_gb) == \
            ("m1.tiny", 512, 1)
    finally:
        session.reset()
        CONF.clear_override("connection", group="api_database")


def test_image_endpoint_becomes_the_glance_link_and_cdi_source():
    conf = cfg.ConfigOpts()
    keel_conf.register_all(conf)
    conf([])
    settings.use_image_endpoint(conf, "http://127.0.0.1:9393")
    assert conf.api.glance_link_prefix == "http://127.0.0.1:9393"
    assert conf.kubevirt.glance_image_url == \
        "http://127.0.0.1:9393/v2/images/{image_id}/file"
    # an operator's own choices stay
    other = cfg.ConfigOpts()
    keel_conf.register_all(other)
    other([])
    other.set_override("glance_link_prefix", "https://img.example", "api")
    other.set_override("glance_image_url", "https://g/{image_id}",
                       "kubevirt")
    settings.use_image_endpoint(other, "http://127.0.0.1:9393")
    assert other.api.glance_link_prefix == "https://img.example"
    assert other.kubevirt.glance_image_url == "https://g/{image_id}"
