"""os-migrateLive end to end in a two-compute cloud: API -> conductor
(scheduler or forced host, allocations on the migration consumer) ->
destination checks -> source live_migration -> fake driver -> post on the
destination; and the rollback when the driver fails. Placement is the
real one: the allocations a user's quota and the hosts' capacity see are
checked after each outcome."""
import threading
import uuid

from oslo_utils import timeutils
import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel.image import api as image_api
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from keel.virt import power_state
from tests.functional.api import test_server_power as power
from tests.functional import fixtures_services as fx
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call

PROJECT, USER = "p-live", "u-live"
RESOURCES = {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live")
    CONF.set_override("path", str(tmp / "images"), "image_catalogue")
    image_api.reset()
    cloud, launcher = fx.start_cloud(tmp, count=2)
    yield cloud
    fx.stop_cloud(launcher)
    CONF.clear_override("path", "image_catalogue")
    image_api.reset()


def compute(cloud, host):  # noqa: F811
    return next(s.manager for s in cloud.services
                if s.binary == "nova-compute" and s.host == host)


def server(cloud, vm_state="active"):  # noqa: F811
    """A running instance on hosts[0] holding its allocation there, with
    the RequestSpec a boot leaves in the API database."""
    u = str(uuid.uuid4())
    host = cloud.hosts[0]
    node = cloud.nodes(host)[0]
    cell = power._cell(cloud)
    with keel_context.target_cell(cloud.ctxt, cell) as cctxt:
        inst = objects.Instance(
            cctxt, uuid=u, project_id=PROJECT, user_id=USER,
            display_name="vm", hostname="vm", flavor=power._flavor(),
            instance_type_id=1, vcpus=1, memory_mb=512, root_gb=1,
            image_ref=power.IMAGE, metadata={}, system_metadata={},
            launch_index=0, availability_zone="nova", vm_state=vm_state,
            task_state=None, host=host, power_state=power_state.RUNNING,
            node=node.hypervisor_hostname, launched_at=timeutils.utcnow(),
            info_cache=objects.InstanceInfoCache(network_info=[]))
        inst.create()
        compute(cloud, host).driver.spawn(cctxt, inst, None, [], None, {})
    objects.InstanceMapping(cloud.ctxt, instance_uuid=u, cell_mapping=cell,
                            project_id=PROJECT, user_id=USER).create()
    objects.RequestSpec.from_components(
        cloud.ctxt, u, None, power._flavor(), None, None, {}, None, None,
        project_id=PROJECT, user_id=USER).create()
    resp = cloud.placement.put_allocations(
        cloud.ctxt, u, {node.uuid: {"resources": RESOURCES}}, PROJECT, USER,
        None)
    assert resp.status_code == 204, resp.text
    return u


def live(cloud, u, host, version="2.68", **extra):  # noqa: F811
    body = {"os-migrateLive": dict(host=host, block_migration="auto",
                                   **extra)}
    return call(cloud.app, f"/v2.1/servers/{u}/action", method="POST",
                body=body,
                headers={"OpenStack-API-Version": f"compute {version}"})


def allocated_hosts(cloud, consumer):  # noqa: F811
    allocs = cloud.placement.get_allocations(cloud.ctxt,
                                             consumer)["allocations"]
    names = {cloud.nodes(h)[0].uuid: h for h in cloud.hosts}
    return sorted(names[rp] for rp in allocs)


def migration_of(cloud, u):  # noqa: F811
    with keel_context.target_cell(cloud.ctxt, power._cell(cloud)) as c:
        found = objects.MigrationList.get_by_filters(
            c, {"instance_uuid": u})
        return found[0] if found else objects.Migration(status=None)


def settled(cloud, u):  # noqa: F811
    return wait_for(lambda: (power.read(cloud, u).task_state is None and
                             power.read(cloud, u)), timeout=15)


@pytest.mark.parametrize("how", ["scheduler", "requested", "forced"])
def test_live_migration_moves_guest_and_allocations(
        cloud, how, notification_capture):  # noqa: F811
    u = server(cloud)
    src, dst = cloud.hosts
    if how == "forced":
        resp = live(cloud, u, dst, version="2.30", force=True)
    elif how == "requested":
        # The scheduler still checks the named host (2.68 has no force).
        resp = live(cloud, u, dst)
    else:
        resp = live(cloud, u, None)
    assert resp.status_int == 202, resp.text
    inst = settled(cloud, u)
    assert inst.host == dst and inst.node == cloud.nodes(dst)[0].\
        hypervisor_hostname
    assert inst.vm_state == "active" and inst.power_state == \
        power_state.RUNNING
    assert u in compute(cloud, dst).driver._instances
    assert u not in compute(cloud, src).driver._instances
    migration = migration_of(cloud, u)
    assert wait_for(lambda: migration_of(cloud, u).status == "completed")
    assert migration.migration_type == "live-migration"
    assert (migration.source_compute, migration.dest_compute) == (src, dst)
    assert wait_for(lambda: allocated_hosts(cloud, u) == [dst])
    assert allocated_hosts(cloud, migration.uuid) == []
    status = call(cloud.app, f"/v2.1/servers/{u}",
                  headers={"X-Auth-Token": "fake:admin"}).json["server"]
    assert status["OS-EXT-SRV-ATTR:host"] == dst
    assert ("live-migration", ) == tuple(
        a for a, _ in power.actions(cloud, u))
    for event in ("instance.live_migration_pre.end",
                  "instance.live_migration_post_dest.end",
                  "instance.live_migration_post.end"):
        notification_capture.wait_for(event)
    notification_capture.wait_for("compute.instance.live_migration._post.end",
                                  versioned=False)


def test_driver_failure_rolls_back(cloud):  # noqa: F811
    u = server(cloud)
    src, dst = cloud.hosts
    compute(cloud, src).driver.inject_failure("live_migration",
                                              instance_uuid=u)
    try:
        assert live(cloud, u, dst).status_int == 202
        inst = settled(cloud, u)
        assert wait_for(lambda: migration_of(cloud, u).status == "error")
    finally:
        compute(cloud, src).driver.clear_failures("live_migration")
    assert inst.host == src and inst.vm_state == "active"
    assert u in compute(cloud, src).driver._instances
    assert wait_for(lambda: u not in compute(cloud, dst).driver._instances)
    assert allocated_hosts(cloud, u) == [src]
    assert allocated_hosts(cloud, migration_of(cloud, u).uuid) == []


def test_refusals(cloud):  # noqa: F811
    u = server(cloud)
    src, dst = cloud.hosts
    bad = live(cloud, u, "no-such-host")
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"] == \
        "Compute host no-such-host could not be found."
    assert live(cloud, u, None, version="2.30",
                force=True).json["badRequest"]["message"] == \
        "Can't force to a non-provided destination"
    # force is gone at 2.68, disk_over_commit at 2.25.
    assert live(cloud, u, dst, force=True).status_int == 400
    assert live(cloud, u, dst, version="2.25",
                disk_over_commit=False).status_int == 400
    assert live(cloud, u, dst, version="2.24").status_int == 400
    stopped = server(cloud, vm_state="stopped")
    resp = live(cloud, stopped, dst)
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'os-migrateLive' instance {stopped} while it is in "
        f"vm_state stopped")
    # A forced migration to its own host fails in the conductor: the
    # instance is idle again, still where it was, with its allocation.
    assert live(cloud, u, src, version="2.30", force=True).status_int == 202
    inst = settled(cloud, u)
    assert inst.host == src
    assert wait_for(lambda: migration_of(cloud, u).status == "error")
    assert allocated_hosts(cloud, u) == [src]
    assert power.faults(cloud, u)
    # Nothing in progress to abort or complete.
    mig = migration_of(cloud, u).id
    path = f"/v2.1/servers/{u}/migrations/{mig}"
    hdr = {"OpenStack-API-Version": "compute 2.24"}
    assert call(cloud.app, path, method="DELETE",
                headers=hdr).status_int == 409
    assert call(cloud.app, path + "/action", method="POST", headers=hdr,
                body={"force_complete": None}).status_int == 409


