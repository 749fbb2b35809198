"""os-assisted-volume-snapshots through the API stack on SQLite cells: the
samples at 2.1, the casts to the instance's compute, Nova's 400s (unknown
or multi-attached volume, instance without host or busy, bad delete_info),
the service-role policy, and the compute side without driver support."""
import datetime
import json
import urllib.parse
import uuid

import pytest

from keel.compute import rpcapi as compute_rpcapi
from keel.compute.ops import volume_snapshots
from keel import context as keel_context
from keel import exception
from keel import objects
from keel.conf import CONF
from keel.api import deploy
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call

VOLUME = "521752a6-acf6-4b2d-bc7a-119f9148cd8c"
SNAPSHOT = "421752a6-acf6-4b2d-bc7a-119f9148cd8c"
REQ = "os-assisted-volume-snapshots/snapshot-create-assisted-req.json"
RESP = "os-assisted-volume-snapshots/snapshot-create-assisted-resp.json"


@pytest.fixture
def service_env(cells_db, conf):  # noqa: F811
    conf.config(auth_strategy="keel-development", group="api")
    conf.config(development_roles=["service"], group="api")
    return deploy.deploy(CONF)


@pytest.fixture
def casts(monkeypatch):
    made = []
    monkeypatch.setattr(
        compute_rpcapi.ComputeAPI, "volume_snapshot_create",
        lambda self, ctxt, instance, volume_id, create_info: made.append(
            ("create", instance.host, volume_id, create_info)))
    monkeypatch.setattr(
        compute_rpcapi.ComputeAPI, "volume_snapshot_delete",
        lambda self, ctxt, instance, volume_id, snapshot_id, delete_info:
        made.append(("delete", instance.host, volume_id, snapshot_id,
                     delete_info)))
    return made


def _attach(cells, volume_id=VOLUME, host="host1", task_state=None,
            launched=True):
    ctx = keel_context.get_admin_context()
    with keel_context.target_cell(ctx, cells.mapping(CELL1_UUID)) as cctxt:
        inst = objects.Instance(
            cctxt, uuid=str(uuid.uuid4()), project_id="p", user_id="u",
            host=host, node=host and f"{host}.example", vm_state="active",
            task_state=task_state,
            launched_at=datetime.datetime(2026, 1, 1) if launched else None)
        inst.create()
        objects.BlockDeviceMapping(
            cctxt, instance_uuid=inst.uuid, source_type="volume",
            destination_type="volume", boot_index=None,
            device_name="/dev/vdb", volume_id=volume_id,
            delete_on_termination=False).create()
    return inst


def _create(app, body):
    return call(app, "/v2.1/os-assisted-volume-snapshots", method="POST",
                body=body)


def _delete(app, snapshot_id, delete_info, version="2.1"):
    query = "" if delete_info is None else "?" + urllib.parse.urlencode(
        {"delete_info": delete_info})
    return call(app, f"/v2.1/os-assisted-volume-snapshots/{snapshot_id}"
                f"{query}", method="DELETE",
                headers={"OpenStack-API-Version": f"compute {version}"})


def test_create_matches_sample(service_env, cells_db, casts):  # noqa: F811
    inst = _attach(cells_db)
    body = samples.load(REQ)
    resp = _create(service_env, body)
    assert resp.status_int == 200, resp.text
    assert resp.json == samples.load(RESP)
    assert casts == [("create", "host1", VOLUME,
                      body["snapshot"]["create_info"])]
    assert inst.host == "host1"


def test_create_without_id_answers_null(service_env, cells_db, casts):  # noqa
    _attach(cells_db)
    body = samples.load(REQ)
    del body["snapshot"]["create_info"]["id"]
    resp = _create(service_env, body)
    assert resp.json == {"snapshot": {"id": None, "volumeId": VOLUME}}


@pytest.mark.parametrize("change", [
    lambda b: b["snapshot"].pop("volume_id"),
    lambda b: b["snapshot"]["create_info"].update(type="raw"),
    lambda b: b["snapshot"]["create_info"].pop("new_file"),
    lambda b: b["snapshot"].update(extra=1),
])
def test_create_bad_body(service_env, cells_db, casts, change):  # noqa: F811
    body = samples.load(REQ)
    change(body)
    assert _create(service_env, body).status_int == 400
    assert casts == []


