"""DELETE /servers/{id} in every phase, soft delete / restore / forceDelete
and the /action dispatcher, against the one-process cloud (API, conductor,
scheduler, fake computes, real Placement) with openstacksdk as the client.

Servers are written into the databases as each phase leaves them (a
BuildRequest only, a cell0 record, an ACTIVE instance on a compute with
its allocations in Placement) so each delete path is exercised on its own.
"""
import uuid

import openstack
from oslo_utils import timeutils
import pytest

from keel.api import deploy
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from tests.functional.fixtures_services import CELL1_UUID
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call

PROJECT = "admin"   # the development mode's default project and user
USER = "admin"
V = {"OpenStack-API-Version": "compute 2.90"}
# openstacksdk without auth sends the token "notused": that is its project.
SDK_PROJECT = "notused"


def _flavor():
    return objects.Flavor(id=1, flavorid="1", name="m1.tiny", memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={}, rxtx_factor=1.0, vcpu_weight=0,
                          disabled=False, is_public=True, description=None)


def _cell(cloud, cell_uuid):  # noqa: F811
    return objects.CellMapping.get_by_uuid(cloud.ctxt, cell_uuid)


def _instance_fields(u, name, project, **kw):
    return dict(uuid=u, project_id=project, user_id=USER, display_name=name,
                hostname=name, flavor=_flavor(), instance_type_id=1, vcpus=1,
                memory_mb=512, root_gb=1, image_ref=str(uuid.uuid4()),
                metadata={}, system_metadata={}, launch_index=0,
                availability_zone="nova", **kw)


def server(cloud, cell_uuid=CELL1_UUID, host=None, vm_state="active",  # noqa: F811
           task_state=None, launched=True, locked=False, project=PROJECT,
           allocate=True, system_metadata=None):
    """An instance record as the boot pipeline leaves it, its mapping and
    (on a host) its allocation on the host's node provider."""
    u = str(uuid.uuid4())
    cell = _cell(cloud, cell_uuid)
    node = cloud.nodes(host)[0] if host in cloud.hosts else None
    with keel_context.target_cell(cloud.ctxt, cell) as cctxt:
        inst = objects.Instance(cctxt, **_instance_fields(
            u, f"vm-{u[:6]}", project, vm_state=vm_state,
            task_state=task_state, power_state=1 if launched else 0,
            host=host, node=node.hypervisor_hostname if node else None,
            launched_at=timeutils.utcnow() if launched else None,
            locked=locked,
            info_cache=objects.InstanceInfoCache(network_info=[])))
        inst.system_metadata = system_metadata or {}
        inst.create()
    if node is not None and launched:
        # The guest the compute would have spawned, in its fake driver.
        compute(cloud, host).driver.spawn(cctxt, inst, None, [], None, {})
    objects.InstanceMapping(cloud.ctxt, instance_uuid=u, cell_mapping=cell,
                            project_id=project, user_id=USER).create()
    if allocate and node is not None:
        resp = cloud.placement.put_allocations(
            cloud.ctxt, u, {node.uuid: {"resources": {
                "VCPU": 1, "MEMORY_MB": 512}}}, project, USER, None)
        assert resp.status_code == 204, resp.text
    return u


def compute(cloud, host):  # noqa: F811
    return next(s.manager for s in cloud.services
                if s.binary == "nova-compute" and s.host == host)


def build_request(cloud, project=PROJECT):  # noqa: F811
    """A server accepted by the API and not yet in any cell."""
    u = str(uuid.uuid4())
    inst = objects.Instance(**_instance_fields(
        u, f"bld-{u[:6]}", project, vm_state="building",
        task_state="scheduling", power_state=0, locked=False))
    objects.BuildRequest(cloud.ctxt, instance_uuid=u, project_id=project,
                         instance=inst,
                         tags=objects.TagList(objects=[])).create()
    objects.InstanceMapping(cloud.ctxt, instance_uuid=u, cell_mapping=None,
                            project_id=project, user_id=USER).create()
    return u


