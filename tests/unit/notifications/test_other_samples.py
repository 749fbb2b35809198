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
