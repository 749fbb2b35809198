"""build_instances: a compute's reschedule to the alternates it was given."""
from keel.conductor.tasks import build
from keel.conductor.tasks import reschedule
from keel.conf import CONF
from keel import context as keel_context
from keel import objects
from tests.functional.boot import helpers
from tests.unit.conductor.conftest import in_cell
from tests.unit.conductor.conftest import selection


def first_build(ctxt, cells, deps, hosts=("host-a", "host-b", "host-c")):
    """Boot through schedule_and_build; the scheduler's claim is recorded
    in the fake Placement; returns (uuid, the cast to the first host)."""
    scheduler, compute, report = deps
    scheduler.answer = lambda uuids: [[selection(h) for h in hosts]
                                      for _ in uuids]
    boots, kwargs = helpers.boot_request(ctxt)
    build.ScheduleAndBuild("cond-1", *deps).execute(ctxt, **kwargs)
    report.allocs[boots[0].uuid] = {"rp-" + hosts[0]: {}}
    cast = compute.casts.pop()
    return boots[0].uuid, cast, kwargs


def compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs, task="scheduling"):
    """What the compute does on a failed spawn: no host, back to
    scheduling, then build_instances with the alternates it holds."""
    with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, uuid,
                                            expected_attrs=["flavor"])
        inst.host = inst.node = None
        inst.task_state = task
        inst.save()
    inst._context = ctxt
    props = dict(cast["filter_properties"])
    props["retry"] = dict(props["retry"], exc_reason="spawn failed")
    reschedule.Reschedule("cond-1", *deps).execute(
        ctxt, [inst], kwargs["image"], props, "secret", [],
        kwargs["requested_networks"], [], request_spec=cast["request_spec"],
        host_lists=[cast["host_list"]])


def fault_of(ctxt, cells, uuid):
    return in_cell(ctxt, cells["cell1"], uuid, expected_attrs=["fault"])


def test_next_alternate_is_claimed_and_built(ctxt, cells, deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)

    (again,) = compute.casts
    assert again["host"] == "host-b" and again["node"] == "host-b"
    assert [s.service_host for s in again["host_list"]] == ["host-c"]
    assert again["filter_properties"]["retry"] == {
        "num_attempts": 2, "hosts": [["host-a", "host-a"],
                                     ["host-b", "host-b"]]}
    # The allocations moved: the failed host's claim was replaced.
    assert list(report.allocs[uuid]) == ["rp-host-b"]
    assert [b.source_type for b in again["block_device_mapping"]] == [
        "image"]
    inst = in_cell(ctxt, cells["cell1"], uuid)
    assert inst.availability_zone == "az-host-b"
    assert (inst.vm_state, inst.task_state) == ("building", "scheduling")


def test_a_full_alternate_is_skipped(ctxt, cells, deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    report.full.add("rp-host-b")
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)

    (again,) = compute.casts
    assert again["host"] == "host-c" and again["host_list"] == []
    assert list(report.allocs[uuid]) == ["rp-host-c"]


def test_exhausted_alternates_end_in_error_with_nova_fault(ctxt, cells,
                                                          deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps, hosts=("host-a",))
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)

    assert compute.casts == []
    inst = fault_of(ctxt, cells, uuid)
    assert (inst.vm_state, inst.task_state) == ("error", None)
    assert inst.fault.message == (
        "Exceeded maximum number of retries. Exhausted all hosts available "
        "for retrying build failures for instance %s." % uuid)
    assert uuid not in report.allocs


def test_every_alternate_full_is_exhausted_too(ctxt, cells, deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    report.full.update({"rp-host-b", "rp-host-c"})
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)

    assert compute.casts == []
    assert fault_of(ctxt, cells, uuid).fault.message.startswith(
        "Exceeded maximum number of retries. Exhausted all hosts")
    assert uuid not in report.allocs


def test_max_attempts_is_honoured(ctxt, cells, deps):
    scheduler, compute, report = deps
    CONF.set_override("max_attempts", 2, group="scheduler")
    try:
        uuid, cast, kwargs = first_build(ctxt, cells, deps)
        compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)
        second = compute.casts.pop()
        compute_gives_up(ctxt, cells, deps, uuid, second, kwargs)
    finally:
        CONF.clear_override("max_attempts", group="scheduler")

    assert compute.casts == []
    assert fault_of(ctxt, cells, uuid).fault.message == (
        "Exceeded maximum number of retries. Exceeded max scheduling "
        "attempts 2 for instance %s. Last exception: spawn failed" % uuid)


def test_a_delete_meanwhile_wins(ctxt, cells, deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs, task="deleting")

    assert compute.casts == []
    inst = fault_of(ctxt, cells, uuid)
    assert (inst.vm_state, inst.task_state) == ("building", "deleting")
    assert inst.fault is None
    # Nothing claimed for it (the delete frees what it holds).
    assert report.allocs[uuid] == {"rp-host-a": {}}