def read(cloud, u, cell_uuid=CELL1_UUID):  # noqa: F811
    """The instance row, deleted or not."""
    with keel_context.target_cell(cloud.ctxt, _cell(cloud, cell_uuid)) as c:
        c.read_deleted = "yes"
        return objects.Instance.get_by_uuid(c, u)


def mapping(cloud, u):  # noqa: F811
    return objects.InstanceMapping.get_by_instance_uuid(cloud.ctxt, u)


def actions(cloud, u, cell_uuid=CELL1_UUID):  # noqa: F811
    with keel_context.target_cell(cloud.ctxt, _cell(cloud, cell_uuid)) as c:
        return [a.action for a in
                objects.InstanceActionList.get_by_instance_uuid(c, u)]


def allocations(cloud, u):  # noqa: F811
    return cloud.placement.get_allocations(cloud.ctxt, u).get(
        "allocations") or {}


def in_use(cloud, project=PROJECT):  # noqa: F811
    resp = call(cloud.app, f"/v2.1/os-quota-sets/{project}/detail")
    assert resp.status_int == 200, resp.text
    return resp.json["quota_set"]["instances"]["in_use"]


def action(cloud, u, body, app=None, headers=None):  # noqa: F811
    return call(app or cloud.app, f"/v2.1/servers/{u}/action",
                method="POST", body=body, headers=headers or V)


def terminate_lands(cloud, u):  # noqa: F811
    """True once the compute service has done terminate_instance."""
    return wait_for(lambda: read(cloud, u).deleted, timeout=10)


def compute_implements(name):
    from keel.compute import manager
    return hasattr(manager.ComputeManager, name)


@pytest.fixture
def sdk(http_endpoint):  # noqa: F811
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    yield conn
    conn.close()


@pytest.fixture
def member_app(cloud):  # noqa: F811
    """The same API for a plain project member (no admin role)."""
    CONF.set_override("development_roles", ["member", "reader"], group="api")
    try:
        yield deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")


@pytest.fixture
def reclaim():
    CONF.set_override("reclaim_instance_interval", 3600)
    yield
    CONF.clear_override("reclaim_instance_interval")


# -- before a cell ------------------------------------------------------------

def test_delete_build_request_only(cloud, sdk, notification_capture):  # noqa: F811
    u = build_request(cloud)
    assert sdk.compute.get_server(u).status == "BUILD"
    sdk.compute.delete_server(u)
    # Nothing existed but a request: nothing to announce.
    assert _delete_events(notification_capture, u) == ([], [])
    with pytest.raises(Exception):
        objects.BuildRequest.get_by_instance_uuid(cloud.ctxt, u)
    assert mapping(cloud, u).queued_for_delete is True
    assert call(cloud.app, f"/v2.1/servers/{u}").status_int == 404
    # Nothing reached a cell: no record, no action.
    with pytest.raises(Exception):
        read(cloud, u)


def test_delete_just_created_unclaimed_instance(cloud, sdk):  # noqa: F811
    # The conductor has created the record (no BuildRequest any more) but
    # no compute has claimed it: the API destroys the record itself.
    u = server(cloud, vm_state="building", task_state="scheduling",
               launched=False)
    sdk.compute.delete_server(u)
    inst = read(cloud, u)
    assert inst.deleted
    assert mapping(cloud, u).queued_for_delete is True
    assert call(cloud.app, f"/v2.1/servers/{u}").status_int == 404


