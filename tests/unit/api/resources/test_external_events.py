"""os-server-external-events through the API stack: per-event codes and
the 207 answer, and the external_instance_event cast delivered over the
in-process bus to the host's compute topic (a recording RPC server)."""
import threading

import oslo_messaging as messaging
import pytest

from keel.api import deploy
from keel.compute import rpcapi as compute_rpcapi
from keel.conf import CONF
from keel import context as keel_context
from keel import objects
from keel.rpc import serializer as rpc_serializer
from keel.rpc import transport as rpc_transport
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.resources.test_services import seed_services

V = "OpenStack-API-Version"
URL = "/v2.1/os-server-external-events"
MISSING = "9a1f1e9c-2b3c-4d5e-8f90-1a2b3c4d5e6f"


class Recorder:
    target = messaging.Target(version="6.5")

    def __init__(self):
        self.calls = []
        self.got = threading.Event()

    def external_instance_event(self, ctxt, instances, events):
        self.calls.append(([i.uuid for i in instances],
                           [(e.name, e.tag) for e in events]))
        self.got.set()


@pytest.fixture
def env(api_env, cells_db, conf):  # noqa: F811
    conf.config(transport_url="fake:/")
    # the sender is a service (Neutron, Cinder): the "service" role
    conf.config(development_roles=["admin", "service"], group="api")
    app = deploy.deploy(CONF)
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    rpc_transport.init()
    seed_services(cells_db)
    ctx = keel_context.get_admin_context()
    cell = cells_db.mapping(CELL1_UUID)
    cell.transport_url = "fake:/"
    cell.save()
    made = {}
    with keel_context.target_cell(ctx, cell) as cctxt:
        for name, host in (("placed", "host1"), ("unplaced", None)):
            inst = objects.Instance(cctxt, project_id="p", user_id="u",
                                    host=host)
            inst.create()
            objects.InstanceMapping(ctx, instance_uuid=inst.uuid,
                                    cell_mapping=cell,
                                    project_id="p").create()
            made[name] = inst.uuid
    recorder = Recorder()
    server = rpc_transport.get_server(
        messaging.Target(topic="compute-alt", server="host1"), [recorder],
        serializer=rpc_serializer.object_serializer())
    server.start()
    yield {"app": app, "uuids": made, "recorder": recorder}
    server.stop()
    server.wait()
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()


def _post(app, events, version="2.1"):
    return call(app, URL, "POST", {V: f"compute {version}"},
                {"events": events})


def test_sample_and_cast_to_the_host(env):
    req = samples.load("os-server-external-events/event-create-req.json")
    req["events"][0].update(server_uuid=env["uuids"]["placed"],
                            name="network-changed")
    resp = call(env["app"], URL, "POST", body=req)
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(resp.json, samples.load(
        "os-server-external-events/event-create-resp.json")) == []
    assert resp.json["events"][0]["code"] == 200
    assert env["recorder"].got.wait(10)
    assert env["recorder"].calls == [([env["uuids"]["placed"]],
                                      [("network-changed", "foo")])]


def test_partial_failure_is_207_with_codes(env):
    uuids = env["uuids"]
    resp = _post(env["app"], [
        {"name": "network-vif-plugged", "server_uuid": uuids["placed"]},
        {"name": "network-vif-plugged", "server_uuid": uuids["unplaced"]},
        {"name": "network-vif-plugged", "server_uuid": MISSING},
        {"name": "power-update", "server_uuid": uuids["placed"]},
    ], "2.76")
    assert resp.status_int == 207
    assert [(e["status"], e["code"]) for e in resp.json["events"]] == [
        ("completed", 200), ("failed", 422), ("failed", 404),
        ("failed", 400)]
    assert env["recorder"].got.wait(10)
    assert env["recorder"].calls[0][1] == [("network-vif-plugged", None)]


def test_power_update_records_an_instance_action(env):
    uuid = env["uuids"]["placed"]
    resp = _post(env["app"], [{"name": "power-update", "tag": "POWER_OFF",
                               "server_uuid": uuid}], "2.76")
    assert resp.status_int == 200
    actions = call(env["app"], f"/v2.1/servers/{uuid}/os-instance-actions"
                   ).json["instanceActions"]
    assert [a["action"] for a in actions] == ["stop"]


def test_names_by_microversion_and_bad_input(env):
    uuid = env["uuids"]["placed"]
    event = {"name": "volume-extended", "tag": "v", "server_uuid": uuid}
    assert _post(env["app"], [event], "2.50").status_int == 400
    assert _post(env["app"], [event], "2.51").status_int == 200
    assert _post(env["app"], [], "2.51").status_int == 400
    assert _post(env["app"], [{"name": "network-changed",
                               "server_uuid": "nope"}]).status_int == 400


def test_only_services_may_send(member_env):  # noqa: F811
    resp = _post(member_env, [{"name": "network-changed",
                               "server_uuid": MISSING}])
    assert resp.status_int == 403