def test_old_compute_without_host_list_is_scheduled_again(ctxt, cells,
                                                          deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    scheduler.answer = lambda uuids: [[selection("host-c")] for _ in uuids]
    with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, uuid,
                                            expected_attrs=["flavor"])
    reschedule.Reschedule("cond-1", *deps).execute(
        ctxt, [inst], kwargs["image"], cast["filter_properties"], "secret",
        [], kwargs["requested_networks"], [], request_spec=None,
        host_lists=None)

    assert scheduler.calls[-1][1] == [uuid]
    (again,) = compute.casts
    assert again["host"] == "host-c"


def test_resource_groups_follow_the_claimed_alternate(ctxt, cells, deps):
    from oslo_serialization import jsonutils

    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    spec = cast["request_spec"]
    spec.requested_resources = [objects.RequestGroup(
        requester_id="port-1", resources={"NET_BW_EGR_KILOBIT_PER_SEC": 10})]
    alternate = cast["host_list"][0]
    areq = jsonutils.loads(alternate.allocation_request)
    areq["mappings"] = {"port-1": ["4c7d9e1f-2a3b-4c5d-8e6f-7a8b9c0d1e2f"]}
    alternate.allocation_request = jsonutils.dumps(areq)
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)

    (again,) = compute.casts
    (group,) = again["request_spec"].requested_resources
    assert group.provider_uuids == ["4c7d9e1f-2a3b-4c5d-8e6f-7a8b9c0d1e2f"]


def test_a_failed_cast_is_error_not_a_stuck_build(ctxt, cells, deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    compute.fail = RuntimeError("broker gone")
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)

    inst = fault_of(ctxt, cells, uuid)
    assert (inst.vm_state, inst.task_state) == ("error", None)
    assert inst.fault.message == "broker gone"
    assert uuid not in report.allocs


def test_a_stale_reschedule_leaves_a_running_instance_alone(ctxt, cells,
                                                           deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)
    # The alternate built it: ACTIVE on host-b with its allocations.
    with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        inst.vm_state, inst.task_state, inst.host = "active", None, "host-b"
        inst.save()
    before = dict(report.allocs)
    compute.casts.clear()

    # The broker delivers the reschedule once more.
    props = dict(cast["filter_properties"])
    reschedule.Reschedule("cond-1", *deps).execute(
        ctxt, [inst], kwargs["image"], props, "secret", [],
        kwargs["requested_networks"], [], request_spec=cast["request_spec"],
        host_lists=[cast["host_list"]])

    assert compute.casts == []
    assert report.allocs == before
    now = fault_of(ctxt, cells, uuid)
    assert (now.vm_state, now.host, now.fault) == ("active", "host-b", None)


def test_a_stale_exhausted_reschedule_does_not_error_a_running_one(
        ctxt, cells, deps):
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, uuid)
        inst.vm_state, inst.task_state = "active", None
        inst.save()
    reschedule.Reschedule("cond-1", *deps).execute(
        ctxt, [inst], kwargs["image"], dict(cast["filter_properties"]),
        "secret", [], kwargs["requested_networks"], [],
        request_spec=cast["request_spec"], host_lists=[[]])

    now = fault_of(ctxt, cells, uuid)
    assert (now.vm_state, now.fault) == ("active", None)
    assert uuid in report.allocs


def test_volume_attachments_deleted_by_the_failed_host_are_recreated(
        ctxt, cells, deps, monkeypatch):
    from keel import exception

    KEPT = "0b6f3a1e-5c2d-4e7f-9a8b-1c2d3e4f5a6b"
    DELETED = "7e8f9a0b-1c2d-4e3f-8a5b-6c7d8e9f0a1b"
    NEW = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"

    class Volumes:
        live = {KEPT}
        created = []

        def attachment_get(self, context, attachment_id):
            if attachment_id not in self.live:
                raise exception.VolumeAttachmentNotFound(
                    attachment_id=attachment_id)
            return {"id": attachment_id}

        def attachment_create(self, context, volume_id, instance_id):
            self.created.append((volume_id, instance_id))
            return {"id": NEW}
    monkeypatch.setattr(reschedule.Reschedule, "volume_api",
                        staticmethod(lambda: Volumes()))
    scheduler, compute, report = deps
    uuid, cast, kwargs = first_build(ctxt, cells, deps)
    with keel_context.target_cell(ctxt, cells["cell1"]) as cctxt:
        for vol, att in (("vol-gone", DELETED), ("vol-kept", KEPT)):
            objects.BlockDeviceMapping(
                cctxt, instance_uuid=uuid, source_type="volume",
                destination_type="volume", volume_id=vol,
                attachment_id=att, boot_index=None,
                device_name=None).create()
    compute_gives_up(ctxt, cells, deps, uuid, cast, kwargs)

    (again,) = compute.casts
    atts = {b.volume_id: b.attachment_id
            for b in again["block_device_mapping"] if b.volume_id}
    assert atts == {"vol-gone": NEW, "vol-kept": KEPT}
    assert Volumes.created == [("vol-gone", uuid)]
