"""os-migrateLive of a server with a Cinder volume attached, in the
two-compute cloud against the Cinder simulator: as Nova, the destination
gets an attachment of its own in pre_live_migration (with its connector),
the BDM follows it and the source's is deleted once the guest runs there;
a failure deletes the destination's attachment and gives the BDM the
source's back."""
from keel import context as keel_context
from keel import objects
from tests.functional.api import test_live_migration as lm
from tests.functional.api import test_server_power as power
from tests.functional.api.test_live_migration import cloud  # noqa: F401
from tests.functional.api.test_volume_attachments import cinder  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call


def bdm_of(cloud, u, vol):  # noqa: F811
    with keel_context.target_cell(cloud.ctxt, power._cell(cloud)) as c:
        return objects.BlockDeviceMapping.get_by_volume_and_instance(
            c, vol, u)


def attachments(sim, vol):
    return {a["id"]: a for a in sim.attachments.values()
            if a["volume_id"] == vol}


def server_with_volume(cloud, sim):  # noqa: F811
    u = lm.server(cloud)
    vol = sim.add_volume(lm.PROJECT)["id"]
    resp = call(cloud.app, f"/v2.1/servers/{u}/os-volume_attachments",
                method="POST", body={"volumeAttachment": {"volumeId": vol}},
                headers={"OpenStack-API-Version": "compute 2.89"})
    assert resp.status_int == 200, resp.text
    assert wait_for(lambda: sim.volumes[vol]["status"] == "in-use")
    assert wait_for(lambda: bdm_of(cloud, u, vol).connection_info)
    [source] = attachments(sim, vol).values()
    assert source["status"] == "attached"
    assert source["connector"]["host"] == cloud.hosts[0]
    return u, vol, source["id"]


def attachment_shown(cloud, u, vol):  # noqa: F811
    return call(cloud.app,
                f"/v2.1/servers/{u}/os-volume_attachments/{vol}",
                headers={"OpenStack-API-Version": "compute 2.89"}
                ).json["volumeAttachment"]["attachment_id"]


def test_volume_attachment_moves_to_the_destination(cloud, cinder):  # noqa: F811
    u, vol, source_id = server_with_volume(cloud, cinder)
    src, dst = cloud.hosts
    assert lm.live(cloud, u, dst).status_int == 202
    assert lm.settled(cloud, u).host == dst
    assert wait_for(lambda: lm.migration_of(cloud, u).status == "completed")
    [(new_id, new)] = attachments(cinder, vol).items()
    assert new_id != source_id
    assert (new["status"], new["connector"]["host"]) == ("attached", dst)
    assert new["connector"]["mountpoint"] == "/dev/vdb"
    volume = cinder.volumes[vol]
    assert volume["status"] == "in-use"
    assert [(a["attachment_id"], a["host_name"])
            for a in volume["attachments"]] == [(new_id, dst)]
    bdm = bdm_of(cloud, u, vol)
    assert bdm.attachment_id == new_id
    assert '"initiator": "fake"' in bdm.connection_info
    assert attachment_shown(cloud, u, vol) == new_id
    # A detach now goes to the destination and ends its attachment.
    resp = call(cloud.app,
                f"/v2.1/servers/{u}/os-volume_attachments/{vol}",
                method="DELETE",
                headers={"OpenStack-API-Version": "compute 2.89"})
    assert resp.status_int == 202, resp.text
    assert wait_for(lambda: cinder.volumes[vol]["status"] == "available")
    assert attachments(cinder, vol) == {}


def _assert_restored(cloud, sim, u, vol, source_id):  # noqa: F811
    src = cloud.hosts[0]
    inst = lm.settled(cloud, u)
    assert inst.host == src
    assert wait_for(lambda: list(attachments(sim, vol)) == [source_id])
    assert attachments(sim, vol)[source_id]["connector"]["host"] == src
    assert sim.volumes[vol]["status"] == "in-use"
    assert bdm_of(cloud, u, vol).attachment_id == source_id
    assert attachment_shown(cloud, u, vol) == source_id
    assert lm.allocated_hosts(cloud, u) == [src]


def test_driver_failure_restores_the_source_attachment(cloud, cinder):  # noqa: F811
    u, vol, source_id = server_with_volume(cloud, cinder)
    src, dst = cloud.hosts
    created = []
    original = cinder._attachments_post

    def spy(project, rid, action, body):
        status, out = original(project, rid, action, body)
        if not rid:
            created.append(out["attachment"]["id"])
        return status, out
    cinder._attachments_post = spy
    driver = lm.compute(cloud, src).driver
    driver.inject_failure("live_migration", instance_uuid=u)
    try:
        assert lm.live(cloud, u, dst).status_int == 202
        assert wait_for(lambda: lm.migration_of(cloud, u).status == "error")
    finally:
        driver.clear_failures("live_migration")
        cinder._attachments_post = original
    # The destination did make one; the rollback deleted it.
    assert len(created) == 1 and created[0] != source_id
    _assert_restored(cloud, cinder, u, vol, source_id)


def test_destination_failure_undoes_its_attachment(cloud, cinder):  # noqa: F811
    u, vol, source_id = server_with_volume(cloud, cinder)
    src, dst = cloud.hosts
    driver = lm.compute(cloud, dst).driver

    def broken(context, instance, block_device_info, *args):
        # The new attachment is already the BDM's when the driver runs.
        [entry] = block_device_info["block_device_mapping"]
        assert entry["attachment_id"] != source_id
        raise RuntimeError("no room for the guest")
    driver.pre_live_migration = broken
    try:
        assert lm.live(cloud, u, dst).status_int == 202
        assert wait_for(lambda: lm.migration_of(cloud, u).status == "error")
    finally:
        del driver.pre_live_migration
    _assert_restored(cloud, cinder, u, vol, source_id)
