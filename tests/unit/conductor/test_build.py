"""schedule_and_build_instances on real API/cell databases."""
import pytest

from keel.conductor.tasks import build
from keel.conductor.tasks import lookups
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel import objects
from tests.functional.boot import helpers
from tests.unit.conductor.conftest import in_cell
from tests.unit.conductor.conftest import selection


def run(ctxt, deps, kwargs):
    build.ScheduleAndBuild("cond-1", *deps).execute(ctxt, **kwargs)


def picks(*hosts):
    return lambda uuids: [[selection(h) for h in hosts] for _ in uuids]


def actions(ctxt, cell, instance_uuid):
    with keel_context.target_cell(ctxt, cell) as cctxt:
        acts = objects.InstanceActionList.get_by_instance_uuid(
            cctxt, instance_uuid)
        return [(a, list(objects.InstanceActionEventList.get_by_action(
            cctxt, a.id))) for a in acts]


def gone(ctxt, instance_uuid):
    with pytest.raises(exception.BuildRequestNotFound):
        objects.BuildRequest.get_by_instance_uuid(ctxt, instance_uuid)
    return True


def test_instance_created_mapped_and_cast_with_alternates(ctxt, cells,
                                                          deps):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-a", "host-b", "host-c")
    boots, kwargs = helpers.boot_request(ctxt, count=2)
    run(ctxt, deps, kwargs)

    assert [c["host"] for c in compute.casts] == ["host-a", "host-a"]
    for boot, cast in zip(boots, compute.casts):
        inst = in_cell(ctxt, cells["cell1"], boot.uuid,
                       expected_attrs=["system_metadata", "flavor", "tags",
                                       "metadata"])
        assert (inst.vm_state, inst.task_state) == ("building", "scheduling")
        assert inst.availability_zone == "az-host-a"
        assert inst.flavor.memory_mb == 512 and inst.memory_mb == 512
        # Image properties (and the inheritable base attributes) land in
        # system metadata as Nova's get_system_metadata_from_image.
        assert inst.system_metadata["image_hw_architecture"] == "x86_64"
        assert inst.system_metadata["image_disk_format"] == "qcow2"
        assert inst.system_metadata["image_min_disk"] == "1"
        assert inst.metadata == {"boot": "test"}
        assert [t.tag for t in inst.tags] == ["blue"]
        mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt,
                                                               boot.uuid)
        assert mapping.cell_mapping.uuid == cells["cell1"].uuid
        assert gone(ctxt, boot.uuid)
        (action, events), = actions(ctxt, cells["cell1"], boot.uuid)
        assert action.action == "create" and events == []
        assert action.request_id == ctxt.request_id
        # What the compute gets: its node and limits, the alternates, the
        # retry bookkeeping and the BDMs written in the cell.
        assert cast["instance"].uuid == boot.uuid
        assert cast["node"] == "host-a"
        assert [s.service_host for s in cast["host_list"]] == [
            "host-b", "host-c"]
        assert cast["filter_properties"]["retry"] == {
            "num_attempts": 1, "hosts": [["host-a", "host-a"]]}
        assert cast["filter_properties"]["limits"] == {"memory_mb": 4096}
        (bdm,) = cast["block_device_mapping"]
        assert bdm.instance_uuid == boot.uuid and bdm.id
        assert bdm.source_type == "image" and bdm.boot_index == 0
        assert cast["request_spec"].instance_uuid == boot.uuid
    assert report.deleted == []


def test_no_valid_host_buries_every_instance_in_cell0(ctxt, cells, deps):
    scheduler, compute, report = deps
    scheduler.answer = exception.NoValidHost(
        reason="There are not enough hosts available.")
    boots, kwargs = helpers.boot_request(ctxt, count=2)
    run(ctxt, deps, kwargs)

    assert compute.casts == []
    for boot in boots:
        inst = in_cell(ctxt, cells["cell0"], boot.uuid,
                       expected_attrs=["fault", "tags"])
        assert (inst.vm_state, inst.task_state) == ("error", None)
        assert inst.fault.message == ("No valid host was found. There are "
                                      "not enough hosts available.")
        assert inst.fault.code == 500 and "NoValidHost" in inst.fault.details
        assert [t.tag for t in inst.tags] == ["blue"]
        mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt,
                                                               boot.uuid)
        assert mapping.cell_mapping.uuid == objects.CellMapping.CELL0_UUID
        assert gone(ctxt, boot.uuid)
        (action, events), = actions(ctxt, cells["cell0"], boot.uuid)
        assert action.action == "create" and action.message == "Error"
        assert [(e.event, e.result, e.host) for e in events] == [
            ("conductor_schedule_and_build_instances", "Error", "cond-1")]
        with pytest.raises(exception.InstanceNotFound):
            in_cell(ctxt, cells["cell1"], boot.uuid)


