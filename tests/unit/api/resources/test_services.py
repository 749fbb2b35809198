"""os-services through the whole API stack on SQLite cells: list shapes per
microversion (compared with Nova's samples), filters, legacy and 2.53
updates, delete, and Nova's error answers."""
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

V = "OpenStack-API-Version"
LONG_AGO = datetime.datetime(2020, 1, 1)


def _h(version):
    return {V: f"compute {version}"}


def seed_services(cells):
    """A scheduler (up) and two computes (down: no RPC in unit tests) in
    cell1, host1 mapped; returns {name: Service}."""
    ctx = keel_context.get_admin_context()
    cell = cells.mapping(CELL1_UUID)
    made = {}
    with keel_context.target_cell(ctx, cell) as cctxt:
        for name, host, binary in (("sched", "host1", "nova-scheduler"),
                                   ("cmp1", "host1", "nova-compute"),
                                   ("cmp2", "host2", "nova-compute")):
            svc = objects.Service(cctxt, host=host, binary=binary,
                                  topic=binary.split("-")[1])
            svc.create()
            if binary == "nova-compute":
                svc.last_seen_up = LONG_AGO
                svc.save()
            made[name] = svc
    for host in ("host1", "host2"):
        objects.HostMapping(ctx, host=host, cell_mapping=cell).create()
    return made


@pytest.fixture
def services(cells_db):  # noqa: F811
    return seed_services(cells_db)


@pytest.mark.parametrize("version,sample", [
    ("2.1", "os-services/services-list-get-resp.json"),
    ("2.11", "os-services/v2.11/services-list-get-resp.json"),
    ("2.53", "os-services/v2.53/services-list-get-resp.json"),
    ("2.69", "os-services/v2.53/services-list-get-resp.json"),
])
def test_list_matches_samples(api_env, services, version, sample):
    resp = call(api_env, "/v2.1/os-services", headers=_h(version))
    assert resp.status_int == 200, resp.text
    got = resp.json["services"]
    assert len(got) == 3
    assert samples.shape_differences(resp.json, samples.load(sample)) == []
    by_binary = {(s["host"], s["binary"]): s for s in got}
    assert by_binary[("host1", "nova-scheduler")]["zone"] == "internal"
    assert by_binary[("host1", "nova-scheduler")]["state"] == "up"
    assert by_binary[("host1", "nova-compute")]["zone"] == "nova"
    assert by_binary[("host2", "nova-compute")]["state"] == "down"
    ids = {s["id"] for s in got}
    if version >= "2.53":
        assert services["cmp1"].uuid in ids
    else:
        assert services["cmp1"].id in ids


def test_list_filters_and_zone_from_aggregate(api_env, services):
    ctx = keel_context.get_admin_context()
    agg = objects.Aggregate(ctx, name="a1",
                            metadata={"availability_zone": "az1"})
    agg.create()
    agg.add_host("host2")
    got = call(api_env, "/v2.1/os-services?host=host2").json["services"]
    assert [(s["host"], s["zone"]) for s in got] == [("host2", "az1")]
    got = call(api_env, "/v2.1/os-services?binary=nova-scheduler"
               ).json["services"]
    assert [s["binary"] for s in got] == ["nova-scheduler"]
    # unknown query parameters: ignored before 2.75, refused from 2.75
    assert call(api_env, "/v2.1/os-services?foo=1",
                headers=_h("2.74")).status_int == 200
    assert call(api_env, "/v2.1/os-services?foo=1",
                headers=_h("2.75")).status_int == 400


@pytest.mark.parametrize("action,version,req,resp", [
    ("disable-log-reason", "2.1",
     "os-services/service-disable-log-put-req.json",
     "os-services/service-disable-log-put-resp.json"),
    ("enable", "2.1", "os-services/service-enable-put-req.json",
     "os-services/service-enable-put-resp.json"),
    ("disable", "2.1", "os-services/service-disable-put-req.json",
     "os-services/service-disable-put-resp.json"),
    ("force-down", "2.11", "os-services/v2.11/service-force-down-put-req.json",
     "os-services/v2.11/service-force-down-put-resp.json"),
])
def test_legacy_update_matches_samples(api_env, services, action, version,
                                       req, resp):
    got = call(api_env, f"/v2.1/os-services/{action}", "PUT", _h(version),
               samples.load(req))
    assert got.status_int == 200, got.text
    assert samples.shape_differences(got.json, samples.load(resp)) == []
    svc = _reload(services["cmp1"])
    if action.startswith("disable"):
        assert svc.disabled
    if action == "disable-log-reason":
        assert svc.disabled_reason == "test2"
    if action == "force-down":
        assert svc.forced_down


