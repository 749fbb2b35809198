"""Instances, flavors and image metadata for the spec renderers."""
import pytest
from oslo_config import cfg

from keel.conf import kubevirt as kubevirt_conf
from keel.objects import flavor as flavor_obj
from keel.objects import image_meta as image_meta_obj
from keel.objects import instance as instance_obj

UUID = "4f9f5b4e-2d7a-4c1e-9a57-0d6c3f1b2a10"
IMAGE = "a1b2c3d4-0000-4000-8000-00000000beef"


@pytest.fixture
def conf():
    c = cfg.ConfigOpts()
    kubevirt_conf.register_opts(c)
    c([], default_config_files=[])
    return c


@pytest.fixture
def opts(conf):
    return conf.kubevirt


def make_instance(extra_specs=None, vcpus=4, memory_mb=4096, **fields):
    flavor = flavor_obj.Flavor(name="m1.large", flavorid="4", vcpus=vcpus,
                               memory_mb=memory_mb, root_gb=20,
                               ephemeral_gb=fields.pop("ephemeral_gb", 0),
                               swap=fields.pop("swap", 0),
                               extra_specs=dict(extra_specs or {}))
    values = dict(uuid=UUID, flavor=flavor, node="node-1", host="cmp",
                  hostname="web-1", display_name="web 1", image_ref=IMAGE,
                  system_metadata={})
    values.update(fields)
    return instance_obj.Instance(**values)


def make_image(**properties):
    return image_meta_obj.ImageMeta.from_dict(
        {"id": IMAGE, "size": 3 * 1024 ** 3 + 1, "disk_format": "qcow2",
         "properties": properties})


def vif(port_id="5d0c7a7e-aaaa-4bbb-8ccc-1234567890ab",
        mac="fa:16:3e:00:00:01", net="9f0c2f7e-1111-4222-8333-abcdefabcdef"):
    return {"id": port_id, "address": mac,
            "network": {"id": net, "meta": {"mtu": 1450}}}

