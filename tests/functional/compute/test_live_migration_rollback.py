"""The rollback of a live migration of a server with a Cinder volume, in
the two-compute cloud: as Nova's _rollback_live_migration, the source asks
the destination (``remove_volume_connection``) to disconnect each volume
its pre_live_migration connected -- with the destination's connection
info, before the BDM gets the source's back -- and the instance action
records the destination's ``compute_remove_volume_connection`` event. A
failed pre_live_migration has undone its own part: no such call then."""
from tests.functional.api import test_live_migration as lm
from tests.functional.api import test_live_migration_volumes as lmv
from tests.functional.api import test_server_power as power
from tests.functional.api.test_live_migration import cloud  # noqa: F401
from tests.functional.api.test_volume_attachments import cinder  # noqa: F401
from tests.functional.fixtures_services import wait_for


def _spy_detach(driver):
    calls = []
    original = driver.detach_volume

    def spy(context, connection_info, instance, mountpoint, **kw):
        calls.append((instance.uuid, mountpoint, connection_info))
        return original(context, connection_info, instance, mountpoint,
                        **kw)
    driver.detach_volume = spy
    return calls


def _events(cloud, u):  # noqa: F811
    [(action, events)] = [a for a in power.actions(cloud, u)
                          if a[0] == "live-migration"]
    return dict(events)


def _migrate_failing(cloud, u, dst, failing_driver, step, spied_driver):
    """Live-migrate ``u`` to ``dst`` with ``step`` failing in
    ``failing_driver``; wait for the migration's error; undo the spy."""
    failing_driver.inject_failure(step, instance_uuid=u)
    try:
        assert lm.live(cloud, u, dst).status_int == 202
        assert wait_for(lambda: lm.migration_of(cloud, u).status == "error")
    finally:
        failing_driver.clear_failures(step)
        del spied_driver.detach_volume


def test_rollback_disconnects_the_volume_on_the_destination(
        cloud, cinder):  # noqa: F811
    u, vol, source_id = lmv.server_with_volume(cloud, cinder)
    src, dst = cloud.hosts
    source_driver = lm.compute(cloud, src).driver
    dest_driver = lm.compute(cloud, dst).driver
    calls = _spy_detach(dest_driver)
    _migrate_failing(cloud, u, dst, source_driver, "live_migration",
                     dest_driver)
    lmv._assert_restored(cloud, cinder, u, vol, source_id)
    # The destination let go of the volume it had connected.
    assert dest_driver.volume_connections(u) == {}
    [(uuid, mountpoint, info)] = calls
    assert (uuid, mountpoint) == (u, "/dev/vdb")
    assert info["driver_volume_type"] == "iscsi"
    assert _events(cloud, u)["compute_remove_volume_connection"] == \
        "Success"
    # The guest and its volume stay on the source.
    assert "/dev/vdb" in source_driver.volume_connections(u)


def test_failed_pre_live_migration_is_not_asked_again(
        cloud, cinder):  # noqa: F811
    u, vol, source_id = lmv.server_with_volume(cloud, cinder)
    src, dst = cloud.hosts
    dest_driver = lm.compute(cloud, dst).driver
    calls = _spy_detach(dest_driver)
    _migrate_failing(cloud, u, dst, dest_driver, "pre_live_migration",
                     dest_driver)
    lmv._assert_restored(cloud, cinder, u, vol, source_id)
    assert calls == []
    assert "compute_remove_volume_connection" not in _events(cloud, u)


def test_task_ends_only_once_the_allocations_are_back(
        cloud, monkeypatch):  # noqa: F811
    """Nova's order: the instance leaves ``migrating`` only after the
    allocations went back to it and the destination was told to clean up;
    a user could otherwise start a new move on allocations still held by
    the failed migration."""
    from keel.compute.ops import move_allocs
    u = lm.server(cloud)
    src, dst = cloud.hosts
    seen = []
    give_back = move_allocs.give_back

    def spy(client, context, instance_uuid, migration_uuid):
        seen.append(power.read(cloud, instance_uuid).task_state)
        return give_back(client, context, instance_uuid, migration_uuid)
    monkeypatch.setattr(move_allocs, "give_back", spy)
    source_driver = lm.compute(cloud, src).driver
    source_driver.inject_failure("live_migration", instance_uuid=u)
    try:
        assert lm.live(cloud, u, dst).status_int == 202
        assert wait_for(lambda: lm.migration_of(cloud, u).status == "error")
    finally:
        source_driver.clear_failures("live_migration")
    assert seen == ["migrating"]
    inst = power.read(cloud, u)
    assert (inst.task_state, inst.host) == (None, src)
    assert lm.allocated_hosts(cloud, u) == [src]
