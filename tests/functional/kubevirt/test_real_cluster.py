"""The same driver against a real Kubernetes cluster with KubeVirt.

Skipped unless KEEL_KUBEVIRT_KUBECONFIG names a kubeconfig (a kind cluster
with KubeVirt in software emulation is enough).  The guest boots from a
containerDisk, so neither CDI nor Glance is needed:

    KEEL_KUBEVIRT_KUBECONFIG=~/.kube/config \\
        .venv/bin/python -m pytest \\
        tests/functional/kubevirt/test_real_cluster.py
"""
import os
import uuid

import pytest
from oslo_config import cfg

from keel.conf import base as base_conf
from keel.conf import kubevirt as kubevirt_conf
from keel.virt import power_state
from keel.virt.kubevirt import driver as kv_driver

from .conftest import make_instance

KUBECONFIG = os.environ.get("KEEL_KUBEVIRT_KUBECONFIG")
IMAGE = os.environ.get("KEEL_KUBEVIRT_CONTAINER_DISK",
                       "quay.io/containerdisks/cirros:0.6.2")

pytestmark = pytest.mark.skipif(
    not KUBECONFIG, reason="KEEL_KUBEVIRT_KUBECONFIG is not set")


@pytest.fixture
def real_drv():
    conf = cfg.ConfigOpts()
    base_conf.register_opts(conf)
    kubevirt_conf.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("kubeconfig", os.path.expanduser(KUBECONFIG),
                      group="kubevirt")
    conf.set_override("volume_access_modes", ["ReadWriteOnce"],
                      group="kubevirt")
    host = "keel-e2e-%s" % uuid.uuid4().hex[:6]
    drv = kv_driver.KubeVirtDriver(host=host, conf=conf)
    drv.init_host(host)
    yield drv
    drv.cleanup_host(host)


def test_boot_power_cycle_and_delete(real_drv):
    node = real_drv.get_available_nodes(refresh=True)[0]
    inst = make_instance(node=node, vcpus=1, memory_mb=256, system_metadata={
        "image_kubevirt_container_disk": IMAGE})
    real_drv.spawn(None, inst, None, [], None, {})
    try:
        assert real_drv.get_info(inst).state == power_state.RUNNING
        real_drv.power_off(inst, timeout=0)
        assert real_drv.get_info(inst).state == power_state.SHUTDOWN
        real_drv.power_on(None, inst, None)
        real_drv.reboot(None, inst, None, "HARD")
        assert real_drv.get_info(inst).state == power_state.RUNNING
    finally:
        real_drv.destroy(None, inst, None)
    assert inst.uuid not in real_drv.list_instance_uuids()