def test_force_complete_and_abort_a_running_migration(cloud):  # noqa: F811
    u = server(cloud)
    src, dst = cloud.hosts
    driver = compute(cloud, src).driver
    release, calls = threading.Event(), []
    original = driver.live_migration

    def slow(context, instance, dest, post_method, recover_method,
             block_migration=False, migrate_data=None):
        # A migration that runs until aborted (as a busy guest's would).
        release.wait(10)
        recover_method(context, instance, dest, migrate_data)
    driver.live_migration = slow
    driver.live_migration_force_complete = \
        lambda inst: calls.append(("force_complete", inst.uuid))
    driver.live_migration_abort = \
        lambda inst: (calls.append(("abort", inst.uuid)), release.set())
    try:
        assert live(cloud, u, dst).status_int == 202
        assert wait_for(lambda: migration_of(cloud, u).status == "running")
        mig = migration_of(cloud, u).id
        path = f"/v2.1/servers/{u}/migrations/{mig}"
        hdr = {"OpenStack-API-Version": "compute 2.24"}
        listed = call(cloud.app, f"/v2.1/servers/{u}/migrations",
                      headers={"OpenStack-API-Version": "compute 2.80"})
        [shown] = listed.json["migrations"]
        assert (shown["id"], shown["status"], shown["source_compute"],
                shown["dest_compute"], shown["server_uuid"]) == (
            mig, "running", src, dst, u)
        assert shown["project_id"] == PROJECT and "uuid" in shown
        assert call(cloud.app, path, headers=hdr).json["migration"][
            "id"] == mig
        assert call(cloud.app, f"/v2.1/servers/{u}/migrations",
                    headers={"OpenStack-API-Version": "compute 2.22"}
                    ).status_int == 404
        assert call(cloud.app, path + "/action", method="POST", headers=hdr,
                    body={"force_complete": None}).status_int == 202
        assert wait_for(lambda: ("force_complete", u) in calls)
        assert call(cloud.app, f"/v2.1/servers/{u}/migrations/999",
                    method="DELETE", headers=hdr).status_int == 404
        assert call(cloud.app, path, method="DELETE",
                    headers={"OpenStack-API-Version": "compute 2.23"}
                    ).status_int == 404
        assert call(cloud.app, path, method="DELETE",
                    headers=hdr).status_int == 202
        assert wait_for(lambda: migration_of(cloud, u).status ==
                        "cancelled")
    finally:
        release.set()
        del driver.live_migration, driver.live_migration_abort, \
            driver.live_migration_force_complete
    inst = settled(cloud, u)
    assert inst.host == src and ("abort", u) in calls
    # Nothing in progress any more: the list is empty, the show a 404.
    assert call(cloud.app, f"/v2.1/servers/{u}/migrations",
                headers=hdr).json == {"migrations": []}
    gone = call(cloud.app, path, headers=hdr)
    assert gone.json["itemNotFound"]["message"] == (
        f"In-progress live migration {mig} is not found for server {u}.")
    assert wait_for(lambda: allocated_hosts(cloud, u) == [src])
    assert original is not None


