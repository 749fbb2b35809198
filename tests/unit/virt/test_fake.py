"""The fake driver: simulated hosts, guest power states, events, faults."""
import time
import types
import uuid

import pytest
from oslo_config import cfg

from keel import exception
from keel.conf import base as base_conf
from keel.conf import fake_driver as fake_conf
from keel.virt import event as virtevent
from keel.virt import fake
from keel.virt import power_state


@pytest.fixture
def conf():
    c = cfg.ConfigOpts()
    base_conf.register_opts(c)
    fake_conf.register_opts(c)
    c([], default_config_files=[])
    return c


def _inst(vcpus=1, memory_mb=512, root_gb=1):
    flavor = types.SimpleNamespace(vcpus=vcpus, memory_mb=memory_mb,
                                   root_gb=root_gb, ephemeral_gb=0)
    u = str(uuid.uuid4())
    return types.SimpleNamespace(uuid=u, name="instance-" + u[:8],
                                 flavor=flavor)


def _spawn(drv, inst, **kw):
    drv.spawn(None, inst, None, [], None, {}, **kw)


def test_resources_come_from_config_or_constructor(conf):
    conf.set_override("vcpus", 4, group="fake_driver")
    conf.set_override("memory_mb", 8192, group="fake_driver")
    conf.set_override("local_gb", 50, group="fake_driver")
    conf.set_override("hypervisor_version", "2.3", group="fake_driver")
    a = fake.FakeDriver(host="a", conf=conf)
    b = fake.FakeDriver(host="b", conf=conf, vcpus=64)
    ra = a.get_available_resource("a")
    assert (ra["vcpus"], ra["memory_mb"], ra["local_gb"]) == (4, 8192, 50)
    assert ra["hypervisor_version"] == 2003
    assert ra["hypervisor_hostname"] == "a"
    assert b.get_available_resource("b")["vcpus"] == 64
    # One node per host, with a uuid stable for the host name.
    assert a.get_available_nodes() == ["a"]
    assert a.node_uuid != b.node_uuid
    assert fake.FakeDriver(host="a", conf=conf).node_uuid == a.node_uuid
    assert a.get_nodenames_by_uuid() == {a.node_uuid: "a"}
    with pytest.raises(exception.ComputeHostNotFound):
        a.get_available_resource("b")


def test_hosts_in_one_process_are_independent(conf):
    a = fake.FakeDriver(host="a", conf=conf)
    b = fake.FakeDriver(host="b", conf=conf)
    inst = _inst(vcpus=2, memory_mb=1024, root_gb=5)
    _spawn(a, inst)
    assert a.list_instance_uuids() == [inst.uuid]
    assert b.list_instance_uuids() == []
    used = a.get_available_resource("a")
    assert (used["vcpus_used"], used["memory_mb_used"],
            used["local_gb_used"]) == (2, 1024, 5)
    assert b.get_available_resource("b")["vcpus_used"] == 0


def test_power_state_transitions_and_lifecycle_events(conf):
    drv = fake.FakeDriver(host="h", conf=conf)
    events = []
    drv.register_event_listener(events.append)
    inst = _inst()
    _spawn(drv, inst)
    assert drv.get_info(inst).state == power_state.RUNNING
    drv.pause(inst)
    assert drv.get_info(inst).state == power_state.PAUSED
    drv.unpause(inst)
    drv.suspend(None, inst)
    assert drv.get_info(inst).state == power_state.SUSPENDED
    drv.resume(None, inst, None)
    drv.power_off(inst)
    assert drv.get_info(inst).state == power_state.SHUTDOWN
    drv.power_on(None, inst, None)
    drv.reboot(None, inst, None, "HARD")
    assert drv.get_info(inst).state == power_state.RUNNING
    assert [e.transition for e in events] == [
        virtevent.EVENT_LIFECYCLE_STARTED, virtevent.EVENT_LIFECYCLE_PAUSED,
        virtevent.EVENT_LIFECYCLE_RESUMED, virtevent.EVENT_LIFECYCLE_SUSPENDED,
        virtevent.EVENT_LIFECYCLE_RESUMED, virtevent.EVENT_LIFECYCLE_STOPPED,
        virtevent.EVENT_LIFECYCLE_STARTED, virtevent.EVENT_LIFECYCLE_STARTED]
    assert all(e.uuid == inst.uuid for e in events)
    drv.destroy(None, inst, None)
    with pytest.raises(exception.InstanceNotFound):
        drv.get_info(inst)
    drv.destroy(None, inst, None)   # already gone: still fine


def test_spawn_powered_off_and_duplicates(conf):
    drv = fake.FakeDriver(host="h", conf=conf)
    inst = _inst()
    _spawn(drv, inst, power_on=False)
    assert drv.get_info(inst).state == power_state.SHUTDOWN
    with pytest.raises(exception.InstanceExists):
        _spawn(drv, inst)