def test_delete_build_request_consumed_by_the_conductor(cloud):  # noqa: F811
    # The API read the server as a BuildRequest, the conductor then created
    # it in the cell and removed the BuildRequest: the delete re-reads the
    # instance in its cell and goes on from there.
    from keel.compute_api import server_delete as delete_api
    from keel.compute_api import servers as servers_api
    u = build_request(cloud)
    located = servers_api.get(cloud.ctxt, u)
    assert located.build_request is not None
    objects.BuildRequest.get_by_instance_uuid(cloud.ctxt, u).destroy()
    cell = _cell(cloud, CELL1_UUID)
    with keel_context.target_cell(cloud.ctxt, cell) as cctxt:
        objects.Instance(cctxt, **_instance_fields(
            u, "raced", PROJECT, vm_state="building",
            task_state="scheduling", power_state=0, locked=False)).create()
    im = mapping(cloud, u)
    im.cell_mapping = cell
    im.save()
    delete_api.delete(cloud.ctxt, located)
    assert read(cloud, u).deleted
    assert mapping(cloud, u).queued_for_delete is True


# -- cell0 and local delete ---------------------------------------------------

def _delete_events(capture, u, kind="delete"):
    legacy = [n["event_type"] for n in capture.legacy
              if n["payload"].get("instance_id") == u]
    versioned = [n["event_type"] for n in capture.versioned
                 if n["payload"]["nova_object.data"].get("uuid") == u]
    return legacy, versioned


def test_delete_server_in_cell0(cloud, sdk, notification_capture):  # noqa: F811
    u = server(cloud, objects.CellMapping.CELL0_UUID, vm_state="error",
               launched=False)
    assert sdk.compute.get_server(u).status == "ERROR"
    sdk.compute.delete_server(u)
    legacy, versioned = _delete_events(notification_capture, u)
    assert legacy == ["compute.instance.delete.start",
                      "compute.instance.delete.end"]
    assert versioned == ["instance.delete.start", "instance.delete.end"]
    end = notification_capture.wait_for("instance.delete.end")
    assert end["publisher_id"].startswith("nova-api:")
    assert end["payload"]["nova_object.data"]["state"] == "deleted"
    inst = read(cloud, u, objects.CellMapping.CELL0_UUID)
    assert inst.deleted and inst.vm_state == "deleted"
    assert inst.task_state is None and inst.terminated_at is not None
    assert mapping(cloud, u).queued_for_delete is True
    assert actions(cloud, u, objects.CellMapping.CELL0_UUID) == ["delete"]
    assert call(cloud.app, f"/v2.1/servers/{u}").status_int == 404


def _down_host(cloud):  # noqa: F811
    """A compute service record whose service is forced down."""
    host = f"down-{uuid.uuid4().hex[:6]}"
    objects.Service(cloud.cell_ctxt(), host=host, binary="nova-compute",
                    topic="compute", report_count=1,
                    forced_down=True).create()
    return host


def test_delete_on_a_down_host_is_local(cloud, sdk):  # noqa: F811
    host = _down_host(cloud)
    u = server(cloud, host=host)
    # An allocation against a real provider, as the scheduler made it.
    node = cloud.nodes(cloud.hosts[0])[0]
    cloud.placement.put_allocations(
        cloud.ctxt, u, {node.uuid: {"resources": {"VCPU": 1}}}, PROJECT,
        USER, None)
    assert allocations(cloud, u)
    before = in_use(cloud)
    sdk.compute.delete_server(u)
    inst = read(cloud, u)
    assert inst.deleted and inst.vm_state == "deleted"
    assert allocations(cloud, u) == {}
    assert mapping(cloud, u).queued_for_delete is True
    assert actions(cloud, u) == ["delete"]
    assert in_use(cloud) == before - 1


