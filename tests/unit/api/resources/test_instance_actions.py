"""os-instance-actions through the API stack on SQLite cells: samples per
microversion (admin and non-admin event views), paging by request id,
changes-since/before, deleted servers from 2.21 and Nova's 404s."""
import copy
import datetime

import pytest

from keel import context as keel_context
from keel import objects
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.conftest import routes_json

V = "OpenStack-API-Version"
OWNER = "alice:proj-a"


def _h(version, token=None):
    h = {V: f"compute {version}"}
    if token:
        h["X-Auth-Token"] = token
    return h


@pytest.fixture
def server(cells_db):  # noqa: F811
    """A server of proj-a with three actions (create, stop, start), one
    minute apart; stop has a failed event on host cmp1."""
    ctx = keel_context.get_admin_context()
    cell = cells_db.mapping(CELL1_UUID)
    with keel_context.target_cell(ctx, cell) as cctxt:
        inst = objects.Instance(cctxt, project_id="proj-a", user_id="alice")
        inst.create()
        reqs = []
        for i, name in enumerate(("create", "stop", "start")):
            actx = copy.copy(cctxt)
            actx.request_id = f"req-{i}"
            actx.project_id, actx.user_id = "proj-a", "alice"
            act = objects.InstanceAction.action_start(actx, inst.uuid, name)
            objects.InstanceActionEvent.event_start(
                actx, inst.uuid, f"compute_{name}_instance", host="cmp1")
            error = ValueError("boom") if name == "stop" else None
            objects.InstanceActionEvent.event_finish_with_failure(
                actx, inst.uuid, f"compute_{name}_instance", exc_val=error,
                exc_tb="Traceback: boom" if error else None)
            stamp = datetime.datetime(2026, 1, 1, 12, i)
            from keel.db.cell import models
            from keel.db import session
            with session.cell_writer(cctxt) as s:
                row = s.get(models.InstanceAction, act.id)
                row.created_at = row.updated_at = stamp
            reqs.append(f"req-{i}")
    objects.InstanceMapping(ctx, instance_uuid=inst.uuid, cell_mapping=cell,
                            project_id="proj-a").create()
    return {"uuid": inst.uuid, "reqs": reqs, "inst": inst}


def _route_samples(path):
    route = next(r for r in routes_json() if r["path"] == path)
    for version, files in route["samples"]["response"].items():
        for sample in files:
            yield pytest.param(version, sample, id=sample)


@pytest.mark.parametrize("version,sample", list(_route_samples(
    "/servers/{server_id}/os-instance-actions")))
def test_list_matches_samples(api_env, server, version, sample):
    query = ""
    if "with-limit" in sample:
        query = "?limit=1"
    elif "with-marker" in sample:
        query = "?marker=req-2"
    elif "changes-since" in sample:
        query = "?changes-since=2026-01-01T12:01:00Z"
    elif "changes-before" in sample:
        query = "?changes-before=2026-01-01T12:01:00Z"
    resp = call(api_env, f"/v2.1/servers/{server['uuid']}/"
                f"os-instance-actions{query}", headers=_h(version))
    assert resp.status_int == 200, resp.text
    assert resp.json["instanceActions"]
    assert samples.shape_differences(resp.json, samples.load(sample)) == []


@pytest.mark.parametrize("version,sample", list(_route_samples(
    "/servers/{server_id}/os-instance-actions/{id}")))
def test_show_matches_samples(api_env, member_env, server, version, sample):
    app, token = (member_env, OWNER) if "non-admin" in sample \
        else (api_env, None)
    resp = call(app, f"/v2.1/servers/{server['uuid']}/os-instance-actions/"
                "req-1", headers=_h(version, token))
    assert resp.status_int == 200, resp.text
    assert samples.shape_differences(resp.json, samples.load(sample)) == []


def test_event_visibility_by_role_and_version(api_env, member_env, server):
    url = f"/v2.1/servers/{server['uuid']}/os-instance-actions/req-1"
    member = call(member_env, url, headers=_h("2.50", OWNER)).json
    assert "events" not in member["instanceAction"]
    member = call(member_env, url, headers=_h("2.84", OWNER)).json
    event = member["instanceAction"]["events"][0]
    assert "traceback" not in event and "host" not in event
    assert "details" not in event and len(event["hostId"]) == 56
    admin = call(api_env, url, headers=_h("2.84")).json
    event = admin["instanceAction"]["events"][0]
    assert event["host"] == "cmp1" and event["result"] == "Error"
    assert event["traceback"] == "Traceback: boom"
    assert event["details"] == "boom"


def test_paging_filters_and_errors(api_env, server):
    base = f"/v2.1/servers/{server['uuid']}/os-instance-actions"
    got = call(api_env, base + "?limit=2", headers=_h("2.58")).json
    assert [a["request_id"] for a in got["instanceActions"]] == \
        ["req-2", "req-1"]
    assert "marker=req-1" in got["links"][0]["href"]
    got = call(api_env, base + "?marker=req-1", headers=_h("2.58")).json
    assert [a["request_id"] for a in got["instanceActions"]] == ["req-0"]
    assert call(api_env, base + "?marker=nope", headers=_h("2.58")
                ).status_int == 400
    assert call(api_env, base + "?changes-before=2026-01-01T00:00:00Z",
                headers=_h("2.65")).status_int == 400
    bad = call(api_env, base + "?changes-since=2026-01-02T00:00:00Z&"
               "changes-before=2026-01-01T00:00:00Z", headers=_h("2.66"))
    assert bad.status_int == 400
    missing = call(api_env, base + "/req-9")
    assert missing.json["itemNotFound"]["message"] == \
        "Action req-9 not found"
    nosrv = "/v2.1/servers/9a1f1e9c-2b3c-4d5e-8f90-1a2b3c4d5e6f/" \
        "os-instance-actions"
    assert call(api_env, nosrv).status_int == 404


def test_deleted_server_visible_from_221(api_env, server):
    server["inst"].destroy()
    base = f"/v2.1/servers/{server['uuid']}/os-instance-actions"
    assert call(api_env, base, headers=_h("2.20")).status_int == 404
    assert call(api_env, base, headers=_h("2.21")).status_int == 200


def test_other_project_gets_404(member_env, server):
    resp = call(member_env, f"/v2.1/servers/{server['uuid']}/"
                "os-instance-actions", headers=_h("2.1", "bob:proj-b"))
    assert resp.status_int == 404
