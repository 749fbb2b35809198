"""scheduler.select_destinations.* and keypair.* against Nova's samples."""
import pytest

from keel import objects
from keel.notifications import others
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications import conftest as c
from tests.unit.notifications.test_versioned_samples import _check
from tests.unit.notifications.test_versioned_samples import _request_spec


@pytest.mark.parametrize("phase", ["start", "end"])
def test_select_destinations(ctx, phase):
    inst = c.make_instance(ctx)
    spec = _request_spec(ctx, inst)
    with NotificationCapture(fmt="versioned") as cap:
        others.notify_about_scheduler_action(
            ctx, spec, "select_destinations", phase=phase, host="fake-mini")
        sent = cap.wait_for("scheduler.select_destinations.%s" % phase)
    _check(sent, "scheduler-select_destinations-%s.json" % phase)
    assert sent["publisher_id"] == "nova-scheduler:fake-mini"


@pytest.mark.parametrize("action", ["create", "import", "delete"])
@pytest.mark.parametrize("phase", ["start", "end"])
def test_keypair(ctx, action, phase):
    keypair = objects.KeyPair(
        name="my-key", user_id="fake", type="ssh",
        public_key=c.PUBLIC_KEY,
        fingerprint="1e:2c:9b:56:79:4b:45:77:f9:ca:7a:98:2c:b0:d5:3c")
    with NotificationCapture(fmt="versioned") as cap:
        others.notify_about_keypair_action(ctx, keypair, action, phase,
                                           host="fake-mini")
        sent = cap.wait_for("keypair.%s.%s" % (action, phase))
    _check(sent, "keypair-%s-%s.json" % (action, phase))
    assert sent["publisher_id"] == "nova-api:fake-mini"
    assert sent["payload"]["nova_object.data"]["name"] == "my-key"


def test_service_update(ctx):
    service = objects.Service(
        ctx, host="host1", binary="nova-compute", topic="compute",
        report_count=1, disabled=False, disabled_reason=None,
        availability_zone=None, forced_down=False,
        uuid="fa69c544-906b-4a6a-a9c6-c1f7a8078c73", last_seen_up=None)
    service.create()
    with NotificationCapture(fmt="versioned") as cap:
        for action in ("create", "update", "delete"):
            others.notify_about_service(ctx, service, action)
        sent = {n["event_type"]: n for n in cap.versioned}
    for action in ("create", "update", "delete"):
        _check(sent["service.%s" % action], "service-%s.json" % action)
        assert sent["service.%s" % action]["publisher_id"] == \
            "nova-compute:host1"


@pytest.mark.parametrize("action", ["create", "update", "delete"])
def test_flavor(ctx, action):
    flavor = c.make_flavor()
    flavor.projects = []
    with NotificationCapture(fmt="versioned") as cap:
        others.notify_about_flavor(ctx, flavor, action, host="fake-mini")
        sent = cap.wait_for("flavor.%s" % action)
    _check(sent, "flavor-%s.json" % action)


AGGREGATE_SAMPLES = ["create", "delete", "add_host", "remove_host",
                     "update_metadata", "update_prop", "cache_images"]


@pytest.mark.parametrize("action", AGGREGATE_SAMPLES)
@pytest.mark.parametrize("phase", ["start", "end"])
def test_aggregate(ctx, action, phase):
    aggregate = objects.Aggregate(
        id=1, uuid="788608ec-ebdc-45c5-bc7f-e5f24ab92c80",
        name="my-aggregate", hosts=["compute"],
        metadata={"availability_zone": "nova"})
    with NotificationCapture(fmt="versioned") as cap:
        others.notify_about_aggregate_action(ctx, aggregate, action, phase,
                                             host="fake-mini")
        sent = cap.wait_for("aggregate.%s.%s" % (action, phase))
    _check(sent, "aggregate-%s-%s.json" % (action, phase))


@pytest.mark.parametrize("action", ["create", "delete", "add_member"])
def test_server_group(ctx, action):
    group = objects.InstanceGroup(
        uuid="788608ec-ebdc-45c5-bc7f-e5f24ab92c80",
        name="test-server-group", project_id=ctx.project_id,
        user_id=ctx.user_id, policies=["anti-affinity"],
        policy="anti-affinity", _rules={"max_server_per_host": "3"},
        members=[], hosts=None)
    with NotificationCapture(fmt="versioned") as cap:
        others.notify_about_server_group_action(ctx, group, action,
                                                host="fake-mini")
        sent = cap.wait_for("server_group.%s" % action)
    _check(sent, "server_group-%s.json" % action)
