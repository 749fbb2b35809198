"""@wrap_exception: legacy <method> and versioned compute.exception, then
the original exception."""
import pytest

from keel import exception
from keel.notifications import exception_wrapper
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications.test_versioned_samples import _check


class Manager:
    # Nova's sample was sent from an API service.
    @exception_wrapper.wrap_exception(service="compute", binary="nova-api")
    def rebuild_instance(self, context, instance_uuid, admin_password=None,
                         force=False):
        raise exception.InstanceNotFound(instance_id=instance_uuid)


def test_reports_and_reraises(ctx):
    with NotificationCapture(fmt="both") as cap:
        with pytest.raises(exception.InstanceNotFound):
            Manager().rebuild_instance(ctx, "u-1", admin_password="secret",
                                       force=True)
        versioned = cap.wait_for("compute.exception")
        legacy = cap.wait_for("rebuild_instance", versioned=False)
    _check(versioned, "compute-exception.json")
    assert legacy["publisher_id"].startswith("compute.")
    data = versioned["payload"]["nova_object.data"]
    assert data["exception"] == "InstanceNotFound"
    assert data["function_name"] == "rebuild_instance"
    assert data["module_name"] == __name__
    assert legacy["priority"] == "ERROR"
    assert legacy["payload"]["args"] == {"instance_uuid": "u-1",
                                         "force": True}
    assert "admin_password" not in str(legacy["payload"])


def test_off_costs_nothing_and_still_raises(ctx):
    with pytest.raises(exception.InstanceNotFound):
        Manager().rebuild_instance(ctx, "u-1")