def test_deleted_before_the_cell_record_is_never_created(ctxt, cells, deps):
    scheduler, compute, report = deps
    boots, kwargs = helpers.boot_request(ctxt)

    def schedule_then_user_deletes(uuids):
        # The API's delete of a server still in its BuildRequest.
        objects.BuildRequest.get_by_instance_uuid(ctxt, uuids[0]).destroy()
        return picks("host-a")(uuids)
    scheduler.answer = schedule_then_user_deletes
    run(ctxt, deps, kwargs)

    assert compute.casts == []
    assert report.deleted == [boots[0].uuid]
    with pytest.raises(exception.InstanceNotFound):
        in_cell(ctxt, cells["cell1"], boots[0].uuid)
    with pytest.raises(exception.InstanceMappingNotFound):
        objects.InstanceMapping.get_by_instance_uuid(ctxt, boots[0].uuid)


def test_delete_at_the_commit_point_undoes_the_instance(ctxt, cells, deps,
                                                        monkeypatch):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-a", "host-b")
    boots, kwargs = helpers.boot_request(ctxt)
    real_commit = lookups.commit_build

    def user_deletes_then_commit(context, instance_uuid, cell):
        objects.BuildRequest.get_by_instance_uuid(
            ctxt, instance_uuid).destroy()
        return real_commit(context, instance_uuid, cell)
    monkeypatch.setattr(lookups, "commit_build", user_deletes_then_commit)
    from keel.notifications import testing
    with testing.NotificationCapture() as capture:
        run(ctxt, deps, kwargs)
        end = capture.wait_for("instance.delete.end")

    assert compute.casts == []
    assert report.deleted == [boots[0].uuid]
    with pytest.raises(exception.InstanceNotFound):
        in_cell(ctxt, cells["cell1"], boots[0].uuid)
    # Mapped all the same (as before the user's delete was seen).
    assert objects.InstanceMapping.get_by_instance_uuid(
        ctxt, boots[0].uuid).cell_mapping.uuid == cells["cell1"].uuid
    # The conductor reports the delete it finished, as Nova's.
    assert end["payload"]["nova_object.data"]["uuid"] == boots[0].uuid
    assert end["publisher_id"] == "nova-conductor:cond-1"


def test_failure_after_the_record_exists_is_error_not_build(ctxt, cells,
                                                            deps):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-a")
    compute.fail = RuntimeError("broker gone")
    boots, kwargs = helpers.boot_request(ctxt)
    run(ctxt, deps, kwargs)

    inst = in_cell(ctxt, cells["cell1"], boots[0].uuid,
                   expected_attrs=["fault"])
    assert (inst.vm_state, inst.task_state) == ("error", None)
    assert inst.fault.message == "broker gone"
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt,
                                                           boots[0].uuid)
    assert mapping.cell_mapping.uuid == cells["cell1"].uuid
    assert gone(ctxt, boots[0].uuid)
    assert report.deleted == [boots[0].uuid]


def test_unmapped_host_buries_in_cell0_and_frees_the_claim(ctxt, cells,
                                                           deps):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-unknown")
    boots, kwargs = helpers.boot_request(ctxt)
    run(ctxt, deps, kwargs)

    inst = in_cell(ctxt, cells["cell0"], boots[0].uuid,
                   expected_attrs=["fault"])
    assert inst.vm_state == "error"
    assert inst.fault.message == ("Host 'host-unknown' is not mapped to any "
                                  "cell")
    assert report.deleted == [boots[0].uuid]
    assert compute.casts == []


def test_quota_recheck_lost_race_is_error_with_fault(ctxt, cells, deps):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-a")
    CONF.set_override("instances", 1, group="quota")
    try:
        # Another request of the project already got its instance.
        with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
            objects.Instance(cctxt, project_id=ctxt.project_id,
                             user_id=ctxt.user_id, vm_state="active",
                             vcpus=1, memory_mb=512).create()
        boots, kwargs = helpers.boot_request(ctxt)
        run(ctxt, deps, kwargs)
    finally:
        CONF.clear_override("instances", group="quota")

    inst = in_cell(ctxt, cells["cell1"], boots[0].uuid,
                   expected_attrs=["fault"])
    assert (inst.vm_state, inst.task_state) == ("error", None)
    assert inst.fault.message.startswith("Quota exceeded for instances")
    assert inst.fault.code == 403
    assert compute.casts == []
    assert gone(ctxt, boots[0].uuid)
    assert report.deleted == [boots[0].uuid]