def test_project_manager_may_live_migrate_but_not_pick_the_host(cloud):  # noqa: F811
    from keel.api import deploy
    u = server(cloud)
    src, dst = cloud.hosts
    CONF.set_override("development_roles", ["manager", "member", "reader"],
                      group="api")
    try:
        app = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")

    def post(host):
        return call(app, f"/v2.1/servers/{u}/action", method="POST",
                    body={"os-migrateLive": {"host": host,
                                             "block_migration": "auto"}},
                    headers={"OpenStack-API-Version": "compute 2.68",
                             "X-Auth-Token": f"{USER}:{PROJECT}"})
    denied = post(dst)
    assert denied.status_int == 403
    assert denied.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-migrate-server:"
        "migrate_live:host to be performed.")
    assert power.read(cloud, u).task_state is None
    assert post(None).status_int == 202
    assert settled(cloud, u).host == dst


def test_before_2_25_the_checks_answer_synchronously(cloud):  # noqa: F811
    u = server(cloud)
    src, dst = cloud.hosts
    driver = compute(cloud, dst).driver
    driver.inject_failure("check_can_live_migrate_destination",
                          instance_uuid=u)
    try:
        resp = call(cloud.app, f"/v2.1/servers/{u}/action", method="POST",
                    body={"os-migrateLive": {"host": dst,
                                             "block_migration": False,
                                             "disk_over_commit": False}},
                    headers={"OpenStack-API-Version": "compute 2.24"})
    finally:
        driver.clear_failures("check_can_live_migrate_destination")
    assert resp.status_int == 400, resp.text
    assert resp.json["badRequest"]["message"].startswith(
        "Migration pre-check error: ")
    inst = power.read(cloud, u)
    assert (inst.host, inst.task_state) == (src, None)
    assert migration_of(cloud, u).status == "error"
    assert allocated_hosts(cloud, u) == [src]
    # Without a failure the same call migrates.
    ok = call(cloud.app, f"/v2.1/servers/{u}/action", method="POST",
              body={"os-migrateLive": {"host": None,
                                       "block_migration": False,
                                       "disk_over_commit": False}},
              headers={"OpenStack-API-Version": "compute 2.1"})
    assert ok.status_int == 202, ok.text
    assert settled(cloud, u).host == dst
