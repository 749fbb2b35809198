"""Boots that never reach a compute: no valid host (cell0) and a delete
that races the scheduling (the BuildRequest commit point)."""
import pytest

from keel.conductor.tasks import lookups
from keel import context as keel_context
from keel import exception
from keel import objects
from tests.functional.boot.conftest import allocations
from tests.functional.boot.conftest import api_get
from tests.functional.boot.conftest import api_server
from tests.functional.boot.conftest import cell_of
from tests.functional.boot.conftest import compute_driver
from tests.functional.boot.conftest import settled
from tests.functional.fixtures_services import wait_for

# Placement has no candidate: the scheduler gives no reason, as Nova's.
NO_HOST = "No valid host was found. "


def test_flavor_too_big_ends_in_cell0_with_the_fault(cloud, ctxt, boot,
                                                     http_endpoint):
    (vm,) = boot(memory_mb=10 ** 8, name="huge")

    inst = settled(ctxt, vm.uuid, states=("error",))
    assert inst is not None, "the instance was not buried in cell0"
    assert cell_of(ctxt, vm.uuid).uuid == objects.CellMapping.CELL0_UUID
    with pytest.raises(exception.BuildRequestNotFound):
        objects.BuildRequest.get_by_instance_uuid(ctxt, vm.uuid)
    assert allocations(cloud, vm.uuid) == {}

    server = api_server(ctxt, http_endpoint, vm.uuid)
    assert server["status"] == "ERROR"
    assert server["fault"]["message"] == NO_HOST
    assert server["fault"]["code"] == 500
    assert server["tags"] == ["blue"]

    resp = api_get(ctxt, http_endpoint, "/servers/%s/os-instance-actions/%s"
                   % (vm.uuid, ctxt.request_id))
    assert resp.status_code == 200, resp.text
    action = resp.json()["instanceAction"]
    assert action["action"] == "create" and action["message"] == "Error"
    assert [e["event"] for e in action["events"]] == [
        "conductor_schedule_and_build_instances"]
    assert action["events"][0]["result"] == "Error"


def test_multi_create_that_does_not_fit_buries_all(cloud, ctxt, boot):
    vms = boot(count=3, memory_mb=10 ** 8, name="many")
    for vm in vms:
        assert settled(ctxt, vm.uuid, states=("error",)) is not None
        assert cell_of(ctxt, vm.uuid).uuid == \
            objects.CellMapping.CELL0_UUID
        assert allocations(cloud, vm.uuid) == {}


@pytest.fixture
def delete_at_commit_point(monkeypatch, ctxt):
    """The user's DELETE lands between the cell record and the
    BuildRequest's removal (the API deletes the BuildRequest)."""
    real_commit = lookups.commit_build
    deleted = []

    def delete_then_commit(context, instance_uuid, cell):
        objects.BuildRequest.get_by_instance_uuid(
            ctxt, instance_uuid).destroy()
        deleted.append(instance_uuid)
        return real_commit(context, instance_uuid, cell)
    monkeypatch.setattr(lookups, "commit_build", delete_then_commit)
    return deleted


def test_delete_during_scheduling_builds_nothing(cloud, ctxt, boot,
                                                 delete_at_commit_point):
    (vm,) = boot(name="racy")

    assert wait_for(lambda: delete_at_commit_point == [vm.uuid], timeout=10)

    def undone():
        cell = cell_of(ctxt, vm.uuid)
        if cell is None:
            return False
        with keel_context.target_cell(ctxt, cell) as cctxt:
            try:
                objects.Instance.get_by_uuid(cctxt, vm.uuid)
            except exception.InstanceNotFound:
                return allocations(cloud, vm.uuid) == {}
        return False
    assert wait_for(undone, timeout=10), "the instance was not undone"
    # Nothing was built on any host.
    for host in cloud.hosts:
        assert vm.uuid not in compute_driver(cloud, host).list_instance_uuids()


def test_placement_unreachable_is_a_clean_cell0_error(cloud, ctxt, boot,
                                                      monkeypatch):
    from keel.clients import report

    # Nothing listens there: every call to Placement fails to connect.
    monkeypatch.setattr(cloud.scheduler.driver, "_report",
                        report.ReportClient.for_endpoint(
                            "http://127.0.0.1:9/placement"))
    (vm,) = boot(name="no-placement")

    inst = settled(ctxt, vm.uuid, states=("error",))
    assert inst is not None, "not buried in cell0"
    assert cell_of(ctxt, vm.uuid).uuid == objects.CellMapping.CELL0_UUID
    with keel_context.target_cell(ctxt, cell_of(ctxt, vm.uuid)) as cctxt:
        fault = objects.InstanceFault.get_latest_for_instance(cctxt, vm.uuid)
    assert fault.message == NO_HOST
    with pytest.raises(exception.BuildRequestNotFound):
        objects.BuildRequest.get_by_instance_uuid(ctxt, vm.uuid)
