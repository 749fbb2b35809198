"""Deletes racing a boot through the real pipeline (super-conductor,
scheduler, Placement, fake-driver computes): whenever the DELETE lands —
before scheduling, while scheduling, at the conductor's commit point,
while the compute builds, after ACTIVE — the server ends gone: no live
record in any cell, no BuildRequest, no allocation, no guest."""
import threading
import time
import uuid

import pytest

from keel.conductor import rpcapi as conductor_rpcapi
from keel import context as keel_context
from keel import exception
from keel import objects
from tests.functional.boot import helpers
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call


@pytest.fixture
def ctxt(cloud):  # noqa: F811
    # A project of its own: other tests' servers do not count here.
    return keel_context.RequestContext(
        user_id=helpers.USER, project_id=uuid.uuid4().hex, is_admin=False,
        roles=["member", "reader"])


@pytest.fixture
def slow_spawn(cloud):  # noqa: F811
    """Spawns take a while, so deletes can land while computes build."""
    drivers = [s.manager.driver for s in cloud.services
               if s.binary == "nova-compute"]
    for driver in drivers:
        driver.spawn_delay = 0.3
    yield
    for driver in drivers:
        driver.spawn_delay = 0


def _boot(ctxt):
    boots, kwargs = helpers.boot_request(ctxt)
    conductor_rpcapi.ComputeTaskAPI().schedule_and_build_instances(
        ctxt, **kwargs)
    return boots[0].uuid


def _delete(cloud, ctxt, u):  # noqa: F811
    return call(cloud.app, f"/v2.1/servers/{u}", method="DELETE",
                headers={"X-Auth-Token": f"{ctxt.user_id}:"
                                         f"{ctxt.project_id}"})


def _gone(cloud, u):  # noqa: F811
    """True when nothing of server ``u`` is left alive anywhere."""
    admin = cloud.ctxt
    try:
        objects.BuildRequest.get_by_instance_uuid(admin, u)
        return False
    except exception.BuildRequestNotFound:
        pass
    for cell in objects.CellMappingList.get_all(admin):
        with keel_context.target_cell(admin, cell) as cctxt:
            try:
                objects.Instance.get_by_uuid(cctxt, u)
                return False
            except exception.InstanceNotFound:
                pass
    if cloud.placement.get_allocations(admin, u).get("allocations"):
        return False
    return not any(u in s.manager.driver.list_instance_uuids()
                   for s in cloud.services if s.binary == "nova-compute")


def _phase(cloud, u):  # noqa: F811
    """Where the boot of ``u`` is: build_request, unclaimed (in a cell, no
    host yet), building (on a host) or active."""
    try:
        objects.BuildRequest.get_by_instance_uuid(cloud.ctxt, u)
        return "build_request"
    except exception.BuildRequestNotFound:
        pass
    mapping = objects.InstanceMapping.get_by_instance_uuid(cloud.ctxt, u)
    if mapping.cell_mapping is None:
        return None
    with keel_context.target_cell(cloud.ctxt, mapping.cell_mapping) as c:
        inst = objects.Instance.get_by_uuid(c, u)
    if inst.vm_state == "active":
        return "active"
    return "building" if inst.host else "unclaimed"


@pytest.fixture
def held_builds(cloud, monkeypatch):  # noqa: F811
    """Computes wait a moment before they start a build: the instance sits
    in its cell, committed by the conductor, with no host yet."""
    for svc in cloud.services:
        if svc.binary != "nova-compute":
            continue
        real = svc.manager.build_and_run_instance

        def held(*args, _real=real, **kwargs):
            time.sleep(0.6)
            return _real(*args, **kwargs)
        monkeypatch.setattr(svc.manager, "build_and_run_instance", held)


def _delete_in_phase(cloud, ctxt, wanted):  # noqa: F811
    u = _boot(ctxt)
    if wanted != "build_request":
        assert wait_for(lambda: _phase(cloud, u) == wanted, timeout=15,
                        interval=0.01), \
            f"never saw {wanted}: {_phase(cloud, u)}"
    seen = _phase(cloud, u)
    resp = _delete(cloud, ctxt, u)
    assert resp.status_int == 204, resp.text
    assert seen == wanted
    assert wait_for(lambda: _gone(cloud, u), timeout=15), \
        f"server {u} deleted while {wanted} left something behind"
    # And the API agrees.
    assert wait_for(lambda: _delete(cloud, ctxt, u).status_int == 404,
                    timeout=5)


def test_delete_before_scheduling(cloud, ctxt):  # noqa: F811
    _delete_in_phase(cloud, ctxt, "build_request")


def test_delete_after_commit_before_the_compute_claims(
        cloud, ctxt, held_builds):  # noqa: F811
    _delete_in_phase(cloud, ctxt, "unclaimed")


def test_delete_while_the_compute_builds(cloud, ctxt, slow_spawn):  # noqa: F811
    _delete_in_phase(cloud, ctxt, "building")


def test_delete_active(cloud, ctxt):  # noqa: F811
    _delete_in_phase(cloud, ctxt, "active")


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.4])
def test_delete_at_arbitrary_moments(cloud, ctxt, slow_spawn, delay):  # noqa: F811
    u = _boot(ctxt)
    time.sleep(delay)
    assert _delete(cloud, ctxt, u).status_int == 204
    assert wait_for(lambda: _gone(cloud, u), timeout=15)


def test_concurrent_deletes_of_one_server(cloud, ctxt, slow_spawn):  # noqa: F811
    u = _boot(ctxt)
    time.sleep(0.1)
    answers = []

    def delete():
        answers.append(_delete(cloud, ctxt, u).status_int)
    threads = [threading.Thread(target=delete) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    # Each answer is a success or "already gone"; never a 500 or 409.
    assert answers and set(answers) <= {204, 404}, answers
    assert wait_for(lambda: _gone(cloud, u), timeout=15)