def _reload(svc):
    return objects.Service.get_by_uuid(svc._context, svc.uuid)


def test_legacy_update_errors(api_env, services):
    body = {"host": "host1", "binary": "nova-scheduler"}
    resp = call(api_env, "/v2.1/os-services/disable", "PUT", body=body)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == (
        "Updating a nova-scheduler service is not supported. Only "
        "nova-compute services can be updated.")
    body = {"host": "nohost", "binary": "nova-compute"}
    resp = call(api_env, "/v2.1/os-services/disable", "PUT", body=body)
    assert resp.status_int == 404
    body = {"host": "host1", "binary": "nova-compute"}
    assert call(api_env, "/v2.1/os-services/frobnicate", "PUT",
                body=body).status_int == 404
    # force-down only from 2.11; disable-log-reason needs its reason
    assert call(api_env, "/v2.1/os-services/force-down", "PUT",
                body=dict(body, forced_down=True)).status_int == 400
    resp = call(api_env, "/v2.1/os-services/disable-log-reason", "PUT",
                body=body)
    assert resp.json["badRequest"]["message"] == \
        "Missing disabled reason field"
    # 2.53 replaced the action paths
    assert call(api_env, "/v2.1/os-services/disable", "PUT", _h("2.53"),
                {"status": "disabled"}).status_int == 400


@pytest.mark.parametrize("req,resp", [
    ("os-services/v2.53/service-disable-log-put-req.json",
     "os-services/v2.53/service-disable-log-put-resp.json"),
    ("os-services/v2.53/service-enable-put-req.json",
     "os-services/v2.53/service-enable-put-resp.json"),
    ("os-services/v2.53/service-force-down-put-req.json",
     "os-services/v2.53/service-force-down-put-resp.json"),
])
def test_update_v253_matches_samples(api_env, services, req, resp):
    uuid = services["cmp1"].uuid
    got = call(api_env, f"/v2.1/os-services/{uuid}", "PUT", _h("2.53"),
               samples.load(req))
    assert got.status_int == 200, got.text
    assert samples.shape_differences(got.json, samples.load(resp)) == []
    assert got.json["service"]["id"] == uuid
    assert got.json["service"]["zone"] == "nova"


def test_update_v253_changes_and_errors(api_env, services):
    uuid = services["cmp1"].uuid
    url = f"/v2.1/os-services/{uuid}"
    got = call(api_env, url, "PUT", _h("2.53"),
               {"status": "disabled", "disabled_reason": "maint"}).json
    assert (got["service"]["status"], got["service"]["disabled_reason"]) \
        == ("disabled", "maint")
    assert _reload(services["cmp1"]).disabled_reason == "maint"
    got = call(api_env, url, "PUT", _h("2.53"), {"status": "enabled"}).json
    assert got["service"]["disabled_reason"] is None
    bad = call(api_env, url, "PUT", _h("2.53"),
               {"status": "enabled", "disabled_reason": "x"})
    assert bad.status_int == 400
    assert call(api_env, url, "PUT", _h("2.53"), {}).json["badRequest"][
        "message"].startswith("No updates were requested.")
    assert call(api_env, "/v2.1/os-services/12", "PUT", _h("2.53"),
                {"status": "enabled"}).json["badRequest"]["message"] == \
        "Invalid uuid 12"
    missing = "2b1e1a8e-0d1c-4a4b-9b0f-1b2c3d4e5f60"
    assert call(api_env, f"/v2.1/os-services/{missing}", "PUT", _h("2.53"),
                {"status": "enabled"}).status_int == 404
    sched = services["sched"].uuid
    assert call(api_env, f"/v2.1/os-services/{sched}", "PUT", _h("2.53"),
                {"status": "disabled"}).status_int == 400
    assert call(api_env, url, "PUT", _h("2.53"),
                {"forced_down": "maybe"}).status_int == 400