def test_delete_on_an_unknown_host_is_local(cloud):  # noqa: F811
    u = server(cloud, host="no-such-host")
    resp = call(cloud.app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 204
    assert read(cloud, u).deleted


def test_delete_shelved_offloaded_removes_its_snapshot(cloud, tmp_path):  # noqa: F811
    from keel.image import api as image_api
    CONF.set_override("path", str(tmp_path), group="image_catalogue")
    image_api.reset()
    try:
        images = image_api.get_api()
        snap = images.create(cloud.ctxt, {
            "name": "snap", "disk_format": "qcow2",
            "container_format": "bare"})["id"]
        u = server(cloud, vm_state="shelved_offloaded",
                   system_metadata={"shelved_image_id": snap})
        resp = call(cloud.app, f"/v2.1/servers/{u}", method="DELETE")
        assert resp.status_int == 204, resp.text
        assert read(cloud, u).deleted
        with pytest.raises(exception.ImageNotFound):
            images.get(cloud.ctxt, snap)
    finally:
        CONF.clear_override("path", group="image_catalogue")
        image_api.reset()


# -- a live compute -----------------------------------------------------------

def test_delete_active_server(cloud, sdk):  # noqa: F811
    host = cloud.hosts[0]
    u = server(cloud, host=host)
    assert allocations(cloud, u)
    before = in_use(cloud)
    sdk.compute.delete_server(u)
    assert mapping(cloud, u).queued_for_delete is True
    assert "delete" in actions(cloud, u)
    if not compute_implements("terminate_instance"):
        # The API's part: task_state deleting, cast to the compute.
        inst = read(cloud, u)
        assert inst.task_state == "deleting" and not inst.deleted
        assert inst.progress == 0
        return
    assert terminate_lands(cloud, u)
    assert wait_for(lambda: allocations(cloud, u) == {}, timeout=10)
    assert in_use(cloud) == before - 1
    with pytest.raises(openstack.exceptions.NotFoundException):
        sdk.compute.get_server(u)


def _being_or_been_deleted(inst):
    """Where a delete may be when the test looks: deleting, or -- the
    compute already done -- vm_state deleted just before the row's soft
    delete (Nova's order), or soft-deleted."""
    return (inst.task_state == "deleting" or inst.vm_state == "deleted"
            or bool(inst.deleted))


def test_second_delete_while_deleting_is_a_no_op(cloud):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0], task_state="deleting")
    resp = call(cloud.app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 204
    # No second action recorded, no second cast.
    assert actions(cloud, u) == []
    assert read(cloud, u).task_state == "deleting"


def test_locked_server_is_409_for_a_member(cloud, member_app):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0], locked=True)
    resp = call(member_app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 409, resp.text
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {u} is locked"
    assert read(cloud, u).task_state is None
    # An admin may delete a locked server.
    resp = call(cloud.app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 204
    assert _being_or_been_deleted(read(cloud, u))


def test_other_projects_server_is_404(cloud, member_app):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0], project="someone-else")
    resp = call(member_app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == \
        f"Instance {u} could not be found."
    unknown = str(uuid.uuid4())
    assert call(cloud.app, f"/v2.1/servers/{unknown}",
                method="DELETE").status_int == 404
    assert read(cloud, u).task_state is None


# -- deferred delete ----------------------------------------------------------

def _state(cloud, u):  # noqa: F811
    inst = read(cloud, u)
    return inst.vm_state, inst.task_state


def test_soft_delete_restore_and_force_delete(cloud, sdk, reclaim):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0])
    before = in_use(cloud)
    sdk.compute.delete_server(u)
    inst = read(cloud, u)
    assert not inst.deleted and inst.deleted_at is not None
    assert mapping(cloud, u).queued_for_delete is True
    assert actions(cloud, u) == ["delete"]
    if not compute_implements("soft_delete_instance"):
        assert inst.task_state == "soft-deleting"
        return
    assert wait_for(lambda: _state(cloud, u) == ("soft-delete", None))
    assert sdk.compute.get_server(u).status == "SOFT_DELETED"
    # A soft-deleted server does not count against the quota...
    assert in_use(cloud) == before - 1
    # ...but keeps its resources, so that a restore finds them.
    assert allocations(cloud, u)

    resp = action(cloud, u, {"restore": None})
    assert resp.status_int == 202, resp.text
    assert resp.body == b""
    assert mapping(cloud, u).queued_for_delete is False
    assert wait_for(lambda: _state(cloud, u) == ("active", None))
    assert read(cloud, u).deleted_at is None
    assert actions(cloud, u)[0] == "restore"
    assert in_use(cloud) == before

    # Soft-deleted again, then forced away before the reclaim.
    sdk.compute.delete_server(u)
    assert wait_for(lambda: _state(cloud, u) == ("soft-delete", None))
    resp = action(cloud, u, {"forceDelete": None})
    assert resp.status_int == 202, resp.text
    assert mapping(cloud, u).queued_for_delete is True
    assert terminate_lands(cloud, u)
    assert wait_for(lambda: allocations(cloud, u) == {})
    assert in_use(cloud) == before - 1