def test_cell0_burial_notifies_as_nova(ctxt, cells, deps):
    from keel.notifications import testing

    scheduler, compute, report = deps
    scheduler.answer = exception.NoValidHost(reason="")
    boots, kwargs = helpers.boot_request(ctxt)
    with testing.NotificationCapture(
            notify_on_state_change="vm_state") as capture:
        run(ctxt, deps, kwargs)
        legacy = capture.wait_for("compute_task.build_instances",
                                  versioned=False)
        versioned = capture.wait_for("compute_task.build_instances.error")
        update = capture.wait_for("instance.update")
    assert legacy["priority"] == "ERROR"
    assert legacy["payload"]["instance_id"] == boots[0].uuid
    assert legacy["payload"]["state"] == "error"
    assert legacy["publisher_id"] == "compute_task.cond-1"
    data = versioned["payload"]["nova_object.data"]
    assert data["instance_uuid"] == boots[0].uuid
    assert data["reason"]["nova_object.data"]["exception"] == "NoValidHost"
    state = update["payload"]["nova_object.data"]["state_update"][
        "nova_object.data"]
    assert (state["old_state"], state["state"]) == ("building", "error")


def test_cell_write_failure_buries_in_cell0_nothing_half_written(
        ctxt, cells, deps, monkeypatch):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-a")
    boots, kwargs = helpers.boot_request(ctxt)

    def broken_bdm_create(self):
        raise RuntimeError("disk full")
    # The instance row is written first, then a BDM fails: the whole cell
    # transaction must roll back.
    monkeypatch.setattr(objects.BlockDeviceMapping, "create",
                        broken_bdm_create)
    run(ctxt, deps, kwargs)

    with pytest.raises(exception.InstanceNotFound):
        in_cell(ctxt, cells["cell1"], boots[0].uuid)
    inst = in_cell(ctxt, cells["cell0"], boots[0].uuid,
                   expected_attrs=["fault"])
    assert (inst.vm_state, inst.task_state) == ("error", None)
    assert inst.fault.message == "disk full"
    assert report.deleted == [boots[0].uuid]
    assert gone(ctxt, boots[0].uuid)
    assert compute.casts == []


def test_the_scheduler_gets_the_groups_current_hosts(ctxt, cells, deps):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-b")
    group = objects.InstanceGroup(ctxt, name="spread",
                                  policy="anti-affinity",
                                  project_id=ctxt.project_id,
                                  user_id=ctxt.user_id)
    group.create()
    first, kwargs = helpers.boot_request(ctxt)
    run(ctxt, deps, kwargs)
    with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, first[0].uuid)
        inst.host = "host-a"
        inst.save()
    objects.InstanceGroup.add_members(ctxt, group.uuid, [first[0].uuid])

    second, kwargs = helpers.boot_request(ctxt)
    # As the API stores it: members and hosts are looked up when used.
    kwargs["request_specs"][0].instance_group = objects.InstanceGroup(
        ctxt, uuid=group.uuid, policy="anti-affinity", hosts=None,
        members=None)
    run(ctxt, deps, kwargs)

    spec, _ = scheduler.calls[-1]
    assert spec.instance_group.hosts == ["host-a"]
    assert spec.instance_group.members == [first[0].uuid]


def test_a_second_delivery_of_the_request_changes_nothing(ctxt, cells,
                                                          deps):
    scheduler, compute, report = deps
    scheduler.answer = picks("host-a", "host-b")
    boots, kwargs = helpers.boot_request(ctxt)
    run(ctxt, deps, kwargs)
    report.allocs[boots[0].uuid] = {"rp-host-a": {}}
    asked = len(scheduler.calls)

    run(ctxt, deps, kwargs)  # the broker delivered the cast again

    assert len(scheduler.calls) == asked, "scheduled (and claimed) twice"
    assert len(compute.casts) == 1
    assert report.deleted == [] and boots[0].uuid in report.allocs
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt,
                                                           boots[0].uuid)
    assert mapping.cell_mapping.uuid == cells["cell1"].uuid
    assert in_cell(ctxt, cells["cell1"], boots[0].uuid).vm_state == \
        "building"


def test_deleted_while_queued_is_not_even_scheduled(ctxt, cells, deps):
    scheduler, compute, report = deps
    boots, kwargs = helpers.boot_request(ctxt, count=2)
    objects.BuildRequest.get_by_instance_uuid(ctxt, boots[0].uuid).destroy()
    scheduler.answer = picks("host-a")
    run(ctxt, deps, kwargs)

    ((spec, uuids),) = scheduler.calls
    assert uuids == [boots[1].uuid]
    assert [c["instance"].uuid for c in compute.casts] == [boots[1].uuid]
    with pytest.raises(exception.InstanceMappingNotFound):
        objects.InstanceMapping.get_by_instance_uuid(ctxt, boots[0].uuid)


