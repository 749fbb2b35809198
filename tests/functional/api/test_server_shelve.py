"""shelve, shelveOffload and unshelve end to end: API -> compute (fake
driver snapshot into the local image catalogue, destroy, Placement) ->
conductor (scheduler for an offloaded server) -> compute spawn."""
import time

import pytest

from keel.conf import CONF
from keel.notifications.testing import notification_capture  # noqa: F401
from keel import objects
from keel.virt import power_state
from tests.functional.api import moves_helpers as mh
from tests.functional.api.moves_helpers import sdk  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api import samples


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    cloud, launcher = mh.start(tmp_path_factory.mktemp("shelve"), count=2)
    yield cloud
    mh.stop(launcher)


@pytest.fixture
def keep_shelved():
    """Shelved servers stay on their host (no offload at shelve)."""
    CONF.set_override("shelved_offload_time", -1)
    yield
    CONF.clear_override("shelved_offload_time")


def _status(cloud, u, vm_state):
    return wait_for(lambda: (lambda i: i if i.vm_state == vm_state and
                             i.task_state is None else None)(
        mh.read(cloud, u)), timeout=30)


def _compute(cloud, host):
    return next(s.manager for s in cloud.services
                if s.binary == "nova-compute" and s.host == host)


def _other(cloud, host):
    return next(h for h in cloud.hosts if h != host)


def _events(cloud, u, action):
    return wait_for(lambda: [e for a, e in mh.actions(cloud, u)
                             if a == action and e and
                             all(r for _, r in e)], timeout=20)


def _shelve(cloud, server):
    assert mh.action(cloud, server.id, {"shelve": None}).status_int == 202


def _offloaded(cloud, sdk, server):  # noqa: F811
    _shelve(cloud, server)
    return _status(cloud, server.id, "shelved_offloaded")


def test_shelve_offload_unshelve_round_trip(
        cloud, sdk, keep_shelved, notification_capture):  # noqa: F811
    server = mh.boot(sdk)
    before = mh.allocations(cloud, server.id)
    sdk.compute.shelve_server(server)
    server = sdk.compute.wait_for_server(server, status="SHELVED",
                                         interval=0.1, wait=30)
    inst = _status(cloud, server.id, "shelved")
    image_id = inst.system_metadata["shelved_image_id"]
    assert inst.system_metadata["shelved_host"] == inst.host
    assert inst.system_metadata["shelved_at"]
    assert inst.power_state == power_state.SHUTDOWN
    image = wait_for(lambda: mh.image(image_id)["status"] == "active" and
                     mh.image(image_id))
    assert image["name"] == f"{server.name}-shelved"
    assert image["properties"]["image_type"] == "snapshot"
    assert mh.allocations(cloud, server.id) == before  # still on its host

    resp = mh.action(cloud, server.id, {"shelveOffload": None})
    assert resp.status_int == 202
    server = sdk.compute.wait_for_server(server, status="SHELVED_OFFLOADED",
                                         interval=0.1, wait=30)
    inst = _status(cloud, server.id, "shelved_offloaded")
    assert inst.host is None and inst.node is None
    assert inst.availability_zone is None
    assert mh.allocations(cloud, server.id) == {}
    end = notification_capture.wait_for("instance.shelve_offload.end")
    data = end["payload"]["nova_object.data"]
    assert data["state"] == "shelved_offloaded" and data["host"] is None

    sdk.compute.unshelve_server(server)
    server = sdk.compute.wait_for_server(server, status="ACTIVE",
                                         interval=0.1, wait=30)
    inst = _status(cloud, server.id, "active")
    assert inst.host and inst.power_state == power_state.RUNNING
    assert inst.availability_zone
    assert not {"shelved_at", "shelved_image_id", "shelved_host"} & set(
        inst.system_metadata)
    assert inst.image_ref == mh.IMAGE
    allocs = mh.allocations(cloud, server.id)
    assert [a["resources"] for a in allocs.values()] == \
        [a["resources"] for a in before.values()]
    assert wait_for(lambda: mh.image_gone(image_id))
    notification_capture.wait_for("instance.unshelve.end")

    def payload(event_type):
        found = notification_capture.wait_for(event_type)
        return found["payload"]["nova_object.data"]
    # The fields the reference samples set for each event.
    expected = {
        "instance.shelve.start": {"task_state": "shelving"},
        "instance.shelve.end": {"state": "shelved", "task_state": None,
                                "power_state": "shutdown"},
        "instance.shelve_offload.start": {
            "state": "shelved", "task_state": "shelving_offloading",
            "power_state": "shutdown"},
        "instance.shelve_offload.end": {
            "availability_zone": None, "state": "shelved_offloaded",
            "power_state": "shutdown", "host": None, "node": None},
        "instance.unshelve.start": {
            "state": "shelved_offloaded", "power_state": "shutdown",
            "task_state": "unshelving", "host": None, "node": None},
        "instance.unshelve.end": {"state": "active", "task_state": None,
                                  "power_state": "running"},
    }
    for event_type, fields in expected.items():
        data = payload(event_type)
        assert {k: data[k] for k in fields} == fields, event_type
    legacy = notification_capture.event_types(versioned=False)
    for event in ("compute.instance.shelve.start",
                  "compute.instance.shelve.end",
                  "compute.instance.shelve_offload.end",
                  "compute.instance.unshelve.end"):
        assert event in legacy
    assert _events(cloud, server.id, "shelve") == [
        [("compute_shelve_instance", "Success")]]
    assert _events(cloud, server.id, "shelveOffload") == [
        [("compute_shelve_offload_instance", "Success")]]
    assert _events(cloud, server.id, "unshelve") == [
        [("compute_unshelve_instance", "Success"),
         ("get_image_info", "Success"),
         ("schedule_instances", "Success")]]