def test_soft_delete_of_never_launched_server_deletes(cloud, reclaim):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0], vm_state="building",
               task_state="spawning", launched=False)
    resp = call(cloud.app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 204
    inst = read(cloud, u)
    # Deleted for good (no deleted_at kept for a reclaim).
    assert _being_or_been_deleted(inst)
    if compute_implements("terminate_instance"):
        assert terminate_lands(cloud, u)


def test_restore_of_hostless_server_is_done_by_the_api(cloud):  # noqa: F811
    u = server(cloud, vm_state="soft-delete")
    resp = action(cloud, u, {"restore": {}})
    assert resp.status_int == 202, resp.text
    inst = read(cloud, u)
    assert inst.vm_state == "active" and inst.task_state is None


def test_restore_refused_when_not_soft_deleted(cloud):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0])
    resp = action(cloud, u, {"restore": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Cannot 'restore' instance {u} while it is in vm_state active"


def test_restore_over_quota_is_403(cloud):  # noqa: F811
    u = server(cloud, vm_state="soft-delete")
    used = in_use(cloud)
    resp = call(cloud.app, f"/v2.1/os-quota-sets/{PROJECT}", method="PUT",
                body={"quota_set": {"instances": used}})
    assert resp.status_int == 200, resp.text
    try:
        resp = action(cloud, u, {"restore": None})
        assert resp.status_int == 403, resp.text
        assert resp.json["forbidden"]["message"] == (
            f"Quota exceeded for instances: Requested 1, but already used "
            f"{used} of {used} instances")
        assert read(cloud, u).vm_state == "soft-delete"
    finally:
        call(cloud.app, f"/v2.1/os-quota-sets/{PROJECT}", method="DELETE")


def test_locked_restore_and_force_delete_for_a_member(cloud, member_app):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0], vm_state="soft-delete",
               locked=True)
    resp = action(cloud, u, {"restore": None}, app=member_app,
                  headers={"X-Auth-Token": f"{USER}:{PROJECT}", **V})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {u} is in an invalid state for 'restore'"
    resp = action(cloud, u, {"forceDelete": None}, app=member_app,
                  headers={"X-Auth-Token": f"{USER}:{PROJECT}", **V})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {u} is locked"


# -- the action dispatcher ----------------------------------------------------

def test_unknown_and_malformed_actions(cloud):  # noqa: F811
    u = server(cloud, host=cloud.hosts[0])
    resp = action(cloud, u, {"fly": None})
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        "There is no such action: fly"
    for body in ({}, {"restore": None, "forceDelete": None}, [1]):
        resp = action(cloud, u, body)
        assert resp.status_int == 400
        assert resp.json["badRequest"]["message"] == \
            "Malformed request body"
    resp = action(cloud, str(uuid.uuid4()), {"forceDelete": None})
    assert resp.status_int == 404
    # An action of other modules, removed at 2.44: a plain 404 after.
    resp = action(cloud, u, {"addFloatingIp": {"address": "10.0.0.9"}},
                  headers={"OpenStack-API-Version": "compute 2.44"})
    assert resp.status_int == 404