def test_a_placed_instance_is_announced_as_building(ctxt, cells, deps):
    from keel.notifications import testing

    scheduler, compute, report = deps
    scheduler.answer = picks("host-a")
    boots, kwargs = helpers.boot_request(ctxt)
    with testing.NotificationCapture(
            notify_on_state_change="vm_state") as capture:
        run(ctxt, deps, kwargs)
        update = capture.wait_for("instance.update")
        legacy = capture.wait_for("compute.instance.update", versioned=False)
    data = update["payload"]["nova_object.data"]
    assert data["uuid"] == boots[0].uuid
    assert update["publisher_id"] == "nova-conductor:cond-1"
    state = data["state_update"]["nova_object.data"]
    # Unknown old states are reported as the current ones (Nova's rule).
    assert (state["old_state"], state["state"]) == ("building", "building")
    assert legacy["payload"]["instance_id"] == boots[0].uuid


def test_a_redriven_request_adopts_the_record_a_dead_conductor_wrote(
        ctxt, cells, deps):
    from keel.conductor.tasks import common

    scheduler, compute, report = deps
    scheduler.answer = picks("host-a", "host-b")
    boots, kwargs = helpers.boot_request(ctxt)
    # The first delivery got as far as the cell transaction, then died.
    with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
        common.create_in_cell(
            cctxt, common.new_instance(ctxt, boots[0].build_request,
                                       boots[0].spec, kwargs["image"]),
            kwargs["block_device_mapping"], kwargs["tags"])
    run(ctxt, deps, kwargs)

    (cast,) = compute.casts
    assert cast["instance"].uuid == boots[0].uuid
    assert cast["instance"].availability_zone == "az-host-a"
    assert len(cast["block_device_mapping"]) == 1
    assert [t.tag for t in cast["instance"].tags] == ["blue"]
    with pytest.raises(exception.InstanceNotFound):
        in_cell(ctxt, cells["cell0"], boots[0].uuid)
    assert gone(ctxt, boots[0].uuid)
    assert report.deleted == []


def test_host_cells_are_read_at_once_and_cached(ctxt, cells, monkeypatch):
    lookups.forget_host_cells()
    loads = []
    real = lookups._load_host_cells

    def counted(context):
        loads.append(1)
        return real(context)
    monkeypatch.setattr(lookups, "_load_host_cells", counted)
    for host in ("host-a", "host-b", "host-a", "host-c"):
        assert lookups.cell_of_host(ctxt, host).uuid == \
            cells["cell1"].uuid
    assert len(loads) == 1
    # A host not (yet) mapped is read again each time, never cached.
    for _ in range(2):
        with pytest.raises(exception.HostMappingNotFound):
            lookups.cell_of_host(ctxt, "host-new")
    assert len(loads) == 3
    # Mapped meanwhile (discovery): found on the next look.
    mapping = objects.HostMapping(keel_context.get_admin_context(),
                                  host="host-new",
                                  cell_mapping=cells["cell1"])
    mapping.create()
    try:
        assert lookups.cell_of_host(ctxt, "host-new").uuid == \
            cells["cell1"].uuid
        assert len(loads) == 4
        # Trusted for HOST_CELL_TTL only.
        monkeypatch.setattr(lookups, "HOST_CELL_TTL", 0.0)
        lookups.forget_host_cells()
        lookups.cell_of_host(ctxt, "host-a")
        lookups.cell_of_host(ctxt, "host-a")
        assert len(loads) == 6
    finally:
        mapping.destroy()
        lookups.forget_host_cells()


def test_commit_maps_and_deletes_in_one_go(ctxt, cells):
    boots, _ = helpers.boot_request(ctxt, count=2)
    first, second = boots
    # Mapped elsewhere already (a duplicated message): overwritten, as Nova.
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, second.uuid)
    mapping.cell_mapping = cells["cell0"]
    mapping.save()
    for boot in boots:
        assert lookups.commit_build(ctxt, boot.uuid, cells["cell1"])
        assert objects.InstanceMapping.get_by_instance_uuid(
            ctxt, boot.uuid).cell_mapping.uuid == cells["cell1"].uuid
        assert gone(ctxt, boot.uuid)
    # The BuildRequest already gone: mapped all the same, False.
    assert not lookups.commit_build(ctxt, first.uuid, cells["cell1"])
    # No mapping: nothing changes.
    (third,), _ = helpers.boot_request(ctxt)
    objects.InstanceMapping.get_by_instance_uuid(ctxt, third.uuid).destroy()
    with pytest.raises(exception.InstanceMappingNotFound):
        lookups.commit_build(ctxt, third.uuid, cells["cell1"])
    assert objects.BuildRequest.get_by_instance_uuid(ctxt, third.uuid)