def test_delete(api_env, services):
    ctx = keel_context.get_admin_context()
    cmp2 = services["cmp2"]
    assert call(api_env, f"/v2.1/os-services/{cmp2.uuid}", "DELETE",
                _h("2.52")).status_int == 400
    assert call(api_env, "/v2.1/os-services/abc", "DELETE"
                ).status_int == 400
    resp = call(api_env, f"/v2.1/os-services/{cmp2.uuid}", "DELETE",
                _h("2.53"))
    assert resp.status_int == 204, resp.text
    with pytest.raises(Exception):
        objects.HostMapping.get_by_host(ctx, "host2")
    listed = call(api_env, "/v2.1/os-services").json["services"]
    assert "host2" not in {s["host"] for s in listed}
    assert call(api_env, f"/v2.1/os-services/{cmp2.uuid}", "DELETE",
                _h("2.53")).status_int == 404
    # integer ids before 2.53
    sched = services["sched"]
    assert call(api_env, f"/v2.1/os-services/{sched.id}", "DELETE"
                ).status_int == 204


def test_delete_compute_hosting_servers_is_409(api_env, services):
    cmp1 = services["cmp1"]
    inst = objects.Instance(cmp1._context, host="host1", node="host1",
                            project_id="p", user_id="u")
    inst.create()
    resp = call(api_env, f"/v2.1/os-services/{cmp1.uuid}", "DELETE",
                _h("2.53"))
    assert resp.status_int == 409
    assert "hosting instances" in resp.json["conflictingRequest"]["message"]


def test_member_is_forbidden(member_env, services):
    assert call(member_env, "/v2.1/os-services").status_int == 403
    assert call(member_env, f"/v2.1/os-services/{services['cmp1'].uuid}",
                "DELETE", _h("2.53")).status_int == 403


def test_down_cell_gives_minimal_records_from_269(api_env, services,
                                                  tmp_path):
    ctx = keel_context.get_admin_context()
    broken = objects.CellMapping(
        ctx, uuid="0e3c4c1a-5a5e-4a43-9d0e-3b9a1f6d7c88", name="broken",
        transport_url="none:///",
        # a database without the schema: every query in it fails (a
        # missing file would already fail target_cell, outside the
        # scatter-gather's error handling)
        database_connection=f"sqlite:///{tmp_path}/empty.sqlite")
    broken.create()
    objects.HostMapping(ctx, host="lost1", cell_mapping=broken).create()
    resp = call(api_env, "/v2.1/os-services", headers=_h("2.69"))
    assert resp.status_int == 200, resp.text
    minimal = [s for s in resp.json["services"] if s["host"] == "lost1"]
    assert minimal == [{"binary": "nova-compute", "host": "lost1",
                        "status": "UNKNOWN"}]
    assert samples.shape_differences(
        {"services": minimal},
        samples.load("os-services/v2.69/services-list-get-resp.json")) == []
    before = call(api_env, "/v2.1/os-services", headers=_h("2.68"))
    assert before.status_int == 200
    assert "lost1" not in {s["host"] for s in before.json["services"]}


def test_forcing_up_refused_while_done_evacuations_remain(api_env, services):
    cmp1 = services["cmp1"]
    inst = objects.Instance(cmp1._context, host="host2", project_id="p",
                            user_id="u")
    inst.create()
    objects.Migration(cmp1._context, source_compute="host1",
                      dest_compute="host2", status="done",
                      migration_type="evacuation",
                      instance_uuid=inst.uuid).create()
    url = f"/v2.1/os-services/{cmp1.uuid}"
    resp = call(api_env, url, "PUT", _h("2.53"), {"forced_down": False})
    assert resp.status_int == 400
    assert "`done` evacuation migration records" in \
        resp.json["badRequest"]["message"]
    legacy = call(api_env, "/v2.1/os-services/force-down", "PUT",
                  _h("2.11"), {"host": "host1", "binary": "nova-compute",
                               "forced_down": False})
    assert legacy.status_int == 400
    # forcing down is always allowed
    assert call(api_env, url, "PUT", _h("2.53"),
                {"forced_down": True}).status_int == 200