# -- end to end with the client -----------------------------------------------

@pytest.fixture
def image_and_flavor(cloud, tmp_path):  # noqa: F811
    from keel.image import api as image_api
    CONF.set_override("path", str(tmp_path), group="image_catalogue")
    image_api.reset()
    image = image_api.get_api().create(cloud.ctxt, {
        "name": "cirros", "disk_format": "qcow2", "container_format": "bare",
        "status": "active", "min_disk": 0, "min_ram": 0,
        "visibility": "public"}, data=b"\0" * 1024)
    flavor_id = f"del-{uuid.uuid4().hex[:6]}"
    resp = call(cloud.app, "/v2.1/flavors", method="POST", body={
        "flavor": {"name": flavor_id, "id": flavor_id, "ram": 256,
                   "vcpus": 1, "disk": 1}})
    assert resp.status_int == 200, resp.text
    yield image["id"], flavor_id
    CONF.clear_override("path", group="image_catalogue")
    image_api.reset()


def test_boot_then_delete_with_openstacksdk(cloud, sdk,  # noqa: F811
                                            image_and_flavor):
    image_id, flavor_id = image_and_flavor
    before = in_use(cloud, SDK_PROJECT)
    created = sdk.compute.create_server(
        name="e2e", image_id=image_id, flavor_id=flavor_id, networks="none")
    srv = sdk.compute.wait_for_server(created, status="ACTIVE", wait=30,
                                      interval=0.2)
    assert allocations(cloud, srv.id)
    assert in_use(cloud, SDK_PROJECT) == before + 1
    sdk.compute.delete_server(srv)
    sdk.compute.wait_for_delete(srv, wait=30, interval=0.2)
    assert wait_for(lambda: allocations(cloud, srv.id) == {})
    assert in_use(cloud, SDK_PROJECT) == before
    assert read(cloud, srv.id).deleted
    assert mapping(cloud, srv.id).queued_for_delete is True
    assert actions(cloud, srv.id) == ["delete", "create"]


def test_openstack_server_delete_wait(cloud, http_endpoint):  # noqa: F811
    import os
    import subprocess
    import sys
    u = server(cloud, host=cloud.hosts[0])
    env = dict(os.environ, OS_AUTH_TYPE="none", OS_ENDPOINT=http_endpoint,
               OS_COMPUTE_API_VERSION="2.90")
    out = subprocess.run(
        [sys.executable, "-m", "openstackclient.shell", "server", "delete",
         "--wait", u], env=env, capture_output=True, text=True, timeout=90)
    assert out.returncode == 0, out.stderr
    assert read(cloud, u).deleted
    assert allocations(cloud, u) == {}


@pytest.fixture
def reader_app(cloud):  # noqa: F811
    CONF.set_override("development_roles", ["reader"], group="api")
    try:
        yield deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")


