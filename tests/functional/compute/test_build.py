"""build_and_run_instance driven through the compute RPC API on instances
created in cell1 as the conductor leaves them (real Placement, in-process
transport, fake driver)."""
import json

import sqlalchemy as sa

from keel.db import session
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import exception
from keel import objects
from keel.virt import power_state
from tests.functional.compute import helpers as h
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import wait_for


class _StateRecorder:
    """Every (vm_state, task_state) written to the instances table for one
    instance, read from the UPDATE statements the cell database runs and
    their bound parameters (statements built once bind the row's uuid as
    w_uuid and each written column as v_<column>)."""

    def __init__(self, uuid):
        self.uuid = uuid
        self.writes = []
        self.engine = session.cell_engine()

    def _seen(self, conn, clause, multiparams, params, execution_options):
        if not isinstance(clause, sa.sql.dml.Update) or \
                clause.table.name != "instances":
            return
        values = dict(clause.compile().params)
        for bound in (multiparams or [params]):
            for key, value in (bound or {}).items():
                values[key[2:] if key[:2] in ("v_", "w_") else key] = value
        if self.uuid not in values.values():
            return
        if "task_state" in values or "vm_state" in values:
            self.writes.append((values.get("vm_state"),
                                values.get("task_state")))

    def __enter__(self):
        sa.event.listen(self.engine, "before_execute", self._seen)
        return self

    def __exit__(self, *exc):
        sa.event.remove(self.engine, "before_execute", self._seen)


def _selection(cloud, host):
    node = h.node_uuid(cloud, host)
    request = {"allocations": {node: {"resources": {
        "VCPU": 1, "MEMORY_MB": 128, "DISK_GB": 1}}}}
    return objects.Selection(
        service_host=host, nodename=host, compute_node_uuid=node,
        cell_uuid="7d9d1c2e-3b4a-4f5e-8a6b-1c2d3e4f5a6b", limits=None,
        allocation_request=json.dumps(request),
        allocation_request_version="1.36", availability_zone=None)


