"""The conductor's safety nets (keel/conductor/tasks/safety.py) on the
functional cloud: each net run by two "conductors" at once acts once."""
import datetime
import threading

import pytest
import sqlalchemy as sa

from keel.conductor import rpcapi as conductor_rpcapi
from keel.conductor.tasks import safety
from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session as db_session
from keel import objects
from tests.functional.boot import helpers
from tests.functional.boot.conftest import allocations
from tests.functional.boot.conftest import instance
from tests.functional.boot.conftest import settled
from tests.functional.fixtures_services import CELL1_UUID
from tests.functional.fixtures_services import wait_for


@pytest.fixture
def report(cloud):
    from keel.clients import report
    return report.ReportClient()


@pytest.fixture
def short_timeout():
    CONF.set_override("instance_build_timeout", 30)
    # Re-drives wait at least twice the RPC timeout (15 s here).
    CONF.set_override("rpc_response_timeout", 5)
    yield 30
    CONF.clear_override("instance_build_timeout")
    CONF.clear_override("rpc_response_timeout")


def _age_build_request(ctxt, uuid, seconds, redriven_ago=None):
    now = datetime.datetime.utcnow()
    then = now - datetime.timedelta(seconds=seconds)
    stamp = None if redriven_ago is None else \
        now - datetime.timedelta(seconds=redriven_ago)
    t = api_models.BuildRequest
    with db_session.api_writer(ctxt) as s:
        s.execute(sa.update(t).where(t.instance_uuid == uuid)
                  .values(created_at=then, updated_at=stamp))


def _twice(fn):
    """Run ``fn`` in two threads at once (two conductors' periodics)."""
    results, barrier = [], threading.Barrier(2)

    def run():
        barrier.wait()
        results.append(fn())
    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_lost_build_request_is_redriven_once(cloud, ctxt, report,
                                             short_timeout):
    # Written as POST /servers does, but the cast never happened.
    (boot,), _ = helpers.boot_request(ctxt)
    admin = keel_context.get_admin_context()
    task_api = conductor_rpcapi.ComputeTaskAPI()
    # Young: left alone (its cast may be queued behind others).
    assert safety.redrive_lost_builds(admin, task_api, report, "c") == []
    _age_build_request(admin, boot.uuid, 20)
    acted = _twice(lambda: safety.redrive_lost_builds(admin, task_api,
                                                      report, "c"))
    assert sorted(map(len, acted)) == [0, 1]
    inst = settled(ctxt, boot.uuid, timeout=30)
    assert inst.vm_state == "active"
    assert list(allocations(cloud, boot.uuid)) == \
        [cloud.nodes(inst.host)[0].uuid]
    # Re-driven recently: not again in this period.
    assert safety.redrive_lost_builds(admin, task_api, report, "c") == []


def test_build_request_never_scheduled_is_buried_with_a_fault(
        cloud, ctxt, report, short_timeout):
    (boot,), _ = helpers.boot_request(ctxt)
    admin = keel_context.get_admin_context()
    # Never re-driven yet: one more try first, however old.
    _age_build_request(admin, boot.uuid, 100)
    rows = safety._stale_build_requests(admin, datetime.datetime.utcnow())
    assert [r.updated_at for r in rows if r.instance_uuid == boot.uuid] \
        == [None]
    # Re-driven 20 s ago and still there 31 s after the POST: buried.
    _age_build_request(admin, boot.uuid, 31, redriven_ago=20)
    assert safety.redrive_lost_builds(
        admin, conductor_rpcapi.ComputeTaskAPI(), report, "c") == \
        [boot.uuid]
    mapping = objects.InstanceMapping.get_by_instance_uuid(admin, boot.uuid)
    assert mapping.cell_mapping.uuid == objects.CellMapping.CELL0_UUID
    with keel_context.target_cell(admin, mapping.cell_mapping) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, boot.uuid,
                                            expected_attrs=["fault"])
    assert inst.vm_state == "error"
    assert "was not scheduled within 30 seconds" in inst.fault.message
    assert allocations(cloud, boot.uuid) == {}


