"""Boots that reach the computes: ACTIVE with the claim in Placement, a
spawn failure rescheduled to the alternate (allocations move), and every
host failing (ERROR with Nova's retries fault)."""
import threading

import pytest

from keel import context as keel_context
from keel import exception
from keel import objects
from keel.virt import fake
from tests.functional.boot.conftest import allocations
from tests.functional.boot.conftest import api_server
from tests.functional.boot.conftest import cell_of
from tests.functional.boot.conftest import compute_driver
from tests.functional.boot.conftest import settled
from tests.functional.fixtures_services import CELL1_UUID


def node_of(cloud, host):
    return cloud.nodes(host)[0].uuid


@pytest.fixture
def fail_first_spawn(cloud, monkeypatch):
    """The first spawn tried for a server fails, on whichever host the
    scheduler put first (the weighers' order is not the test's business);
    returns {instance uuid: [hosts tried, in order]}."""
    tried = {}
    lock = threading.Lock()
    for host in cloud.hosts:
        driver = compute_driver(cloud, host)

        def spawn(context, instance, *a, _host=host, _real=driver.spawn,
                  **kw):
            with lock:
                hosts = tried.setdefault(instance.uuid, [])
                hosts.append(_host)
                first = len(hosts) == 1
            if first:
                raise fake.FakeDriverError(operation="spawn")
            return _real(context, instance, *a, **kw)
        monkeypatch.setattr(driver, "spawn", spawn)
    return tried


@pytest.fixture
def failing(cloud, monkeypatch):
    """Make spawns fail on the given hosts until the test ends; returns
    {host: [instance uuids whose spawn was tried there]}."""
    drivers = []
    tried = {}

    def _fail(*hosts):
        for host in hosts:
            driver = compute_driver(cloud, host)
            driver.inject_failure("spawn")
            drivers.append(driver)
            real_spawn = driver.spawn

            def spawn(context, instance, *a, _host=host, _real=real_spawn,
                      **kw):
                tried.setdefault(_host, []).append(instance.uuid)
                return _real(context, instance, *a, **kw)
            monkeypatch.setattr(driver, "spawn", spawn)
        return tried
    yield _fail
    for driver in drivers:
        driver.clear_failures("spawn")


def events_of(ctxt, instance_uuid):
    cell = cell_of(ctxt, instance_uuid)
    with keel_context.target_cell(ctxt, cell) as cctxt:
        (action,) = objects.InstanceActionList.get_by_instance_uuid(
            cctxt, instance_uuid)
        return action, [(e.event, e.result, e.host) for e in
                        objects.InstanceActionEventList.get_by_action(
                            cctxt, action.id)]


def test_boot_goes_active_with_its_claim(cloud, ctxt, boot, http_endpoint):
    (vm,) = boot(name="plain")

    inst = settled(ctxt, vm.uuid)
    assert inst is not None and inst.vm_state == "active", inst
    assert inst.task_state is None and inst.host in cloud.hosts
    assert cell_of(ctxt, vm.uuid).uuid == CELL1_UUID
    with pytest.raises(exception.BuildRequestNotFound):
        objects.BuildRequest.get_by_instance_uuid(ctxt, vm.uuid)
    allocs = allocations(cloud, vm.uuid)
    assert list(allocs) == [node_of(cloud, inst.host)]
    assert allocs[node_of(cloud, inst.host)]["resources"] == {
        "VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}
    action, events = events_of(ctxt, vm.uuid)
    assert action.action == "create" and action.request_id == \
        ctxt.request_id
    assert events and all(result == "Success" for _, result, _ in events)
    server = api_server(ctxt, http_endpoint, vm.uuid)
    assert server["status"] == "ACTIVE"
    assert server["tags"] == ["blue"]


def test_spawn_failure_is_rescheduled_to_the_alternate(
        cloud, ctxt, boot, fail_first_spawn):
    (vm,) = boot(name="resched")

    inst = settled(ctxt, vm.uuid)
    assert inst is not None and inst.vm_state == "active", inst
    first, second = fail_first_spawn[vm.uuid]
    assert first != second and inst.host == second
    # The failed host's claim is gone; only the alternate's remains.
    assert list(allocations(cloud, vm.uuid)) == [node_of(cloud, second)]
    assert vm.uuid not in compute_driver(cloud, first).list_instance_uuids()
    assert vm.uuid in compute_driver(cloud, second).list_instance_uuids()


def test_every_host_failing_ends_in_error_with_the_retries_fault(
        cloud, ctxt, boot, failing, http_endpoint):
    tried = failing(*cloud.hosts)
    (vm,) = boot(name="doomed")

    inst = settled(ctxt, vm.uuid, states=("error",))
    assert inst is not None, "the instance did not go to ERROR"
    assert inst.task_state is None
    assert sorted(tried) == sorted(cloud.hosts)
    assert all(uuids == [vm.uuid] for uuids in tried.values())
    assert allocations(cloud, vm.uuid) == {}
    server = api_server(ctxt, http_endpoint, vm.uuid)
    assert server["status"] == "ERROR"
    assert server["fault"]["message"] == (
        "Exceeded maximum number of retries. Exhausted all hosts available "
        "for retrying build failures for instance %s." % vm.uuid)