def test_build_progresses_to_active_and_leaves_allocations(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    allocs = h.allocate(cloud, ctxt, inst, host)
    with _StateRecorder(inst.uuid) as rec:
        h.build(ctxt, inst, host)
        got = h.wait_state(ctxt, inst, "active")
    assert rec.writes == [("building", None), ("building", "networking"),
                          ("building", "block_device_mapping"),
                          ("building", "spawning"), ("active", None)]
    assert (got.host, got.node, got.launched_on) == (host, host, host)
    assert got.power_state == power_state.RUNNING
    assert got.launched_at is not None
    assert got.compute_id == cloud.nodes(host)[0].id
    assert got.root_device_name == "/dev/vda"
    assert list(got.info_cache.network_info) == []
    # The scheduler's claim is Placement's truth: the compute leaves it.
    assert {rp: a["resources"] for rp, a in
            h.allocations(cloud, ctxt, inst).items()} == {
        rp: a["resources"] for rp, a in allocs.items()}
    events, action = h.events(ctxt, inst)
    ev = events["compute__do_build_and_run_instance"]
    assert (ev.result, ev.host) == ("Success", host)
    assert action.message is None
    mgr = h.compute(cloud, host)
    assert inst.uuid in mgr.driver.list_instance_uuids()
    cn = cloud.nodes(host)[0]
    assert cn.memory_mb_used >= 128 and cn.vcpus_used >= 1


def test_builds_of_distinct_instances_run_concurrently(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[1]
    mgr = h.compute(cloud, host)
    mgr.driver.spawn_delay = 1.0
    try:
        insts = [h.create_instance(cloud, ctxt) for _ in range(4)]
        for inst in insts:
            h.build(ctxt, inst, host)
        # Serial builds would never have the four spawning at once.
        assert wait_for(lambda: all(
            h.reload(ctxt, i).task_state == "spawning" for i in insts),
            timeout=5, interval=0.05)
        for inst in insts:
            h.wait_state(ctxt, inst, "active")
    finally:
        mgr.driver.spawn_delay = 0


def test_spawn_failure_reschedules_to_the_alternate(cloud):
    ctxt = h.user_ctxt()
    first, alternate = cloud.hosts
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, first)
    mgr = h.compute(cloud, first)
    sent = []
    real = mgr.compute_task_api

    class Recorder:
        def build_instances(self, *args, **kwargs):
            sent.append((args, kwargs))
            return real.build_instances(*args, **kwargs)
    mgr.compute_task_api = Recorder()
    mgr.driver.inject_failure("spawn", instance_uuid=inst.uuid, times=1)
    try:
        h.build(ctxt, inst, first, host_list=[_selection(cloud, alternate)],
                filter_properties={"retry": {"num_attempts": 1,
                                             "hosts": [[first, first]]}})
        got = h.wait_state(ctxt, inst, "active")
    finally:
        mgr.compute_task_api = real
        mgr.driver.clear_failures("spawn")
    (args, kwargs), = sent
    assert [i.uuid for i in args[1]] == [inst.uuid]
    assert [[s.service_host for s in hl] for hl in kwargs["host_lists"]] \
        == [[alternate]]
    assert "Injected failure" in args[3]["retry"]["exc_reason"]
    # The alternate built it; the first host kept nothing behind.
    assert (got.host, got.node) == (alternate, alternate)
    assert inst.uuid not in mgr.driver.list_instance_uuids()
    nodes = h.allocations(cloud, ctxt, inst)
    assert list(nodes) == [h.node_uuid(cloud, alternate)]
    stats = cloud.nodes(first)[0].stats
    assert int(stats["failed_builds"]) >= 1
    _, action = h.events(ctxt, inst)
    # One event per attempt; Nova logs the rescheduled one as handled.
    assert sorted((e.event, e.host, e.result) for e in
                  objects.InstanceActionEventList.get_by_action(
                      ctxt, action.id)) == sorted(
        ("compute__do_build_and_run_instance", host, "Success")
        for host in (first, alternate))


def test_spawn_failure_without_retry_info_is_error_with_fault(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, host)
    mgr = h.compute(cloud, host)
    mgr.driver.inject_failure("spawn", instance_uuid=inst.uuid)
    try:
        h.build(ctxt, inst, host)
        got = h.wait_state(ctxt, inst, "error")
    finally:
        mgr.driver.clear_failures("spawn")
    fault = objects.InstanceFault.get_latest_for_instance(ctxt, inst.uuid)
    assert fault.code == 500
    assert "Injected failure in fake driver operation spawn" in fault.message
    assert got.host is None and got.node is None
    assert inst.uuid not in mgr.driver.list_instance_uuids()
    # A failed build frees its allocations (once it ends), as Nova.
    assert wait_for(lambda: h.allocations(cloud, ctxt, inst) == {},
                    timeout=5)
    events, action = h.events(ctxt, inst)
    assert events["compute__do_build_and_run_instance"].result == "Success"


def test_volume_bdm_without_cinder_aborts_the_build(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    bdm = objects.BlockDeviceMapping(
        ctxt, instance_uuid=inst.uuid, source_type="volume",
        destination_type="volume", boot_index=0,
        volume_id="2b1c4e7a-9f0d-4c3b-8a5e-6d7f8091a2b3",
        delete_on_termination=False, device_name="/dev/vda")
    bdm.create()
    h.build(ctxt, inst, host, bdms=objects.BlockDeviceMappingList(
        objects=[bdm]))
    h.wait_state(ctxt, inst, "error")
    fault = objects.InstanceFault.get_latest_for_instance(ctxt, inst.uuid)
    assert "Failure prepping block device" in fault.message


def test_delete_during_build_stops_it_without_error(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[1]
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, host)
    mgr = h.compute(cloud, host)
    mgr.driver.spawn_delay = 0.6
    try:
        h.build(ctxt, inst, host)
        h.wait_state(ctxt, inst, "building", "spawning")
        # What DELETE /servers/{id} does to a building server.
        api_side = h.reload(ctxt, inst)
        api_side.task_state = "deleting"
        api_side.save()
        assert wait_for(lambda: mgr.tasks_in_progress() == [], timeout=5)
    finally:
        mgr.driver.spawn_delay = 0
    got = h.reload(ctxt, inst)
    assert (got.vm_state, got.task_state) == ("building", "deleting")
    assert objects.InstanceFault.get_latest_for_instance(
        ctxt, inst.uuid) is None
    assert inst.uuid not in mgr.driver.list_instance_uuids()
    assert h.allocations(cloud, ctxt, inst) == {}


def test_build_of_a_deleted_instance_does_nothing(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    inst.destroy()
    mgr = h.compute(cloud, host)
    h.build(ctxt, inst, host)
    assert wait_for(lambda: mgr.tasks_in_progress() == [], timeout=5)
    assert inst.uuid not in mgr.driver.list_instance_uuids()
    try:
        objects.Instance.get_by_uuid(ctxt, inst.uuid)
        raise AssertionError("instance came back")
    except exception.InstanceNotFound:
        pass


def test_build_notifications_legacy_and_versioned(cloud,  # noqa: F811
                                                  notification_capture):
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    h.build(ctxt, inst, host)
    h.wait_state(ctxt, inst, "active")
    end = notification_capture.wait_for("instance.create.end")
    assert end["publisher_id"] == "nova-compute:%s" % host
    assert end["payload"]["nova_object.data"]["uuid"] == inst.uuid
    assert end["payload"]["nova_object.data"]["state"] == "active"
    ours = [n["event_type"] for n in notification_capture.versioned
            if n["payload"]["nova_object.data"].get("uuid") == inst.uuid]
    assert ours[:1] == ["instance.create.start"]
    legacy = notification_capture.wait_for("compute.instance.create.end",
                                           versioned=False)
    assert legacy["publisher_id"] == "compute.%s" % host
    assert legacy["payload"]["instance_id"] == inst.uuid
    assert legacy["payload"]["state"] == "active"


def test_failed_build_sends_create_error(cloud,  # noqa: F811
                                         notification_capture):
    ctxt = h.user_ctxt()
    host = cloud.hosts[1]
    inst = h.create_instance(cloud, ctxt)
    mgr = h.compute(cloud, host)
    mgr.driver.inject_failure("spawn", instance_uuid=inst.uuid)
    try:
        h.build(ctxt, inst, host)
        h.wait_state(ctxt, inst, "error")
    finally:
        mgr.driver.clear_failures("spawn")
    err = notification_capture.wait_for("instance.create.error")
    assert err["priority"] == "ERROR"
    fault = err["payload"]["nova_object.data"]["fault"]["nova_object.data"]
    assert fault["exception"] == "FakeDriverError"
    notification_capture.wait_for("compute.instance.create.error",
                                  versioned=False)


def test_a_build_message_delivered_twice_builds_once(cloud):
    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    allocs = h.allocate(cloud, ctxt, inst, host)
    mgr = h.compute(cloud, host)
    h.build(ctxt, inst, host)
    first = h.wait_state(ctxt, inst, "active")
    h.build(ctxt, inst, host)
    assert wait_for(lambda: mgr.tasks_in_progress() == [], timeout=5)
    again = h.reload(ctxt, inst)
    assert (again.vm_state, again.launched_at) == ("active",
                                                   first.launched_at)
    assert list(h.allocations(cloud, ctxt, inst)) == list(allocs)


def test_anti_affinity_violation_found_late_is_rescheduled(cloud):
    """Two members of an anti-affinity group sent to the same host by two
    racing schedulings: the second build goes to its alternate."""
    import uuid as uuid_lib
    ctxt = h.user_ctxt()
    first, alternate = cloud.hosts
    here = h.create_instance(cloud, ctxt)
    h.build(ctxt, here, first)
    h.wait_state(ctxt, here, "active")
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, first)
    group = objects.InstanceGroup(
        ctxt, uuid=str(uuid_lib.uuid4()), name="spread", user_id=h.USER,
        project_id=h.PROJECT, policy="anti-affinity",
        members=[here.uuid, inst.uuid])
    group.create()
    h.build(ctxt, inst, first, host_list=[_selection(cloud, alternate)],
            filter_properties={"retry": {"num_attempts": 1, "hosts": []},
                               "scheduler_hints": {"group": group.uuid}})
    got = h.wait_state(ctxt, inst, "active")
    assert got.host == alternate
    assert list(h.allocations(cloud, ctxt, inst)) == [
        h.node_uuid(cloud, alternate)]


def test_reschedule_that_cannot_be_sent_ends_in_error(cloud):
    ctxt = h.user_ctxt()
    first, alternate = cloud.hosts
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, first)
    mgr = h.compute(cloud, first)
    real = mgr.compute_task_api

    class Unreachable:
        def build_instances(self, *args, **kwargs):
            raise exception.NovaException("conductor unreachable")
    mgr.compute_task_api = Unreachable()
    mgr.driver.inject_failure("spawn", instance_uuid=inst.uuid, times=1)
    try:
        h.build(ctxt, inst, first, host_list=[_selection(cloud, alternate)],
                filter_properties={"retry": {"num_attempts": 1,
                                             "hosts": []}})
        got = h.wait_state(ctxt, inst, "error")
    finally:
        mgr.compute_task_api = real
        mgr.driver.clear_failures("spawn")
    assert got.host is None
    fault = objects.InstanceFault.get_latest_for_instance(ctxt, inst.uuid)
    assert "Injected failure" in fault.message


def test_error_escaping_the_build_still_ends_in_error(cloud, monkeypatch):
    # E.g. the conductor unreachable while the build erred out: the pool
    # thread puts the server in ERROR with a fault once it can, rather than
    # leaving it in BUILD for the conductor's safety net.
    from keel.compute.ops import build as build_ops

    ctxt = h.user_ctxt()
    host = cloud.hosts[0]
    inst = h.create_instance(cloud, ctxt)
    h.allocate(cloud, ctxt, inst, host)

    def lost(self, context, instance):
        raise exception.NovaException("conductor did not answer")
    monkeypatch.setattr(build_ops.Build, "_do_build_and_run_instance", lost)
    h.build(ctxt, inst, host)
    got = h.wait_state(ctxt, inst, "error")
    assert got.task_state is None
    fault = objects.InstanceFault.get_latest_for_instance(ctxt, inst.uuid)
    assert "conductor did not answer" in fault.message
    assert wait_for(lambda: h.allocations(cloud, ctxt, inst) == {},
                    timeout=5)