@pytest.mark.parametrize("host", [None, "ghost", "live"])
def test_abandoned_build_goes_to_error_once_and_frees_its_claim(
        cloud, ctxt, report, short_timeout, host):
    # A build the conductor committed but whose cast to the host was
    # lost (no host), or whose compute died (its service is down): BUILDING
    # in the cell past the timeout, a claim in Placement. A build on a
    # live compute is that compute's business.
    (boot,), _ = helpers.boot_request(ctxt)
    live = host == "live"
    host = cloud.hosts[0] if live else host
    admin = keel_context.get_admin_context()
    node = cloud.nodes(cloud.hosts[0])[0]
    assert report.put_allocations(
        admin, boot.uuid, {node.uuid: {"resources": {"MEMORY_MB": 512}}},
        ctxt.project_id, ctxt.user_id, None)
    cell = objects.CellMapping.get_by_uuid(admin, CELL1_UUID)
    with keel_context.target_cell(admin, cell) as cctxt:
        if host == "ghost" and not _ghost_exists(cctxt):
            objects.Service(cctxt, host="ghost", binary="nova-compute",
                            topic="compute", forced_down=True).create()
        inst = boot.build_request.get_new_instance(cctxt)
        inst.host = host
        inst.create()
        then = datetime.datetime.utcnow() - datetime.timedelta(seconds=60)
        t = cell_models.Instance
        with db_session.cell_writer(cctxt) as s:
            s.execute(sa.update(t).where(t.uuid == boot.uuid)
                      .values(created_at=then))
    mapping = objects.InstanceMapping.get_by_instance_uuid(admin, boot.uuid)
    mapping.cell_mapping = cell
    mapping.save()
    boot.build_request.destroy()

    acted = _twice(lambda: [u for u in safety.error_out_abandoned_builds(
        admin, report, "c") if u == boot.uuid])
    inst = instance(ctxt, boot.uuid, expected_attrs=["fault"])
    if live:
        assert acted == [[], []]
        assert inst.vm_state == "building"
        assert list(allocations(cloud, boot.uuid)) == [node.uuid]
        return
    assert sorted(map(len, acted)) == [0, 1]
    assert (inst.vm_state, inst.task_state) == ("error", None)
    assert ("no host received it" if host is None else
            "compute service of ghost is down") in inst.fault.message
    assert wait_for(lambda: allocations(cloud, boot.uuid) == {})


def _ghost_exists(cctxt):
    try:
        objects.Service.get_by_compute_host(cctxt, "ghost")
        return True
    except Exception:  # noqa: BLE001 - ServiceNotFound / ComputeHostNotFound
        return False


def test_allocations_of_deleted_instances_are_removed(cloud, ctxt, report):
    (boot,), kwargs = helpers.boot_request(ctxt)
    conductor_rpcapi.ComputeTaskAPI().schedule_and_build_instances(
        ctxt, **kwargs)
    inst = settled(ctxt, boot.uuid, timeout=30)
    node = cloud.nodes(inst.host)[0]
    held = allocations(cloud, boot.uuid)
    # The instance row goes, its claim stays (a delete that lost Placement).
    cell = objects.CellMapping.get_by_uuid(ctxt, CELL1_UUID)
    with keel_context.target_cell(keel_context.get_admin_context(),
                                  cell) as cctxt:
        t = cell_models.Instance
        with db_session.cell_writer(cctxt) as s:
            s.execute(sa.update(t).where(t.uuid == boot.uuid)
                      .values(deleted=t.id, vm_state="deleted"))
    assert list(held) == [node.uuid]
    removed = safety.remove_orphaned_allocations(
        keel_context.get_admin_context(), report)
    assert boot.uuid in removed
    assert allocations(cloud, boot.uuid) == {}


def test_build_request_of_an_instance_already_in_its_cell_is_committed(
        cloud, ctxt, report, short_timeout):
    # The conductor wrote the instance to cell1 and died before mapping it
    # and deleting the BuildRequest; the compute's start-up recovery put it
    # in ERROR meanwhile: it is mapped and committed, not built again (and
    # not buried in cell0 beside it).
    (boot,), _ = helpers.boot_request(ctxt)
    admin = keel_context.get_admin_context()
    cell = objects.CellMapping.get_by_uuid(admin, CELL1_UUID)
    with keel_context.target_cell(admin, cell) as cctxt:
        inst = boot.build_request.get_new_instance(cctxt)
        inst.vm_state, inst.task_state = "error", None
        inst.create()
    _age_build_request(admin, boot.uuid, 100, redriven_ago=20)
    assert safety.redrive_lost_builds(
        admin, conductor_rpcapi.ComputeTaskAPI(), report, "c") == \
        [boot.uuid]
    mapping = objects.InstanceMapping.get_by_instance_uuid(admin, boot.uuid)
    assert mapping.cell_mapping.uuid == CELL1_UUID
    with pytest.raises(Exception) as gone:
        objects.BuildRequest.get_by_instance_uuid(admin, boot.uuid)
    assert type(gone.value).__name__ == "BuildRequestNotFound"
    cell0 = objects.CellMapping.get_by_uuid(
        admin, objects.CellMapping.CELL0_UUID)
    with keel_context.target_cell(admin, cell0) as cctxt:
        assert not objects.InstanceList.get_by_filters(
            cctxt, {"uuid": [boot.uuid]})
    assert instance(ctxt, boot.uuid).vm_state == "error"


