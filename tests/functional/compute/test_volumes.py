"""Volume block devices of a build and a delete, through the Cinder
simulator (keel's Cinder client, 3.44 attachment flow)."""
import pytest

from keel.compute import rpcapi as compute_rpcapi
from keel.conf import CONF
from keel import objects
from tests.fixtures import cinder_sim
from tests.functional.compute import helpers as h
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import wait_for


@pytest.fixture
def sim():
    CONF.set_override("block_device_allocate_retries_interval", 0)
    with cinder_sim.configured(CONF) as server:
        yield server
    CONF.clear_override("block_device_allocate_retries_interval")


def _bdm(ctxt, inst, **kw):
    values = dict(instance_uuid=inst.uuid, destination_type="volume",
                  boot_index=0, device_name="/dev/vda",
                  delete_on_termination=True)
    values.update(kw)
    bdm = objects.BlockDeviceMapping(ctxt, **values)
    bdm.create()
    return bdm


def _bdms(ctxt, inst):
    return objects.BlockDeviceMappingList.get_by_instance_uuid(ctxt,
                                                               inst.uuid)


def test_boot_from_volume_attaches_and_delete_cleans_up(cloud,  # noqa: F811
                                                         sim):
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    vol = sim.add_volume(h.PROJECT, size=1)
    inst = h.create_instance(cloud, ctxt)
    _bdm(ctxt, inst, source_type="volume", volume_id=vol["id"])
    blank = _bdm(ctxt, inst, source_type="blank", volume_size=2,
                 boot_index=None, device_name="/dev/vdb")
    h.build(ctxt, inst, host, bdms=_bdms(ctxt, inst))
    h.wait_state(ctxt, inst, "active")
    bdms = {b.device_name: b for b in _bdms(ctxt, inst)}
    assert sim.volumes[vol["id"]]["status"] == "in-use"
    assert bdms["/dev/vda"].attachment_id and \
        "iscsi" in bdms["/dev/vda"].connection_info
    created = bdms["/dev/vdb"].volume_id
    assert created and sim.volumes[created]["size"] == 2
    assert sim.volumes[created]["status"] == "in-use"
    assert blank.id == bdms["/dev/vdb"].id

    dctxt = h.user_ctxt()
    objects.InstanceAction.action_start(dctxt, inst.uuid, "delete",
                                        want_result=False)
    inst = h.reload(dctxt, inst, expected_attrs=["info_cache"])
    inst.task_state = "deleting"
    inst.save()
    compute_rpcapi.ComputeAPI().terminate_instance(dctxt, inst,
                                                   _bdms(ctxt, inst))
    assert wait_for(lambda: h.reload(ctxt, inst).deleted, timeout=10)
    # delete_on_termination: both volumes are gone with the server.
    assert vol["id"] not in sim.volumes and created not in sim.volumes


def test_volume_attach_failure_aborts_and_releases(cloud, sim):  # noqa: F811
    ctxt = h.user_ctxt()
    host = cloud.hosts[1]
    vol = sim.add_volume(h.PROJECT, size=1)
    inst = h.create_instance(cloud, ctxt)
    _bdm(ctxt, inst, source_type="volume", volume_id=vol["id"],
         delete_on_termination=False, boot_index=0)
    # The second volume does not exist: the first must not stay attached.
    _bdm(ctxt, inst, source_type="volume", boot_index=None,
         volume_id="0e4f7a52-8b9c-4d1e-a2f3-000000000000",
         device_name="/dev/vdb", delete_on_termination=False)
    h.build(ctxt, inst, host, bdms=_bdms(ctxt, inst))
    got = h.wait_state(ctxt, inst, "error")
    fault = objects.InstanceFault.get_latest_for_instance(ctxt, inst.uuid)
    assert "Failure prepping block device" in fault.message
    assert got.host is None
    # Not delete_on_termination: the user's volume stays, unattached.
    assert sim.volumes[vol["id"]]["attachments"] == []


def test_delete_with_bdms_read_before_the_build_made_the_volume(
        cloud, sim, monkeypatch):  # noqa: F811
    """The API read the BDMs before the build created the blank volume
    (no volume id yet): the compute reads them again and the volume goes
    with the server. BDMs that already name their attached volume (or
    none at all) are used as sent, without a read."""
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    _bdm(ctxt, inst, source_type="blank", volume_size=1)
    stale = _bdms(ctxt, inst)
    assert stale[0].volume_id is None
    h.build(ctxt, inst, host, bdms=stale)
    h.wait_state(ctxt, inst, "active")
    created = _bdms(ctxt, inst)[0].volume_id
    assert sim.volumes[created]["status"] == "in-use"

    reads = []
    real = objects.BlockDeviceMappingList.get_by_instance_uuid

    def counting(*args, **kwargs):
        reads.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(objects.BlockDeviceMappingList,
                        "get_by_instance_uuid", counting)

    def terminate(inst, bdms):
        dctxt = h.user_ctxt()
        objects.InstanceAction.action_start(dctxt, inst.uuid, "delete",
                                            want_result=False)
        inst = h.reload(dctxt, inst, expected_attrs=["info_cache"])
        inst.task_state = "deleting"
        inst.save()
        compute_rpcapi.ComputeAPI().terminate_instance(dctxt, inst, bdms)
        assert wait_for(lambda: h.reload(ctxt, inst).deleted, timeout=10)

    terminate(inst, stale)
    assert created not in sim.volumes
    assert reads == [1]
    # Current BDMs: used as sent.
    vol = sim.add_volume(h.PROJECT, size=1)
    other = h.create_instance(cloud, ctxt)
    _bdm(ctxt, other, source_type="volume", volume_id=vol["id"])
    h.build(ctxt, other, host, bdms=_bdms(ctxt, other))
    h.wait_state(ctxt, other, "active")
    current = _bdms(ctxt, other)
    reads.clear()
    terminate(other, current)
    assert vol["id"] not in sim.volumes and reads == []
