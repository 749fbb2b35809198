"""shelve and unshelve of a server with a Cinder volume attached (the
two-compute cloud against the Cinder simulator): as Nova, the offload
swaps the host's attachment for a reservation without a connector, so
the volume stays the server's, and the unshelve connects it on the host
the scheduler chose."""
from tests.functional.api import test_live_migration as lm
from tests.functional.api import test_live_migration_volumes as lmv
from tests.functional.api import test_server_power as power
from tests.functional.api.test_live_migration import cloud  # noqa: F401
from tests.functional.api.test_volume_attachments import cinder  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call


def _action(cloud, u, body):  # noqa: F811
    return call(cloud.app, f"/v2.1/servers/{u}/action", method="POST",
                body=body, headers={"OpenStack-API-Version": "compute 2.91"})


def _state(cloud, u, vm_state):  # noqa: F811
    return wait_for(lambda: (lambda i: i if i.vm_state == vm_state and
                             i.task_state is None else None)(
        power.read(cloud, u)), timeout=30)


def test_offload_keeps_a_reservation_and_unshelve_reconnects(
        cloud, cinder):  # noqa: F811
    u, vol, source_id = lmv.server_with_volume(cloud, cinder)
    assert _action(cloud, u, {"shelve": None}).status_int == 202
    inst = _state(cloud, u, "shelved_offloaded")
    assert inst.host is None
    [(reserved_id, reserved)] = lmv.attachments(cinder, vol).items()
    assert reserved_id != source_id
    assert not reserved.get("connector")
    assert lmv.bdm_of(cloud, u, vol).attachment_id == reserved_id

    target = cloud.hosts[1]
    resp = _action(cloud, u, {"unshelve": {"host": target}})
    assert resp.status_int == 202, resp.text
    inst = _state(cloud, u, "active")
    assert inst.host == target
    [(attached_id, attached)] = lmv.attachments(cinder, vol).items()
    assert attached_id == reserved_id
    assert (attached["status"], attached["connector"]["host"]) == \
        ("attached", target)
    assert wait_for(lambda: lm.allocated_hosts(cloud, u) == [target])


def test_zone_must_hold_the_volumes_without_cross_az_attach(
        cloud, cinder):  # noqa: F811
    from keel.conf import CONF
    from keel import objects
    u, vol, _ = lmv.server_with_volume(cloud, cinder)
    assert _action(cloud, u, {"shelve": None}).status_int == 202
    _state(cloud, u, "shelved_offloaded")
    agg = objects.Aggregate(cloud.ctxt, name="vol-az2",
                            metadata={"availability_zone": "az2"})
    agg.create()
    agg.add_host(cloud.hosts[1])
    CONF.set_override("cross_az_attach", False, "cinder")
    try:
        resp = _action(cloud, u, {"unshelve": {"availability_zone": "az2"}})
        assert resp.status_int == 409
        assert resp.json["conflictingRequest"]["message"] == (
            "The availability zone between the server and its attached "
            "volumes do not match: The specified availability zone does "
            f"not match the volume {vol} attached to the server. Specified "
            "availability zone is az2. Volume is in nova..")
        resp = _action(cloud, u, {"unshelve": {"availability_zone": "nova"}})
        assert resp.status_int == 202, resp.text
        inst = _state(cloud, u, "active")
        assert inst.host == cloud.hosts[0]
    finally:
        CONF.clear_override("cross_az_attach", "cinder")
        agg.delete_host(cloud.hosts[1])
        agg.destroy()


def test_volume_backed_server_is_offloaded_without_a_snapshot(
        cloud):  # noqa: F811
    u = lm.server(cloud)
    inst = power.read(cloud, u)
    inst.image_ref = ""          # booted from a volume: no image
    inst.save()
    assert _action(cloud, u, {"shelve": None}).status_int == 202
    inst = _state(cloud, u, "shelved_offloaded")
    assert "shelved_image_id" not in inst.system_metadata
    assert inst.host is None
    assert wait_for(lambda: lm.allocated_hosts(cloud, u) == [])
    assert wait_for(lambda: ("shelve", [
        ("compute_shelve_offload_instance", "Success")]) in
        power.actions(cloud, u))
    assert _action(cloud, u, {"unshelve": None}).status_int == 202
    inst = _state(cloud, u, "active")
    assert inst.host in cloud.hosts and inst.image_ref == ""
    assert wait_for(lambda: lm.allocated_hosts(cloud, u) == [inst.host])