def test_operations_on_unknown_instance_raise_not_found(conf):
    drv = fake.FakeDriver(host="h", conf=conf)
    ghost = _inst()
    for call in (lambda: drv.pause(ghost), lambda: drv.power_off(ghost),
                 lambda: drv.get_console_output(None, ghost),
                 lambda: drv.get_vnc_console(None, ghost)):
        with pytest.raises(exception.InstanceNotFound):
            call()


def test_failure_from_config_fails_every_call(conf):
    conf.set_override("fail_operations", ["spawn"], group="fake_driver")
    drv = fake.FakeDriver(host="h", conf=conf)
    for _ in range(2):
        with pytest.raises(fake.FakeDriverError) as err:
            _spawn(drv, _inst())
        assert "spawn" in str(err.value)
    assert drv.list_instances() == []   # a failed spawn leaves nothing


def test_injected_failure_counts_and_targets_one_instance(conf):
    drv = fake.FakeDriver(host="h", conf=conf)
    victim, bystander = _inst(), _inst()
    _spawn(drv, victim)
    _spawn(drv, bystander)
    drv.inject_failure("reboot", times=1, instance_uuid=victim.uuid)
    drv.reboot(None, bystander, None, "SOFT")          # not targeted
    with pytest.raises(fake.FakeDriverError):
        drv.reboot(None, victim, None, "SOFT")
    drv.reboot(None, victim, None, "SOFT")             # used up
    boom = exception.HypervisorUnavailable()
    drv.inject_failure("power_off", exc=boom)
    with pytest.raises(exception.HypervisorUnavailable):
        drv.power_off(victim)
    assert drv.get_info(victim).state == power_state.RUNNING
    drv.clear_failures("power_off")
    drv.power_off(victim)
    assert drv.get_info(victim).state == power_state.SHUTDOWN


def test_spawn_delay(conf):
    drv = fake.FakeDriver(host="h", conf=conf, spawn_delay=0.2)
    start = time.monotonic()
    _spawn(drv, _inst())
    assert time.monotonic() - start >= 0.2


def test_live_migration_moves_guest_between_hosts(conf):
    src = fake.FakeDriver(host="src", conf=conf)
    dst = fake.FakeDriver(host="dst", conf=conf)
    inst = _inst()
    _spawn(src, inst)
    done = []

    def post(ctx, instance, dest, block_migration, migrate_data):
        dst.post_live_migration_at_destination(ctx, instance, None)
        src.post_live_migration_at_source(ctx, instance, None)
        done.append(dest)

    src.live_migration(None, inst, "dst", post, None)
    assert done == ["dst"]
    assert src.list_instance_uuids() == [] and dst.list_instance_uuids() == [
        inst.uuid]
    # A failing migration calls the recover method instead.
    recovered = []
    dst.inject_failure("live_migration")
    dst.live_migration(None, inst, "src", post,
                       lambda *a: recovered.append(a[2]))
    assert recovered == ["src"]


def test_volumes_connected_for_an_arriving_guest(conf):
    """pre_live_migration connects the volumes to the destination host:
    the guest's arrival takes them over; without a guest, detach_volume
    disconnects them (a rollback's remove_volume_connection)."""
    dst = fake.FakeDriver(host="dst", conf=conf)
    info = {"driver_volume_type": "iscsi", "data": {"lun": 1}}
    bdi = {"block_device_mapping": [{"mount_device": "/dev/vdb",
                                     "connection_info": info}]}
    arriving, staying = _inst(), _inst()
    for inst in (arriving, staying):
        dst.pre_live_migration(None, inst, bdi, None, None, {})
        assert dst.volume_connections(inst.uuid) == {"/dev/vdb": info}
    dst.post_live_migration_at_destination(None, arriving, None)
    assert dst.volume_connections(arriving.uuid) == {"/dev/vdb": info}
    dst.detach_volume(None, info, staying, "/dev/vdb")
    assert dst.volume_connections(staying.uuid) == {}
    with pytest.raises(exception.InstanceNotFound):
        dst.detach_volume(None, info, staying, "/dev/vdb")
    dst.detach_volume(None, info, arriving, "/dev/vdb")
    assert dst.volume_connections(arriving.uuid) == {}


def test_resize_and_volumes_and_consoles(conf):
    drv = fake.FakeDriver(host="h", conf=conf)
    inst = _inst()
    _spawn(drv, inst)
    drv.migrate_disk_and_power_off(None, inst, "h2", None, None)
    assert drv.get_info(inst).state == power_state.SHUTDOWN
    inst.flavor.vcpus = 4
    drv.finish_migration(None, None, inst, "{}", None, None, True, {})
    assert drv.get_available_resource("h")["vcpus_used"] == 4
    drv.attach_volume(None, {"data": {}}, inst, "/dev/vdb")
    drv.detach_volume(None, {"data": {}}, inst, "/dev/vdb")
    drv.attach_interface(None, inst, None, {"id": "port-1"})
    drv.detach_interface(None, inst, {"id": "port-1"})
    assert inst.uuid in drv.get_console_output(None, inst)
    assert drv.get_vnc_console(None, inst).port == 6969
    assert drv.get_serial_console(None, inst).host == "127.0.0.1"
    assert "up" in drv.get_host_uptime()