def test_readers_may_not_delete_or_restore(cloud, reader_app):  # noqa: F811
    u = server(cloud, vm_state="soft-delete")
    resp = call(reader_app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == \
        "Policy doesn't allow os_compute_api:servers:delete to be performed."
    for key, rule in (("restore", "restore"), ("forceDelete", "force")):
        resp = action(cloud, u, {key: None}, app=reader_app)
        assert resp.status_int == 403
        assert resp.json["forbidden"]["message"] == (
            f"Policy doesn't allow os_compute_api:os-deferred-delete:{rule} "
            f"to be performed.")
    assert read(cloud, u).vm_state == "soft-delete"


@pytest.fixture
def neutron(cloud):  # noqa: F811
    """[neutron] pointed at the Neutron simulator for one test."""
    from keel.clients import neutron as neutron_client
    from tests.fixtures import neutron_sim
    sim = neutron_sim.NeutronSim().serve()
    CONF.set_override("endpoint_override", sim.endpoint, group="neutron")
    CONF.set_override("http_retries", 0, group="neutron")
    neutron_client.reset()
    yield sim
    sim.stop()
    CONF.clear_override("endpoint_override", group="neutron")
    CONF.clear_override("http_retries", group="neutron")
    neutron_client.reset()


def test_local_delete_releases_ports_in_neutron(cloud, neutron):  # noqa: F811
    import requests
    host = _down_host(cloud)
    u = server(cloud, host=host)
    net = neutron.add_network("private", PROJECT, cidr="10.1.0.0/24")

    def port(**extra):
        resp = requests.post(f"{neutron.endpoint}/v2.0/ports", json={
            "port": dict(network_id=net["id"], tenant_id=PROJECT,
                         device_id=u, device_owner="compute:nova",
                         **{"binding:host_id": host}, **extra)}, timeout=5)
        assert resp.status_code == 201, resp.text
        return resp.json()["port"]["id"]
    ours, users = port(), port(name="brought-by-the-user")
    # The user's port is marked in the info cache as Nova marks it.
    inst = read(cloud, u)
    inst.info_cache.network_info = [{"id": users, "preserve_on_delete": True,
                                     "network": {"id": net["id"]}}]
    inst.info_cache.save()
    resp = call(cloud.app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 204, resp.text
    assert read(cloud, u).deleted
    left = {p["id"]: p for p in requests.get(
        f"{neutron.endpoint}/v2.0/ports", params={"device_id": u},
        timeout=5).json()["ports"]}
    kept = requests.get(f"{neutron.endpoint}/v2.0/ports/{users}",
                        timeout=5).json()["port"]
    assert ours not in left
    assert kept["device_id"] == "" and kept["binding:host_id"] in ("", None)


@pytest.fixture
def cinder(cloud):  # noqa: F811
    """[cinder] pointed at the Cinder simulator for one test."""
    from keel.clients import cinder as cinder_client
    from tests.fixtures import cinder_sim
    sim = cinder_sim.CinderSim().serve()
    CONF.set_override("endpoint_template", sim.endpoint, group="cinder")
    CONF.set_override("http_retries", 0, group="cinder")
    cinder_client.reset()
    yield sim
    sim.stop()
    CONF.clear_override("endpoint_template", group="cinder")
    CONF.clear_override("http_retries", group="cinder")
    cinder_client.reset()


def _attached(cinder, project, u):
    from keel.clients import cinder as cinder_client
    vol = cinder.add_volume(project)
    api = cinder_client.API()
    ctx = keel_context.RequestContext(user_id=USER, project_id=project,
                                      is_admin=True)
    att = api.attachment_create(ctx, vol["id"], u)
    return vol["id"], att["id"]


def test_local_delete_releases_volumes_in_cinder(cloud, cinder):  # noqa: F811
    u = server(cloud, host=_down_host(cloud))
    doomed, doomed_att = _attached(cinder, PROJECT, u)
    kept, kept_att = _attached(cinder, PROJECT, u)
    cctxt = cloud.cell_ctxt()
    for index, (vol, att, dot) in enumerate(((doomed, doomed_att, True),
                                             (kept, kept_att, False))):
        objects.BlockDeviceMapping(
            cctxt, instance_uuid=u, source_type="volume",
            destination_type="volume", boot_index=index or None,
            device_name=f"/dev/vd{'ab'[index]}", volume_id=vol,
            attachment_id=att, delete_on_termination=dot).create()
    resp = call(cloud.app, f"/v2.1/servers/{u}", method="DELETE")
    assert resp.status_int == 204, resp.text
    assert doomed not in cinder.volumes
    assert cinder.volumes[kept]["status"] == "available"
    assert cinder.attachments == {}
    with keel_context.target_cell(cloud.ctxt, _cell(cloud, CELL1_UUID)) as c:
        assert list(objects.BlockDeviceMappingList.get_by_instance_uuid(
            c, u)) == []
