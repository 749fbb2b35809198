"""The KubeVirt driver against KubeSim over real HTTP, configured the way
an operator would: a kubeconfig file in [kubevirt]."""
import uuid

import pytest
from oslo_config import cfg

from keel.conf import base as base_conf
from keel.conf import kubevirt as kubevirt_conf
from keel.kubesim import KubeSim
from keel.objects import flavor as flavor_obj
from keel.objects import image_meta as image_meta_obj
from keel.objects import instance as instance_obj
from keel.virt.kubevirt import driver as kv_driver

NS = "default"
HOST = "compute-1"


@pytest.fixture
def sim():
    with KubeSim(namespaces=(NS, "images")) as s:
        s.add_node("node-1", cpu="16", memory="64Gi")
        s.add_node("node-2", cpu="8", memory="32Gi", cpu_manager=True,
                   cpu_features=("vmx", "avx2", "aes"))
        yield s
        s.stop_controllers()
        assert not s.server_errors, s.server_errors


@pytest.fixture
def conf(sim):
    c = cfg.ConfigOpts()
    base_conf.register_opts(c)
    kubevirt_conf.register_opts(c)
    c([], default_config_files=[])
    for name, value in (("kubeconfig", sim.kubeconfig_path),
                        ("image_cache_namespace", "images"),
                        ("api_retry_interval", 0.01),
                        ("spawn_timeout", 20), ("power_timeout", 20),
                        ("delete_timeout", 20), ("reboot_timeout", 1),
                        ("watch_timeout", 30)):
        c.set_override(name, value, group="kubevirt")
    return c


@pytest.fixture
def drv(conf):
    d = kv_driver.KubeVirtDriver(host=HOST, conf=conf)
    d.events = []
    d.register_event_listener(d.events.append)
    d.init_host(HOST)
    yield d
    d.cleanup_host(HOST)


@pytest.fixture
def running(sim):
    """Controllers stepping on their own while the driver waits."""
    sim.start_controllers(interval=0.01)
    yield sim
    sim.stop_controllers()


def make_instance(node="node-1", vcpus=2, memory_mb=2048, root_gb=10,
                  ephemeral_gb=0, swap=0, extra_specs=None, image_ref=None,
                  **fields):
    flavor = flavor_obj.Flavor(name="m1.test", flavorid="42", vcpus=vcpus,
                               memory_mb=memory_mb, root_gb=root_gb,
                               ephemeral_gb=ephemeral_gb, swap=swap,
                               extra_specs=dict(extra_specs or {}))
    values = dict(uuid=str(uuid.uuid4()), flavor=flavor, node=node,
                  host=HOST, hostname="vm-one", display_name="vm one",
                  image_ref=image_ref or str(uuid.uuid4()),
                  system_metadata={}, user_data=None, key_data=None,
                  metadata={})
    values.update(fields)
    return instance_obj.Instance(**values)


def image(properties=None, size=2 * 1024 ** 3):
    return image_meta_obj.ImageMeta.from_dict(
        {"id": str(uuid.uuid4()), "name": "cirros", "size": size,
         "disk_format": "qcow2", "container_format": "bare",
         "properties": dict(properties or {})})


class Ctx(object):
    auth_token = "tok-123"


@pytest.fixture(autouse=True)
def no_leftover_threads():
    """Every watch thread the driver starts is gone after the test."""
    import threading
    yield
    left = [t.name for t in threading.enumerate()
            if t.name.startswith("kubevirt-informer") and t.is_alive()]
    assert not left, left