def test_create_nova_400s(service_env, cells_db, casts):  # noqa: F811
    body = samples.load(REQ)
    resp = _create(service_env, body)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        f"No volume Block Device Mapping with id {VOLUME}."
    inst = _attach(cells_db, host=None)
    resp = _create(service_env, body)
    assert resp.json["badRequest"]["message"] == \
        f"Instance {inst.uuid} is not ready"
    other = str(uuid.uuid4())
    busy = _attach(cells_db, volume_id=other, task_state="rebooting")
    body["snapshot"]["volume_id"] = other
    resp = _create(service_env, body)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == (
        f"Instance {busy.uuid} in task_state rebooting. Cannot "
        "do_volume_snapshot_create while the instance is in this state.")
    assert casts == []


def test_create_multiattached_volume(service_env, cells_db, casts):  # noqa
    _attach(cells_db)
    _attach(cells_db, host="host2")
    resp = _create(service_env, samples.load(REQ))
    assert resp.status_int == 400
    assert "attached to more than one instance" in \
        resp.json["badRequest"]["message"]


def test_delete(service_env, cells_db, casts):  # noqa: F811
    _attach(cells_db)
    info = {"volume_id": VOLUME, "type": "qcow2",
            "merge_target_file": None, "file_to_merge": None}
    resp = _delete(service_env, SNAPSHOT, json.dumps(info))
    assert resp.status_int == 204, resp.text
    assert resp.body == b""
    assert casts == [("delete", "host1", VOLUME, SNAPSHOT, info)]


@pytest.mark.parametrize("delete_info,message", [
    (None, "'delete_info'"),
    (json.dumps({"type": "qcow2"}), "'volume_id'"),
    ("not json", "Expecting value: line 1 column 1 (char 0)"),
])
def test_delete_bad_info(service_env, cells_db, casts, delete_info,  # noqa
                         message):
    resp = _delete(service_env, SNAPSHOT, delete_info)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == message
    assert casts == []


def test_delete_unknown_volume_and_extra_query(service_env, cells_db,  # noqa
                                               casts):
    info = json.dumps({"volume_id": VOLUME})
    resp = _delete(service_env, SNAPSHOT, info)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        f"No volume Block Device Mapping with id {VOLUME}."
    _attach(cells_db)
    path = (f"/v2.1/os-assisted-volume-snapshots/{SNAPSHOT}?" +
            urllib.parse.urlencode({"delete_info": info, "x": "1"}))
    for version, status in (("2.74", 204), ("2.75", 400)):
        resp = call(service_env, path, method="DELETE", headers={
            "OpenStack-API-Version": f"compute {version}"})
        assert resp.status_int == status, (version, resp.text)


def test_policy_service_role(service_env, member_env, api_env,  # noqa
                             cells_db, casts):
    _attach(cells_db)
    ok = _create(service_env, samples.load(REQ))
    assert ok.status_int == 200, ok.text
    for app in (member_env, api_env):
        resp = _create(app, samples.load(REQ))
        assert resp.status_int == 403
        assert resp.json["forbidden"]["message"] == (
            "Policy doesn't allow os_compute_api:os-assisted-volume-"
            "snapshots:create to be performed.")
        resp = _delete(app, SNAPSHOT, json.dumps({"volume_id": VOLUME}))
        assert resp.status_int == 403
    assert len(casts) == 1


class _Manager:
    def __init__(self, driver):
        self.driver = driver


def test_compute_side():
    from keel.virt import driver as virt_driver

    class Bare(virt_driver.ComputeDriver):
        pass
    mgr = _Manager(Bare.__new__(Bare))
    with pytest.raises(NotImplementedError):
        volume_snapshots.volume_snapshot_create(mgr, None, None, VOLUME, {})
    with pytest.raises(NotImplementedError):
        volume_snapshots.volume_snapshot_delete(mgr, None, None, VOLUME,
                                                SNAPSHOT, {})

    class Gone(virt_driver.ComputeDriver):
        def volume_snapshot_create(self, *a):
            raise exception.InstanceNotRunning(instance_id="x")
    volume_snapshots.volume_snapshot_create(_Manager(Gone.__new__(Gone)),
                                            None, None, VOLUME, {})
