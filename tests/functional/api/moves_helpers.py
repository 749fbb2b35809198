"""The cloud of the snapshot and resize tests: two fake-driver computes,
the local image catalogue with one image, flavors, openstacksdk over HTTP,
and small readers of what the cell and Placement hold."""
import uuid

import openstack
import pytest

from keel.compute_api import server_create as create_api
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel.image import api as image_api
from keel import objects
from tests.functional import fixtures_services as fx
from tests.functional.fixtures_services import wait_for

IMAGE = "5e1f0a2b-3c4d-4e5f-9a0b-1c2d3e4f5a6c"
# (id, vcpus, ram, disk): mv.huge fits no host's disk (disk has no
# quota), mv.greedy passes the ram quota.
FLAVORS = (("mv.small", 1, 512, 1), ("mv.big", 2, 1024, 1),
           ("mv.huge", 1, 512, 10 ** 7), ("mv.greedy", 1, 10 ** 8, 1))


def start(tmp, count=2):
    CONF.set_override("path", str(tmp / "images"), "image_catalogue")
    image_api.reset()
    create_api.reset()
    cloud, launcher = fx.start_cloud(tmp, count=count)
    # Every test boots its own servers in the one (admin) project; the ram
    # quota keeps its default (a test goes over it on purpose).
    CONF.set_override("instances", 100, "quota")
    CONF.set_override("cores", 200, "quota")
    ctxt = keel_context.get_admin_context()
    image_api.get_api().create(
        ctxt, {"id": IMAGE, "name": "cirros", "disk_format": "qcow2",
               "container_format": "bare", "visibility": "public",
               "os_distro": "cirros"}, data=b"x" * 1024)
    for flavorid, vcpus, ram, disk in FLAVORS:
        objects.Flavor(ctxt, flavorid=flavorid, name=flavorid, vcpus=vcpus,
                       memory_mb=ram, root_gb=disk, ephemeral_gb=0, swap=0,
                       is_public=True, disabled=False).create()
    return cloud, launcher


def stop(launcher):
    fx.stop_cloud(launcher)
    CONF.clear_override("instances", "quota")
    CONF.clear_override("cores", "quota")
    CONF.clear_override("path", "image_catalogue")
    image_api.reset()
    create_api.reset()


@pytest.fixture
def sdk(http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    yield conn
    conn.close()


def boot(sdk, flavor="mv.small"):
    server = sdk.compute.create_server(
        name="mv-" + uuid.uuid4().hex[:6], image_id=IMAGE, flavor_id=flavor,
        networks="none")
    return sdk.compute.wait_for_server(server, status="ACTIVE",
                                       interval=0.1, wait=30)


def cell_ctxt(cloud):
    cell = objects.CellMapping.get_by_uuid(cloud.ctxt, fx.CELL1_UUID)
    with keel_context.target_cell(cloud.ctxt, cell) as cctxt:
        return cctxt


def read(cloud, u):
    return objects.Instance.get_by_uuid(
        cell_ctxt(cloud), u, expected_attrs=["flavor", "system_metadata"])


def actions(cloud, u):
    """[(action, [(event, result)])], oldest first."""
    c = cell_ctxt(cloud)
    out = []
    for a in reversed(objects.InstanceActionList.get_by_instance_uuid(c, u)):
        evs = objects.InstanceActionEventList.get_by_action(c, a.id)
        out.append((a.action, sorted((e.event, e.result) for e in evs)))
    return out


def idle(cloud, u, timeout=20):
    """The instance once no task runs on it."""
    return wait_for(lambda: (lambda i: i if i.task_state is None else None)(
        read(cloud, u)), timeout=timeout)


def allocations(cloud, consumer):
    return cloud.placement.get_allocations(None, consumer)["allocations"]


def driver(cloud, host):
    return next(s.manager.driver for s in cloud.services
                if s.binary == "nova-compute" and s.host == host)


def action(cloud, u, body, version="2.90"):
    from tests.unit.api.conftest import call
    return call(cloud.app, f"/v2.1/servers/{u}/action", method="POST",
                body=body,
                headers={"OpenStack-API-Version": f"compute {version}"})


def image(image_id):
    """The image as the image API (local catalogue or Glance) has it."""
    return image_api.get_api().get(keel_context.get_admin_context(),
                                   image_id)


def image_gone(image_id):
    """Deleted (the local catalogue forgets it; Glance says deleted)."""
    try:
        return image(image_id)["status"] == "deleted"
    except exception.ImageNotFound:
        return True
