"""evacuate end to end on two fake-driver computes: the source's service
is forced down, the API records an evacuation migration and the conductor
has the server rebuilt on the other host (scheduled, or forced); the
source cleans up (guest, allocations, migration) when it starts again."""
import contextlib

import pytest

from keel.api import deploy
from keel.compute.ops import evacuate as evacuate_ops
from keel.conf import CONF
from keel import objects
from keel.virt import power_state
from tests.functional.api import moves_helpers as mh
from tests.functional.api.moves_helpers import sdk  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api import samples
from tests.unit.api.conftest import call


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    cloud, launcher = mh.start(tmp_path_factory.mktemp("evacuate"), count=2)
    yield cloud
    mh.stop(launcher)


@contextlib.contextmanager
def source_down(cloud, host):
    service = objects.Service.get_by_compute_host(mh.cell_ctxt(cloud), host)
    service.forced_down = True
    service.save()
    try:
        yield
    finally:
        service.forced_down = False
        service.save()


def _manager(cloud, host):
    return next(s.manager for s in cloud.services
                if s.binary == "nova-compute" and s.host == host)


def _node(cloud, host):
    return cloud.nodes(host)[0].uuid


def _migration(cloud, u):
    return objects.MigrationList.get_by_filters(
        mh.cell_ctxt(cloud), {"instance_uuid": u,
                              "migration_type": "evacuation"})[0]


def _other(cloud, host):
    return next(h for h in cloud.hosts if h != host)


def _settled(cloud, u, host):
    return wait_for(lambda: (lambda i: i.task_state is None and
                             i.host == host and i)(mh.read(cloud, u)),
                    timeout=30)


def test_evacuate_to_the_scheduled_host_then_the_source_cleans_up(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    source = server.compute_host
    dest = _other(cloud, source)
    resp = mh.action(cloud, server.id, {"evacuate": {}}, version="2.14")
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        f"Compute service of {source} is still in use."
    with source_down(cloud, source):
        resp = mh.action(cloud, server.id, {"evacuate": {}},
                         version="2.14")
        assert resp.status_int == 200, resp.text
        assert not resp.body
        inst = _settled(cloud, server.id, dest)
        assert (inst.vm_state, inst.power_state) == ("active",
                                                     power_state.RUNNING)
        assert server.id in mh.driver(cloud, dest)._instances
        migration = _migration(cloud, server.id)
        assert (migration.source_compute, migration.status) == (source,
                                                                "done")
        # The instance holds both hosts until the source is back.
        assert set(mh.allocations(cloud, server.id)) == {
            _node(cloud, source), _node(cloud, dest)}
        names = [a for a, _ in mh.actions(cloud, server.id)]
        assert names == ["create", "evacuate"]
        assert dict(mh.actions(cloud, server.id))["evacuate"] == [
            ("compute_rebuild_instance", "Success"),
            ("rebuild_server", "Success")]
    # The source starts again: its stale guest goes, and its allocations.
    assert server.id in mh.driver(cloud, source)._instances
    assert evacuate_ops.destroy_evacuated_instances(
        _manager(cloud, source), cloud.ctxt) == {server.id}
    assert server.id not in mh.driver(cloud, source)._instances
    assert list(mh.allocations(cloud, server.id)) == [_node(cloud, dest)]
    assert _migration(cloud, server.id).status == "completed"
    sdk.compute.wait_for_server(server, status="ACTIVE", interval=0.1,
                                wait=30)


def test_forced_host_and_the_old_answer_with_the_password(
        cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    source = server.compute_host
    dest = _other(cloud, source)
    body = samples.load("os-evacuate/server-evacuate-req.json")
    body["evacuate"]["host"] = dest
    with source_down(cloud, source):
        resp = mh.action(cloud, server.id, body, version="2.1")
        assert resp.status_int == 200, resp.text
        assert samples.shape_differences(resp.json, samples.load(
            "os-evacuate/server-evacuate-resp.json")) == []
        assert resp.json["adminPass"] == body["evacuate"]["adminPass"]
        _settled(cloud, server.id, dest)
        assert set(mh.allocations(cloud, server.id)) == {
            _node(cloud, source), _node(cloud, dest)}
    evacuate_ops.destroy_evacuated_instances(_manager(cloud, source),
                                             cloud.ctxt)


def test_a_stopped_server_and_2_95_end_stopped(cloud, sdk):  # noqa: F811
    for version, stop in (("2.29", True), ("2.95", False)):
        server = mh.boot(sdk)
        source = server.compute_host
        if stop:
            sdk.compute.stop_server(server)
            sdk.compute.wait_for_server(server, status="SHUTOFF",
                                        interval=0.1, wait=30)
        dest = _other(cloud, source)
        with source_down(cloud, source):
            resp = mh.action(cloud, server.id, {"evacuate": {}},
                             version=version)
            assert resp.status_int == 200, resp.text
            assert wait_for(lambda: (lambda i: i.task_state is None and
                                     i.vm_state == "stopped" and
                                     i.host == dest)(
                mh.read(cloud, server.id)), timeout=30)
            assert mh.read(cloud, server.id).power_state == \
                power_state.SHUTDOWN
        evacuate_ops.destroy_evacuated_instances(_manager(cloud, source),
                                                 cloud.ctxt)


def test_bad_requests(cloud, sdk):  # noqa: F811
    server = mh.boot(sdk)
    source = server.compute_host
    with source_down(cloud, source):
        resp = mh.action(cloud, server.id,
                         {"evacuate": {"host": "nowhere"}}, version="2.29")
        assert resp.status_int == 404
        assert resp.json["itemNotFound"]["message"] == \
            "Compute host nowhere not found."
        resp = mh.action(cloud, server.id, {"evacuate": {"host": source}},
                         version="2.29")
        assert resp.status_int == 400
        assert resp.json["badRequest"]["message"] == \
            "The target host can't be the same one."
        resp = mh.action(cloud, server.id, {"evacuate": {"force": True}},
                         version="2.29")
        assert resp.status_int == 400
        assert resp.json["badRequest"]["message"] == \
            "Can't force to a non-provided destination"
        resp = mh.action(cloud, server.id, {"evacuate": {
            "onSharedStorage": True, "adminPass": "x"}}, version="2.1")
        assert resp.status_int == 400
        assert resp.json["badRequest"]["message"] == \
            "admin password can't be changed on existing disk"
        resp = mh.action(cloud, server.id, {"evacuate": {"force": True}},
                         version="2.68")
        assert resp.status_int == 400
        # Only administrators evacuate.
        CONF.set_override("development_roles", ["member", "reader"],
                          group="api")
        try:
            member = deploy.deploy(CONF)
        finally:
            CONF.clear_override("development_roles", group="api")
        inst = mh.read(cloud, server.id)
        resp = call(member, f"/v2.1/servers/{server.id}/action",
                    method="POST", body={"evacuate": {}},
                    headers={"OpenStack-API-Version": "compute 2.14",
                             "X-Auth-Token": f"u:{inst.project_id}"})
        assert resp.status_int == 403, resp.text
    assert mh.read(cloud, server.id).task_state is None
