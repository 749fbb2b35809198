"""Instance faults as Nova records them: code and message from keel's own
exceptions, only the class name of foreign ones, traceback for 500s."""
import sys

from keel.compute import faults
from keel import exception
from keel import objects
from tests.unit.compute.resources.test_tracker import ctx  # noqa: F401


def test_exception_to_dict():
    got = faults.exception_to_dict(exception.InstanceNotFound(
        instance_id="abc"))
    assert got == {"code": 404, "message": "Instance abc could not be "
                   "found."}
    # A foreign exception's text may hold internals: class name only.
    got = faults.exception_to_dict(ValueError("password=hunter2"))
    assert got == {"code": 500, "message": "ValueError"}
    got = faults.exception_to_dict(ValueError("x"), message="m" * 300)
    assert got["message"] == "m" * 255


def _instance(ctx):
    inst = objects.Instance(ctx, uuid="2f0e2f5e-3a51-4c51-9d8e-8a1b2c3d4e5f",
                            project_id="p", user_id="u", vm_state="building")
    inst.create()
    return inst


def test_add_fault_with_traceback_for_500(ctx):  # noqa: F811
    inst = _instance(ctx)
    try:
        raise exception.BuildAbortException(instance_uuid=inst.uuid,
                                            reason="no disk")
    except exception.BuildAbortException as exc:
        faults.add_instance_fault_from_exc(ctx, inst, exc, sys.exc_info(),
                                           host="h1")
    fault = objects.InstanceFault.get_latest_for_instance(ctx, inst.uuid)
    assert (fault.code, fault.host) == (500, "h1")
    assert fault.message == ("Build of instance %s aborted: no disk"
                             % inst.uuid)
    assert "Traceback" in fault.details


def test_add_fault_without_details_below_500(ctx):  # noqa: F811
    inst = _instance(ctx)
    try:
        raise exception.InstanceInvalidState(
            attr="vm_state", instance_uuid=inst.uuid, state="error",
            method="x")
    except exception.InstanceInvalidState as exc:
        faults.add_instance_fault_from_exc(ctx, inst, exc, sys.exc_info())
    fault = objects.InstanceFault.get_latest_for_instance(ctx, inst.uuid)
    assert fault.code == 400 and fault.details == ""