def test_unmapped_building_record_is_adopted_by_the_redrive(
        cloud, ctxt, report, short_timeout):
    # Same, but the record is still BUILDING with no host: the re-sent
    # request carries on with it and the server becomes ACTIVE.
    (boot,), _ = helpers.boot_request(ctxt)
    admin = keel_context.get_admin_context()
    cell = objects.CellMapping.get_by_uuid(admin, CELL1_UUID)
    with keel_context.target_cell(admin, cell) as cctxt:
        boot.build_request.get_new_instance(cctxt).create()
    _age_build_request(admin, boot.uuid, 20)
    assert safety.redrive_lost_builds(
        admin, conductor_rpcapi.ComputeTaskAPI(), report, "c") == \
        [boot.uuid]
    inst = settled(ctxt, boot.uuid, timeout=30)
    assert inst.vm_state == "active"
    assert list(allocations(cloud, boot.uuid)) == \
        [cloud.nodes(inst.host)[0].uuid]


def test_late_original_of_a_redriven_build_request_does_not_build(
        cloud, ctxt, report, short_timeout):
    # The net re-sends a request whose original is only queued behind
    # others (a storm, a broker that came back): when the original arrives
    # after the copy was sent it must not schedule, claim or build; the
    # copy builds the server, with one claim.
    from keel.clients import report as report_client
    from keel.compute import rpcapi as compute_rpcapi
    from keel.conductor.tasks import build
    from keel.scheduler import rpcapi as scheduler_rpcapi

    (boot,), original = helpers.boot_request(ctxt)
    admin = keel_context.get_admin_context()
    _age_build_request(admin, boot.uuid, 20)
    sent = []

    class Recorder:
        def schedule_and_build_instances(self, ctxt, **kw):
            sent.append((ctxt, kw))
    assert safety.redrive_lost_builds(admin, Recorder(), report, "c") == \
        [boot.uuid]
    task = build.ScheduleAndBuild(
        "late", scheduler_rpcapi.SchedulerAPI(), compute_rpcapi.ComputeAPI(),
        report_client.ReportClient())
    task.execute(ctxt, **original)
    assert allocations(cloud, boot.uuid) == {}
    assert objects.BuildRequest.get_by_instance_uuid(admin, boot.uuid)
    mapping = objects.InstanceMapping.get_by_instance_uuid(admin, boot.uuid)
    assert mapping.cell_mapping is None

    (copy_ctxt, copy), = sent
    conductor_rpcapi.ComputeTaskAPI().schedule_and_build_instances(
        copy_ctxt, **copy)
    inst = settled(ctxt, boot.uuid, timeout=30)
    assert inst.vm_state == "active"
    held = allocations(cloud, boot.uuid)
    node = cloud.nodes(inst.host)[0].uuid
    assert list(held) == [node]
    assert held[node]["resources"] == {"MEMORY_MB": 512, "VCPU": 1,
                                       "DISK_GB": 1}


def test_server_renamed_before_its_build_is_taken_still_builds(
        cloud, ctxt, short_timeout):
    # PUT /servers/{id} on a server not yet scheduled saves its
    # BuildRequest; the cast on its way still takes it (the rename does not
    # look like a re-drive's stamp) and builds without waiting for the net.
    (boot,), original = helpers.boot_request(ctxt)
    stored = objects.BuildRequest.get_by_instance_uuid(ctxt, boot.uuid)
    stored.instance.display_name = "renamed"
    stored.save()
    conductor_rpcapi.ComputeTaskAPI().schedule_and_build_instances(
        ctxt, **original)
    inst = settled(ctxt, boot.uuid, timeout=10)
    assert inst.vm_state == "active"


def test_schedule_answer_lost_leaves_no_claim(cloud, ctxt, monkeypatch):
    # The scheduler claimed but its answer never came back (the broker
    # restarted, the call timed out): the server is buried in cell0 with
    # the fault and its claim does not stay behind.
    import oslo_messaging as messaging

    from keel.conductor.tasks import build

    (boot,), original = helpers.boot_request(ctxt)
    real = build.ScheduleAndBuild._schedule

    def claimed_then_lost(self, context, spec, uuids):
        real(self, context, spec, uuids)
        assert allocations(cloud, boot.uuid)
        raise messaging.MessagingTimeout("no reply")
    monkeypatch.setattr(build.ScheduleAndBuild, "_schedule",
                        claimed_then_lost)
    conductor_rpcapi.ComputeTaskAPI().schedule_and_build_instances(
        ctxt, **original)
    inst = settled(ctxt, boot.uuid, states=("error",), timeout=20)
    assert inst is not None
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, boot.uuid)
    assert mapping.cell_mapping.uuid == objects.CellMapping.CELL0_UUID
    assert allocations(cloud, boot.uuid) == {}