def test_offload_time_zero_offloads_at_once(cloud, sdk):  # noqa: F811
    assert CONF.shelved_offload_time == 0    # Nova's default
    server = mh.boot(sdk)
    inst = _offloaded(cloud, sdk, server)
    assert inst.power_state == power_state.SHUTDOWN
    assert mh.allocations(cloud, server.id) == {}
    assert inst.system_metadata["shelved_image_id"]
    # One action, both steps in the one compute event.
    assert _events(cloud, server.id, "shelve") == [
        [("compute_shelve_instance", "Success")]]


def test_periodic_offloads_servers_shelved_long_enough(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    CONF.set_override("shelved_offload_time", 3600)
    try:
        _shelve(cloud, server)
        inst = _status(cloud, server.id, "shelved")
        mgr = _compute(cloud, inst.host)
        assert mgr._poll_shelved_instances(mh.cell_ctxt(cloud)) == 0
        CONF.set_override("shelved_offload_time", 1)
        time.sleep(1.2)
        assert mgr._poll_shelved_instances(mh.cell_ctxt(cloud)) == 1
    finally:
        CONF.clear_override("shelved_offload_time")
    inst = _status(cloud, server.id, "shelved_offloaded")
    assert inst.host is None
    assert wait_for(lambda: mh.allocations(cloud, server.id) == {})


def test_unshelve_of_a_shelved_server_powers_it_on_where_it_is(
        cloud, sdk, keep_shelved, notification_capture):  # noqa: F811
    server = mh.boot(sdk)
    host = server.compute_host
    _shelve(cloud, server)
    inst = _status(cloud, server.id, "shelved")
    image_id = inst.system_metadata["shelved_image_id"]
    resp = mh.action(cloud, server.id, {"unshelve": None})
    assert resp.status_int == 202
    inst = _status(cloud, server.id, "active")
    assert inst.host == host and inst.power_state == power_state.RUNNING
    assert "shelved_image_id" not in inst.system_metadata
    assert wait_for(lambda: mh.image_gone(image_id))
    assert _events(cloud, server.id, "unshelve") == [
        [("compute_start_instance", "Success")]]
    notification_capture.wait_for("instance.power_on.end")


def test_samples_at_their_microversions(cloud, sdk, keep_shelved):  # noqa: F811,E501
    def sample(name):
        return samples.load("os-shelve/" + name)

    server = mh.boot(sdk)
    for version, name in (("2.1", "os-shelve.json"),
                          ("2.77", "v2.77/os-shelve.json"),
                          ("2.91", "v2.91/os-shelve.json")):
        resp = mh.action(cloud, server.id, sample(name), version=version)
        assert resp.status_int == 202, resp.text
        _status(cloud, server.id, "shelved")
        resp = mh.action(cloud, server.id, sample("os-shelve-offload.json"),
                         version=version)
        assert resp.status_int == 202
        _status(cloud, server.id, "shelved_offloaded")
        unshelve = {"2.1": "os-unshelve.json",
                    "2.77": "v2.77/os-unshelve.json",
                    "2.91": "v2.91/os-unshelve-unpin-az.json"}[version]
        resp = mh.action(cloud, server.id, sample(unshelve), version=version)
        assert resp.status_int == 202, resp.text
        _status(cloud, server.id, "active")
    spec = objects.RequestSpec.get_by_instance_uuid(cloud.ctxt, server.id)
    assert spec.availability_zone is None


def test_unshelve_to_a_zone_and_a_host(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    zone = CONF.default_availability_zone
    _offloaded(cloud, sdk, server)
    body = {"unshelve": {"availability_zone": zone}}
    resp = mh.action(cloud, server.id, {"unshelve": {
        "availability_zone": "us-west"}}, version="2.77")
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        "The requested availability zone is not available"
    assert mh.action(cloud, server.id, {"unshelve": {"host": "x"}},
                     version="2.77").status_int == 400
    assert mh.action(cloud, server.id, body,
                     version="2.77").status_int == 202
    inst = _status(cloud, server.id, "active")
    spec = objects.RequestSpec.get_by_instance_uuid(cloud.ctxt, server.id)
    assert spec.availability_zone == zone
    assert inst.availability_zone == zone

    # 2.91: a named host (the other one), pinned zone kept.
    target = _other(cloud, inst.host)
    _offloaded(cloud, sdk, server)
    resp = mh.action(cloud, server.id, {"unshelve": {
        "availability_zone": zone, "host": "nohost"}}, version="2.91")
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        "Compute host nohost could not be found."
    resp = mh.action(cloud, server.id, {"unshelve": {"host": target}},
                     version="2.91")
    assert resp.status_int == 202, resp.text
    inst = _status(cloud, server.id, "active")
    assert inst.host == target
    spec = objects.RequestSpec.get_by_instance_uuid(cloud.ctxt, server.id)
    assert spec.availability_zone == zone
    assert spec.requested_destination is None    # not persisted


def test_host_outside_the_pinned_zone_and_zone_of_a_shelved_server(
        cloud, sdk, keep_shelved):  # noqa: F811
    server = mh.boot(sdk)
    _shelve(cloud, server)
    inst = _status(cloud, server.id, "shelved")
    resp = mh.action(cloud, server.id, {"unshelve": {
        "availability_zone": "nova"}}, version="2.77")
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f'Specifying an availability zone or a host when unshelving server '
        f'"{server.id}" with status "shelved" is not supported. The server '
        f'status must be SHELVED_OFFLOADED.')
    resp = mh.action(cloud, server.id, {"unshelve": {"host": inst.host}},
                     version="2.91")
    assert resp.status_int == 409

    agg = objects.Aggregate(cloud.ctxt, name="shelve-az2",
                            metadata={"availability_zone": "az2"})
    agg.create()
    agg.add_host(inst.host)
    try:
        resp = mh.action(cloud, server.id, {"shelveOffload": None})
        assert resp.status_int == 202
        _status(cloud, server.id, "shelved_offloaded")
        resp = mh.action(cloud, server.id, {"unshelve": {
            "availability_zone": CONF.default_availability_zone,
            "host": inst.host}}, version="2.91")
        assert resp.status_int == 409
        assert resp.json["conflictingRequest"]["message"] == (
            f'Host "{inst.host}" is not in the availability zone '
            f'"{CONF.default_availability_zone}".')
        resp = mh.action(cloud, server.id, {"unshelve": {
            "availability_zone": "az2", "host": inst.host}},
            version="2.91")
        assert resp.status_int == 202, resp.text
        done = _status(cloud, server.id, "active")
        assert done.host == inst.host and done.availability_zone == "az2"
    finally:
        agg.delete_host(inst.host)
        agg.destroy()


def test_wrong_states_and_locked(cloud, sdk, keep_shelved):  # noqa: F811
    server = mh.boot(sdk)
    resp = mh.action(cloud, server.id, {"unshelve": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'unshelve' instance {server.id} while it is in vm_state "
        f"active")
    resp = mh.action(cloud, server.id, {"shelveOffload": None})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == (
        f"Cannot 'shelveOffload' instance {server.id} while it is in "
        f"vm_state active")
    inst = mh.read(cloud, server.id)
    inst.task_state = "pausing"
    inst.save()
    resp = mh.action(cloud, server.id, {"shelve": None})
    assert resp.status_int == 409
    assert "task_state pausing" in resp.text
    inst.task_state = None
    inst.save()
    sdk.compute.stop_server(server)
    sdk.compute.wait_for_server(server, status="SHUTOFF", interval=0.1,
                                wait=30)
    _shelve(cloud, server)      # SHUTOFF shelves
    _status(cloud, server.id, "shelved")
    resp = mh.action(cloud, server.id, {"shelve": None})
    assert resp.status_int == 409
    inst = mh.read(cloud, server.id)
    inst.locked = True
    inst.locked_by = "owner"
    inst.save()
    from tests.unit.api.conftest import call
    from keel.api import deploy
    token = f"{inst.user_id}:{inst.project_id}"
    CONF.set_override("development_roles", ["member", "reader"], group="api")
    try:
        app = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")
    resp = call(app, f"/v2.1/servers/{server.id}/action", method="POST",
                body={"unshelve": None}, headers={"X-Auth-Token": token})
    assert resp.status_int == 409
    assert resp.json["conflictingRequest"]["message"] == \
        f"Instance {server.id} is locked"


def test_members_shelve_and_unshelve_but_admins_offload_and_pick_hosts(
        cloud, sdk, keep_shelved):  # noqa: F811
    from keel.api import deploy
    from tests.unit.api.conftest import call
    server = mh.boot(sdk)
    inst = mh.read(cloud, server.id)
    token = f"{inst.user_id}:{inst.project_id}"
    CONF.set_override("development_roles", ["member", "reader"], group="api")
    try:
        app = deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")

    def member(body, version="2.91"):
        return call(app, f"/v2.1/servers/{server.id}/action", method="POST",
                    body=body, headers={
                        "X-Auth-Token": token,
                        "OpenStack-API-Version": f"compute {version}"})
    assert member({"shelve": None}).status_int == 202
    _status(cloud, server.id, "shelved")
    resp = member({"shelveOffload": None})
    assert resp.status_int == 403
    assert "os_compute_api:os-shelve:shelve_offload" in resp.text
    assert mh.action(cloud, server.id,
                     {"shelveOffload": None}).status_int == 202
    _status(cloud, server.id, "shelved_offloaded")
    resp = member({"unshelve": {"host": inst.host}})
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-shelve:unshelve_to_host to "
        "be performed.")
    assert member({"unshelve": None}).status_int == 202
    _status(cloud, server.id, "active")


def test_no_valid_host_leaves_it_offloaded(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    _offloaded(cloud, sdk, server)
    spec = objects.RequestSpec.get_by_instance_uuid(cloud.ctxt, server.id)
    spec.flavor = objects.Flavor.get_by_flavor_id(cloud.ctxt, "mv.huge")
    spec.save()
    assert mh.action(cloud, server.id, {"unshelve": None}).status_int == 202
    events = _events(cloud, server.id, "unshelve")
    assert events == [[("get_image_info", "Success"),
                       ("schedule_instances", "Error")]]
    inst = _status(cloud, server.id, "shelved_offloaded")
    assert inst.host is None
    assert mh.allocations(cloud, server.id) == {}
    assert inst.system_metadata["shelved_image_id"]


def test_failed_spawn_leaves_it_offloaded_with_a_fault(cloud, sdk):  # noqa: F811,E501
    server = mh.boot(sdk)
    _offloaded(cloud, sdk, server)
    for host in cloud.hosts:
        mh.driver(cloud, host).inject_failure("spawn", times=1,
                                              instance_uuid=server.id)
    try:
        assert mh.action(cloud, server.id,
                         {"unshelve": None}).status_int == 202
        assert wait_for(lambda: ("compute_unshelve_instance", "Error") in
                        [ev for a, e in mh.actions(cloud, server.id)
                         if a == "unshelve" for ev in e])
    finally:
        for host in cloud.hosts:
            mh.driver(cloud, host).clear_failures("spawn")
    inst = _status(cloud, server.id, "shelved_offloaded")
    assert inst.host is None and inst.node is None
    assert inst.image_ref == mh.IMAGE
    assert inst.system_metadata["shelved_image_id"]
    assert wait_for(lambda: mh.allocations(cloud, server.id) == {})
    faults = objects.InstanceFaultList.get_by_instance_uuids(
        mh.cell_ctxt(cloud), [server.id])
    assert "spawn" in faults[0].message
    # It can still be unshelved.
    assert mh.action(cloud, server.id, {"unshelve": None}).status_int == 202
    _status(cloud, server.id, "active")


def test_failed_snapshot_ends_the_shelve_with_a_fault(
        cloud, sdk, keep_shelved):  # noqa: F811
    server = mh.boot(sdk)
    mh.driver(cloud, server.compute_host).inject_failure(
        "snapshot", times=1, instance_uuid=server.id)
    _shelve(cloud, server)
    assert wait_for(lambda: [("compute_shelve_instance", "Error")] in
                    [e for a, e in mh.actions(cloud, server.id)
                     if a == "shelve"])
    inst = mh.idle(cloud, server.id)
    assert inst.vm_state == "active" and inst.task_state is None
    assert "shelved_image_id" not in inst.system_metadata


def test_availability_zone_before_277_is_ignored(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    _offloaded(cloud, sdk, server)
    resp = mh.action(cloud, server.id, {"unshelve": {
        "availability_zone": "us-west"}}, version="2.76")
    assert resp.status_int == 202
    _status(cloud, server.id, "active")
    spec = objects.RequestSpec.get_by_instance_uuid(cloud.ctxt, server.id)
    assert spec.availability_zone is None
