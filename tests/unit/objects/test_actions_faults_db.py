"""Instance actions, their events and instance faults (cell database)."""
import pytest
from oslo_utils import uuidutils

from keel import exception
from keel import objects


@pytest.fixture
def instance(ctx):
    inst = objects.Instance(ctx, uuid=uuidutils.generate_uuid(),
                            project_id="fake-project", user_id="fake-user")
    inst.create()
    return inst


def test_action_and_events_lifecycle(ctx, instance):
    action = objects.InstanceAction.action_start(ctx, instance.uuid,
                                                 "reboot")
    assert action.request_id == ctx.request_id and action.finish_time is None
    objects.InstanceActionEvent.event_start(ctx, instance.uuid,
                                            "compute_reboot_instance",
                                            host="h1")
    try:
        raise ValueError("disk on fire")
    except ValueError as exc:
        failed = objects.InstanceActionEvent.event_finish_with_failure(
            ctx, instance.uuid, "compute_reboot_instance", exc_val=exc,
            exc_tb=exc.__traceback__, want_result=True)
    assert failed.result == "Error" and "disk on fire" in failed.details
    assert "raise ValueError" in failed.traceback
    finished = objects.InstanceAction.action_finish(ctx, instance.uuid)
    assert finished.finish_time is not None
    got = objects.InstanceAction.get_by_request_id(ctx, instance.uuid,
                                                   ctx.request_id)
    assert got.message == "Error"
    events = objects.InstanceActionEventList.get_by_action(ctx, got.id)
    assert [(e.event, e.host) for e in events] == [
        ("compute_reboot_instance", "h1")]
    objects.InstanceActionEvent.event_start(ctx, instance.uuid, "second")
    ok = objects.InstanceActionEventList.get_by_action(ctx, got.id)[0]
    assert ok.event == "second"
    ok.finish()
    assert ok.result == "Success" and ok.finish_time is not None
    assert objects.InstanceAction.get_by_request_id(
        ctx, instance.uuid, "req-none") is None
    with pytest.raises(exception.InstanceActionEventNotFound):
        objects.InstanceActionEvent.event_finish(ctx, instance.uuid, "nope")


def test_event_without_action_is_refused(ctx, instance):
    with pytest.raises(exception.InstanceActionNotFound):
        objects.InstanceActionEvent.event_start(ctx, instance.uuid, "x")


def test_actions_listed_newest_first_with_paging(ctx, instance):
    from keel import context as keel_context

    ids = []
    for name in ("create", "stop", "start"):
        rctx = keel_context.RequestContext(user_id="u", project_id="p")
        ids.append(objects.InstanceAction.action_start(
            rctx, instance.uuid, name).request_id)
    actions = objects.InstanceActionList.get_by_instance_uuid(
        ctx, instance.uuid)
    assert [a.action for a in actions] == ["start", "stop", "create"]
    page = objects.InstanceActionList.get_by_instance_uuid(
        ctx, instance.uuid, limit=1, marker=ids[2])
    assert [a.action for a in page] == ["stop"]


def test_faults(ctx, instance):
    # The context's project: a user context lists only its project's.
    other = objects.Instance(ctx, uuid=uuidutils.generate_uuid(),
                             project_id=ctx.project_id)
    other.create()
    for msg in ("first", "second" + "x" * 300):
        objects.InstanceFault(ctx, instance_uuid=instance.uuid, code=500,
                              message=msg, details="trace",
                              host="h1").create()
    objects.InstanceFault(ctx, instance_uuid=other.uuid, code=404,
                          message="gone").create()
    latest = objects.InstanceFault.get_latest_for_instance(ctx,
                                                           instance.uuid)
    assert latest.message.startswith("second") and len(latest.message) == 255
    both = objects.InstanceFaultList.get_latest_by_instance_uuids(
        ctx, [instance.uuid, other.uuid])
    assert sorted(f.code for f in both) == [404, 500]
    assert len(objects.InstanceFaultList.get_by_instance_uuids(
        ctx, [instance.uuid])) == 2
    got = objects.Instance.get_by_uuid(ctx, instance.uuid,
                                       expected_attrs=["fault"])
    assert got.fault.id == latest.id
    listed = objects.InstanceList.get_by_filters(
        ctx, {"uuid": [instance.uuid, other.uuid]}, expected_attrs=["fault"])
    assert {i.uuid: i.fault.code for i in listed} == {
        instance.uuid: 500, other.uuid: 404}
    assert objects.InstanceFault.get_latest_for_instance(
        ctx, uuidutils.generate_uuid()) is None


def test_event_finish_reads_action_and_event_at_once(ctx, instance):
    from tests.unit.objects.test_instance_statements import _statements

    objects.InstanceAction.action_start(ctx, instance.uuid, "reboot")
    objects.InstanceActionEvent.event_start(ctx, instance.uuid, "old_step")
    with pytest.raises(exception.InstanceActionNotFound):
        objects.InstanceActionEvent.event_finish(
            ctx, uuidutils.generate_uuid(), "old_step")
    with _statements() as seen:
        objects.InstanceActionEvent.event_finish(ctx, instance.uuid,
                                                 "old_step",
                                                 want_result=False)
    assert seen == ["SELECT", "UPDATE", "UPDATE"], seen
    # A newer action of the same request: its events only, as before.
    objects.InstanceAction.action_start(ctx, instance.uuid, "rebuild")
    with pytest.raises(exception.InstanceActionEventNotFound):
        objects.InstanceActionEvent.event_finish(ctx, instance.uuid,
                                                 "old_step")
    objects.InstanceActionEvent.event_start(ctx, instance.uuid, "old_step")
    done = objects.InstanceActionEvent.event_finish(ctx, instance.uuid,
                                                    "old_step")
    newest = objects.InstanceAction.get_by_request_id(ctx, instance.uuid,
                                                      ctx.request_id)
    assert done.action_id == newest.id and done.result == "Success"


def test_fault_create_is_one_insert_and_matches_a_reread(ctx, instance):
    from tests.unit.objects.test_instance_statements import _naive
    from tests.unit.objects.test_instance_statements import _statements

    fault = objects.InstanceFault(ctx, instance_uuid=instance.uuid, code=500,
                                  message="boom", details="trace",
                                  host="h1")
    with _statements() as seen:
        fault.create()
    assert seen == ["INSERT"], seen
    assert fault.id and not fault.obj_what_changed()
    got = objects.InstanceFault.get_latest_for_instance(ctx, instance.uuid)
    for name in fault.fields:
        assert fault.obj_attr_is_set(name) == got.obj_attr_is_set(name), \
            name
        if got.obj_attr_is_set(name):
            assert _naive(getattr(fault, name)) == \
                _naive(getattr(got, name)), name
