"""The power actions through the public API on the KubeVirt driver: a
compute service whose driver talks to the Kubernetes API simulator (over
real HTTP, with its controllers running), next to the one-process cloud.
What the user sees (status, power state) and what Kubernetes holds (the
VirtualMachine's printable status, the VMI) must agree; a guest that
shuts itself down reaches the server through the driver's watch."""
import uuid

import openstack
from oslo_utils import timeutils
import pytest

from keel.cmd import compute as compute_cmd
from keel.cmd import manage_cell_v2
from keel.compute import manager as compute_manager
from keel.conf import CONF
from keel import context as keel_context
from keel.kubesim import KubeSim
from keel import objects
from keel import service
from keel.virt import driver as virt_driver
from keel.virt import power_state
from tests.functional import fixtures_services as fx
from tests.functional.api.test_server_power import _flavor
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call

NS = "default"
NODE = "kv-node-1"
PROJECT = "p-kv"
_KV = (("kubeconfig", None), ("image_cache_namespace", "images"),
       ("api_retry_interval", 0.01), ("spawn_timeout", 20),
       ("power_timeout", 5), ("delete_timeout", 20), ("reboot_timeout", 1),
       ("watch_timeout", 2))  # short watches: a quick service stop


class _Ctx:
    auth_token = "tok"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kvpower")
    sim = KubeSim(namespaces=(NS, "images")).start()
    sim.add_node(NODE, cpu="16", memory="64Gi")
    sim.start_controllers(interval=0.01)
    cloud, launcher = fx.start_cloud(tmp, count=1)
    # A short grace: a stop the driver cannot finish fails in seconds.
    CONF.set_override("shutdown_timeout", 2)
    for name, value in _KV:
        CONF.set_override(name, value or sim.kubeconfig_path, "kubevirt")
    host = f"{CONF.host}-kv"
    mgr = compute_manager.ComputeManager(
        host, driver=virt_driver.load_compute_driver(
            "kubevirt.KubeVirtDriver", host),
        reportclient=compute_cmd.build_reportclient())
    svc = service.Service(host=host, binary="nova-compute", topic="compute",
                          topic_alt="compute-alt", manager=mgr,
                          report_interval=1, periodic_enable=False)
    kv = service.Launcher([svc])
    kv.start()
    assert wait_for(lambda: cloud.nodes(host)), "no KubeVirt compute node"
    manage_cell_v2.discover_hosts()
    cloud.kv_host, cloud.kv_mgr, cloud.sim = host, mgr, sim
    yield cloud
    kv.stop()
    fx.stop_cloud(launcher)
    for name, _value in _KV:
        CONF.clear_override(name, "kubevirt")
    CONF.clear_override("shutdown_timeout")
    sim.stop_controllers()
    sim.stop()


@pytest.fixture
def sdk(http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    yield conn
    conn.close()


def _cell(cloud):
    return objects.CellMapping.get_by_uuid(cloud.ctxt, fx.CELL1_UUID)


def server(cloud):
    """An ACTIVE instance on the KubeVirt compute, its VM running."""
    u = str(uuid.uuid4())
    node = cloud.nodes(cloud.kv_host)[0]
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as cctxt:
        inst = objects.Instance(
            cctxt, uuid=u, project_id=PROJECT, user_id="u", display_name="kv",
            hostname="kv", flavor=_flavor(), instance_type_id=1, vcpus=1,
            memory_mb=512, root_gb=1, image_ref=str(uuid.uuid4()),
            metadata={}, system_metadata={}, launch_index=0,
            availability_zone="nova", vm_state="active", task_state=None,
            power_state=power_state.RUNNING, host=cloud.kv_host,
            node=node.hypervisor_hostname, launched_at=timeutils.utcnow(),
            locked=False, user_data=None, key_data=None,
            info_cache=objects.InstanceInfoCache(network_info=[]))
        inst.create()
        image = objects.ImageMeta.from_dict(
            {"id": inst.image_ref, "name": "cirros", "size": 1024 ** 3,
             "disk_format": "qcow2", "container_format": "bare",
             "properties": {}})
        cloud.kv_mgr.driver.spawn(_Ctx(), inst, image, [], None, {})
    objects.InstanceMapping(cloud.ctxt, instance_uuid=u,
                            cell_mapping=_cell(cloud), project_id=PROJECT,
                            user_id="u").create()
    return u


def status(cloud, u):
    server = call(cloud.app, f"/v2.1/servers/{u}").json["server"]
    return server["status"], server["OS-EXT-STS:task_state"], \
        server["OS-EXT-STS:power_state"]


def settle(cloud, u, expected, timeout=20):
    return wait_for(lambda: status(cloud, u) == expected, timeout=timeout)


def vm_status(cloud, u):
    vm = cloud.sim.get("VirtualMachine", NS, u)
    return vm["status"].get("printableStatus") if vm else None


def test_power_actions_drive_the_virtual_machine(cloud, sdk):
    u = server(cloud)
    sdk.compute.stop_server(u)
    assert settle(cloud, u, ("SHUTOFF", None, power_state.SHUTDOWN)), \
        status(cloud, u)
    assert vm_status(cloud, u) == "Stopped"
    assert cloud.sim.get("VirtualMachineInstance", NS, u) is None
    sdk.compute.start_server(u)
    assert settle(cloud, u, ("ACTIVE", None, power_state.RUNNING))
    assert vm_status(cloud, u) == "Running"
    sdk.compute.pause_server(u)
    assert settle(cloud, u, ("PAUSED", None, power_state.PAUSED))
    sdk.compute.unpause_server(u)
    assert settle(cloud, u, ("ACTIVE", None, power_state.RUNNING))
    sdk.compute.suspend_server(u)
    assert settle(cloud, u, ("SUSPENDED", None, power_state.SUSPENDED)), \
        status(cloud, u)
    sdk.compute.resume_server(u)
    assert settle(cloud, u, ("ACTIVE", None, power_state.RUNNING))
    sdk.compute.reboot_server(u, "SOFT")
    assert settle(cloud, u, ("ACTIVE", None, power_state.RUNNING))
    assert (NS, u, "soft") in cloud.sim.reboots
    before = cloud.sim.get("VirtualMachineInstance", NS, u)["metadata"][
        "uid"]
    sdk.compute.reboot_server(u, "HARD")
    assert settle(cloud, u, ("ACTIVE", None, power_state.RUNNING))
    # A hard reboot is a new VMI; its late events stop nothing.
    assert cloud.sim.get("VirtualMachineInstance", NS, u)["metadata"][
        "uid"] != before


def test_guest_shutdown_inside_the_vm_becomes_shutoff(cloud):
    u = server(cloud)
    cloud.sim.guest_shutdown(NS, u)
    assert settle(cloud, u, ("SHUTOFF", None, power_state.SHUTDOWN),
                  timeout=8), status(cloud, u)
    with keel_context.target_cell(cloud.ctxt, _cell(cloud)) as c:
        acts = objects.InstanceActionList.get_by_instance_uuid(c, u)
    assert [a.action for a in acts] == ["stop"]
