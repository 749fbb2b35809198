"""resize / migrate, confirmResize and revertResize end to end in one cell:
openstacksdk -> API -> conductor (scheduler, Placement) -> destination and
source computes (fake virt driver), with the allocations split between
the instance (destination) and the migration (source) while in
VERIFY_RESIZE."""
import pytest

from keel.conf import CONF
from keel import exception
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from keel.virt import power_state
from tests.functional.api import moves_helpers as mh
from tests.functional.api.moves_helpers import sdk  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    cloud, launcher = mh.start(tmp_path_factory.mktemp("resize"), count=2)
    yield cloud
    mh.stop(launcher)


def _node(cloud, host):
    return cloud.nodes(host)[0].uuid


def _resources(allocs, node):
    return allocs[node]["resources"]


def _migration(cloud, u, status="finished"):
    return objects.Migration.get_by_instance_and_status(
        mh.cell_ctxt(cloud), u, status)


def _verify_resize(sdk, server):  # noqa: F811
    return sdk.compute.wait_for_server(server, status="VERIFY_RESIZE",
                                       interval=0.1, wait=30)


def test_resize_then_confirm_moves_the_allocations(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    source = server.compute_host
    sdk.compute.resize_server(server, "mv.big")
    server = _verify_resize(sdk, server)
    dest = server.compute_host
    assert dest != source
    inst = mh.read(cloud, server.id)
    assert (inst.flavor.flavorid, inst.vcpus, inst.memory_mb) == \
        ("mv.big", 2, 1024)
    assert inst.old_flavor.flavorid == "mv.small"
    migration = _migration(cloud, server.id)
    assert (migration.source_compute, migration.dest_compute,
            migration.migration_type) == (source, dest, "resize")
    # Instance holds the destination with the new flavor, the migration
    # holds the source with the old one.
    mine = mh.allocations(cloud, server.id)
    assert list(mine) == [_node(cloud, dest)]
    assert _resources(mine, _node(cloud, dest))["VCPU"] == 2
    held = mh.allocations(cloud, migration.uuid)
    assert list(held) == [_node(cloud, source)]
    assert _resources(held, _node(cloud, source))["MEMORY_MB"] == 512
    assert server.id in mh.driver(cloud, dest)._instances

    sdk.compute.confirm_server_resize(server)
    server = sdk.compute.wait_for_server(server, status="ACTIVE",
                                         interval=0.1, wait=30)
    assert wait_for(lambda: mh.allocations(cloud, migration.uuid) == {})
    assert list(mh.allocations(cloud, server.id)) == [_node(cloud, dest)]
    assert _migration(cloud, server.id, "confirmed")
    assert server.id not in mh.driver(cloud, source)._instances
    # The scheduler's per-host instance view followed the move.
    views = cloud.scheduler.host_instances
    assert wait_for(lambda: server.id in views.instances(dest) and
                    server.id not in views.instances(source))
    inst = mh.idle(cloud, server.id)
    assert inst.old_flavor is None and inst.host == dest
    assert objects.RequestSpec.get_by_instance_uuid(
        cloud.ctxt, server.id).flavor.flavorid == "mv.big"
    names = [a for a, _ in mh.actions(cloud, server.id)]
    assert names == ["create", "resize", "confirmResize"]
    resize_events = dict(mh.actions(cloud, server.id))["resize"]
    assert resize_events == [("compute_finish_resize", "Success"),
                             ("compute_prep_resize", "Success"),
                             ("compute_resize_instance", "Success")]


def test_revert_goes_back_to_the_source_with_the_old_flavor(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    source = server.compute_host
    sdk.compute.resize_server(server, "mv.big")
    server = _verify_resize(sdk, server)
    migration = _migration(cloud, server.id)
    sdk.compute.revert_server_resize(server)
    server = sdk.compute.wait_for_server(server, status="ACTIVE",
                                         interval=0.1, wait=30)
    inst = mh.idle(cloud, server.id)
    assert inst.host == source and inst.flavor.flavorid == "mv.small"
    assert (inst.vcpus, inst.memory_mb) == (1, 512)
    mine = mh.allocations(cloud, server.id)
    assert list(mine) == [_node(cloud, source)]
    assert _resources(mine, _node(cloud, source))["VCPU"] == 1
    assert mh.allocations(cloud, migration.uuid) == {}
    assert server.id not in mh.driver(cloud, migration.dest_compute) \
        ._instances
    assert _migration(cloud, server.id, "reverted")
    assert objects.RequestSpec.get_by_instance_uuid(
        cloud.ctxt, server.id).flavor.flavorid == "mv.small"


def test_cold_migrate_to_a_named_host(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    other = next(h for h in cloud.hosts if h != server.compute_host)
    resp = mh.action(cloud, server.id, {"migrate": {"host": other}},
                     version="2.56")
    assert resp.status_int == 202, resp.text
    server = _verify_resize(sdk, server)
    assert server.compute_host == other
    migration = _migration(cloud, server.id)
    assert migration.migration_type == "migration"
    resp = mh.action(cloud, server.id, {"confirmResize": None})
    assert resp.status_int == 204
    sdk.compute.wait_for_server(server, status="ACTIVE", interval=0.1,
                                wait=30)
    assert wait_for(lambda: mh.allocations(cloud, migration.uuid) == {})


def test_wrong_states_and_bad_requests(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    resp = mh.action(cloud, server.id, {"confirmResize": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'confirmResize' instance {server.id} while it is in "
        f"vm_state active")
    resp = mh.action(cloud, server.id, {"revertResize": None})
    assert resp.status_int == 409
    resp = mh.action(cloud, server.id, {"resize": {"flavorRef": "mv.small"}})
    assert resp.status_int == 400
    assert "Resize requires a flavor change." in resp.text
    resp = mh.action(cloud, server.id, {"resize": {"flavorRef": "nope"}})
    assert resp.status_int == 400
    resp = mh.action(cloud, server.id,
                     {"migrate": {"host": server.compute_host}},
                     version="2.56")
    assert resp.status_int == 400
    resp = mh.action(cloud, server.id, {"migrate": {"host": "x"}},
                     version="2.55")
    assert resp.status_int == 400
    resp = mh.action(cloud, server.id, {"resize": {"flavorRef": "mv.greedy"}})
    assert resp.status_int == 403
    assert "Quota exceeded" in resp.text
    inst = mh.read(cloud, server.id)
    inst.task_state = "pausing"
    inst.save()
    resp = mh.action(cloud, server.id, {"resize": {"flavorRef": "mv.big"}})
    assert resp.status_int == 409
    assert "task_state pausing" in resp.text
    inst.task_state = None
    inst.save()
    assert [a for a, _ in mh.actions(cloud, server.id)] == ["create"]


def test_no_valid_host_puts_everything_back(cloud, sdk,  # noqa: F811
                                            caplog):
    server = mh.boot(sdk)
    before = mh.allocations(cloud, server.id)
    sdk.compute.resize_server(server, "mv.huge")
    inst = wait_for(lambda: (lambda i: i if i.task_state is None and
                             i.vm_state == "active" else None)(
        mh.read(cloud, server.id)))
    assert inst and inst.flavor.flavorid == "mv.small"
    assert inst.host == server.compute_host
    after = mh.allocations(cloud, server.id)
    assert {rp: a["resources"] for rp, a in after.items()} == \
        {rp: a["resources"] for rp, a in before.items()}
    migration = _migration(cloud, server.id, "error")
    assert mh.allocations(cloud, migration.uuid) == {}
    faults = objects.InstanceFaultList.get_by_instance_uuids(
        mh.cell_ctxt(cloud), [server.id])
    assert faults[0].message.startswith("No valid host was found")
    # An expected failure of the conductor's cast (as Nova's
    # expected_exceptions): no error with a traceback in its log.
    assert not [r for r in caplog.records if r.levelname == "ERROR" and
                "message handling" in r.getMessage()]


def test_resize_confirm_window_confirms_for_the_user(
        cloud, sdk, notification_capture):  # noqa: F811
    server = mh.boot(sdk)
    sdk.compute.resize_server(server, "mv.big")
    server = _verify_resize(sdk, server)
    migration = _migration(cloud, server.id)
    notification_capture.wait_for("instance.resize_finish.end")
    for event in ("instance.resize_prep.end", "instance.resize.end",
                  "instance.exists"):
        assert event in notification_capture.event_types()
    legacy = notification_capture.event_types(versioned=False)
    for event in ("compute.instance.exists",
                  "compute.instance.resize.prep.start",
                  "compute.instance.finish_resize.end"):
        assert event in legacy
    dest = next(s.manager for s in cloud.services
                if s.binary == "nova-compute" and s.host == server.compute_host)
    CONF.set_override("resize_confirm_window", 1)
    try:
        assert wait_for(lambda: dest._poll_unconfirmed_resizes(
            mh.cell_ctxt(cloud)) == 1, timeout=5)
    finally:
        CONF.clear_override("resize_confirm_window")
    sdk.compute.wait_for_server(server, status="ACTIVE", interval=0.1,
                                wait=30)
    assert wait_for(lambda: mh.allocations(cloud, migration.uuid) == {})
    notification_capture.wait_for("instance.resize_confirm.end")


def test_delete_while_verify_resize_frees_both_hosts(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    sdk.compute.resize_server(server, "mv.big")
    server = _verify_resize(sdk, server)
    migration = _migration(cloud, server.id)
    sdk.compute.delete_server(server)
    sdk.compute.wait_for_delete(server, interval=0.1, wait=30)
    assert wait_for(lambda: mh.allocations(cloud, server.id) == {} and
                    mh.allocations(cloud, migration.uuid) == {})


def test_driver_failure_on_the_source_is_error_with_a_fault(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    mh.driver(cloud, server.compute_host).inject_failure(
        "migrate_disk_and_power_off", times=1, instance_uuid=server.id)
    sdk.compute.resize_server(server, "mv.big")
    sdk.compute.wait_for_server(server, status="ERROR", failures=[],
                                interval=0.1, wait=30)
    inst = mh.idle(cloud, server.id)
    assert inst.vm_state == "error" and inst.host == server.compute_host
    migration = _migration(cloud, server.id, "error")
    assert migration.source_compute == server.compute_host
    # The source's resources are the instance's again; no claim elsewhere.
    # (handed back just after the instance went to ERROR: wait for it)
    assert wait_for(lambda: list(mh.allocations(cloud, server.id)) ==
                    [_node(cloud, server.compute_host)])
    assert mh.allocations(cloud, migration.uuid) == {}
    assert wait_for(lambda: ("resize", [
        ("compute_prep_resize", "Success"),
        ("compute_resize_instance", "Error")]) in mh.actions(cloud, server.id))
    faults = wait_for(lambda: objects.InstanceFaultList
                      .get_by_instance_uuids(mh.cell_ctxt(cloud),
                                             [server.id]).objects)
    assert "Injected failure" in faults[0].message


def test_stopped_server_stays_off_through_resize_and_revert(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    sdk.compute.stop_server(server)
    sdk.compute.wait_for_server(server, status="SHUTOFF", interval=0.1,
                                wait=30)
    sdk.compute.resize_server(server, "mv.big")
    server = _verify_resize(sdk, server)
    dest = server.compute_host
    assert mh.driver(cloud, dest)._instances[server.id].state == \
        power_state.SHUTDOWN
    sdk.compute.revert_server_resize(server)
    server = sdk.compute.wait_for_server(server, status="SHUTOFF",
                                         interval=0.1, wait=30)
    inst = mh.idle(cloud, server.id)
    assert inst.vm_state == "stopped" and inst.host != dest
    assert inst.power_state == power_state.SHUTDOWN


def test_members_resize_but_only_admins_migrate(cloud, sdk):  # noqa: F811
    from keel.api import deploy
    from tests.unit.api.conftest import call
    server = mh.boot(sdk)
    inst = mh.read(cloud, server.id)
    token = f"{inst.user_id}:{inst.project_id}"
    CONF.set_override("development_roles", ["member", "reader"], group="api")
    try:
        app = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")

    def member(body):
        return call(app, f"/v2.1/servers/{server.id}/action", method="POST",
                    body=body, headers={"X-Auth-Token": token})
    resp = member({"migrate": None})
    assert resp.status_int == 403
    assert "os_compute_api:os-migrate-server:migrate" in resp.text
    assert member({"resize": {"flavorRef": "mv.big"}}).status_int == 202
    _verify_resize(sdk, server)
    assert member({"confirmResize": None}).status_int == 204
    sdk.compute.wait_for_server(server, status="ACTIVE", interval=0.1,
                                wait=30)


def test_start_up_rolls_back_a_resize_the_source_was_migrating(
        cloud, sdk):  # noqa: F811
    """The source compute died in migrate_disk_and_power_off: at its next
    start the guest runs again on it, with its allocations back."""
    from keel.compute.ops import move_allocs
    from keel.compute.ops import recovery
    server = mh.boot(sdk)
    source = server.compute_host
    mgr = next(s.manager for s in cloud.services
               if s.binary == "nova-compute" and s.host == source)
    cctxt = mh.cell_ctxt(cloud)
    inst = mh.read(cloud, server.id)
    migration = objects.Migration(
        cctxt, instance_uuid=server.id, status="migrating",
        source_compute=source, source_node=inst.node,
        migration_type="resize", old_instance_type_id=inst.flavor.id,
        new_instance_type_id=inst.flavor.id)
    migration.create()
    move_allocs.move_allocations(mgr.placement_client, cloud.ctxt,
                                 server.id, migration.uuid)
    inst.task_state = "resize_migrating"
    inst.system_metadata["old_vm_state"] = "active"
    inst.save()
    mgr.driver.power_off(inst)

    recovery.init_instances(mgr, cctxt)
    inst = mh.idle(cloud, server.id)
    assert inst.vm_state == "active"
    assert inst.power_state == power_state.RUNNING
    assert list(mh.allocations(cloud, server.id)) == [_node(cloud, source)]
    assert mh.allocations(cloud, migration.uuid) == {}
    assert objects.Migration.get_by_uuid(cctxt, migration.uuid).status == \
        "error"


def test_failed_prep_is_rescheduled_to_the_alternate(
        cloud, sdk, monkeypatch):  # noqa: F811
    """The destination refuses the move: the conductor claims the
    scheduler's alternate (with resizes to the same host allowed, the
    source itself) and the resize completes there."""
    from keel.compute.ops import resize_dest
    real_prep = resize_dest._prep
    refused = []

    def prep_once(mgr, *args, **kwargs):
        if not refused:
            refused.append(mgr.host)
            raise exception.ComputeResourcesUnavailable(reason="test")
        return real_prep(mgr, *args, **kwargs)
    monkeypatch.setattr(resize_dest, "_prep", prep_once)
    CONF.set_override("allow_resize_to_same_host", True)
    try:
        server = mh.boot(sdk)
        sdk.compute.resize_server(server, "mv.big")
        server = _verify_resize(sdk, server)
    finally:
        CONF.clear_override("allow_resize_to_same_host")
    dest = server.compute_host
    assert refused and dest != refused[0]
    failed = _migration(cloud, server.id, "error")
    assert failed.dest_compute is None or failed.dest_compute == refused[0]
    assert mh.allocations(cloud, failed.uuid) == {}
    finished = _migration(cloud, server.id)
    mine = mh.allocations(cloud, server.id)
    assert _resources(mine, _node(cloud, dest))["VCPU"] == 2
    assert list(mh.allocations(cloud, finished.uuid)) == \
        [_node(cloud, finished.source_compute)]
    faults = objects.InstanceFaultList.get_by_instance_uuids(
        mh.cell_ctxt(cloud), [server.id])
    assert "test" in faults[0].message


def test_project_manager_migrates_but_may_not_name_the_host(
        cloud, sdk):  # noqa: F811
    from keel.api import deploy
    from tests.unit.api.conftest import call
    server = mh.boot(sdk)
    inst = mh.read(cloud, server.id)
    other = next(h for h in cloud.hosts if h != server.compute_host)
    CONF.set_override("development_roles", ["manager", "member", "reader"],
                      group="api")
    try:
        app = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")

    def manager(body):
        return call(app, f"/v2.1/servers/{server.id}/action", method="POST",
                    body=body, headers={
                        "X-Auth-Token": f"{inst.user_id}:{inst.project_id}",
                        "OpenStack-API-Version": "compute 2.56"})
    resp = manager({"migrate": {"host": other}})
    assert resp.status_int == 403
    assert "os_compute_api:os-migrate-server:migrate:host" in resp.text
    assert manager({"migrate": None}).status_int == 202
    _verify_resize(sdk, server)
    assert manager({"confirmResize": None}).status_int == 204
