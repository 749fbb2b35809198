"""os-server-groups through the API stack on SQLite cells: sample shapes
per microversion, policies/rules validation, live members, project
scoping, all_projects, paging and the server_groups quota."""
import pytest

from keel import context as keel_context
from keel import objects
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.resources.test_services import seed_services

V = "OpenStack-API-Version"
S = "os-server-groups/"
ALICE = "alice:proj-a"
BOB = "bob:proj-b"


def _h(version="2.1", token=None):
    h = {V: f"compute {version}"}
    if token:
        h["X-Auth-Token"] = token
    return h


def _create(app, version="2.1", token=None, **group):
    group = group or {"name": "test", "policies": ["anti-affinity"]}
    return call(app, "/v2.1/os-server-groups", "POST", _h(version, token),
                {"server_group": group})


@pytest.mark.parametrize("version,prefix", [
    ("2.1", S), ("2.13", S + "v2.13/"), ("2.64", S + "v2.64/"),
    ("2.71", "servers/v2.71/")])
def test_create_show_list_match_samples(api_env, cells_db, version,
                                        prefix):
    seed_services(cells_db)  # computes new enough for max_server_per_host
    req = samples.load(prefix + "server-groups-post-req.json")
    made = call(api_env, "/v2.1/os-server-groups", "POST", _h(version), req)
    assert made.status_int == 200, made.text
    assert samples.shape_differences(
        made.json, samples.load(prefix + "server-groups-post-resp.json"),
        ignore=("max_server_per_host",)) == []
    if prefix.startswith("servers/"):
        return
    gid = made.json["server_group"]["id"]
    got = call(api_env, f"/v2.1/os-server-groups/{gid}", headers=_h(version))
    assert samples.shape_differences(
        got.json, samples.load(prefix + "server-groups-get-resp.json")) == []
    listed = call(api_env, "/v2.1/os-server-groups", headers=_h(version))
    assert samples.shape_differences(
        listed.json, samples.load(prefix + "server-groups-list-resp.json")
    ) == []
    if version == "2.64":
        assert got.json["server_group"]["rules"] == {
            "max_server_per_host": 3}


def test_create_validation(api_env):
    assert _create(api_env, name="x", policies=["soft-affinity"]
                   ).status_int == 400
    assert _create(api_env, "2.15", name="x", policies=["soft-affinity"]
                   ).status_int == 200
    assert _create(api_env, "2.64", name="x", policies=["affinity"]
                   ).status_int == 400
    bad = _create(api_env, "2.64", name="x", policy="affinity",
                  rules={"max_server_per_host": 2})
    assert bad.json["badRequest"]["message"] == \
        "Only anti-affinity policy supports rules."
    # no compute new enough anywhere: Nova refuses max_server_per_host > 1
    none_new = _create(api_env, "2.64", name="x", policy="anti-affinity",
                       rules={"max_server_per_host": 2})
    assert none_new.status_int == 409
    assert _create(api_env, "2.64", name="x", policy="anti-affinity",
                   rules={"max_server_per_host": 0}).status_int == 400
    assert _create(api_env, "2.64", name="x", policy="anti-affinity",
                   rules={"max_server_per_host": 1}).status_int == 200


def test_members_shown_only_while_their_server_lives(api_env, cells_db):
    ctx = keel_context.get_admin_context()
    cell = cells_db.mapping(CELL1_UUID)
    with keel_context.target_cell(ctx, cell) as cctxt:
        live = objects.Instance(cctxt, project_id="p", user_id="u")
        live.create()
        dead = objects.Instance(cctxt, project_id="p", user_id="u")
        dead.create()
        dead.destroy()
    for inst in (live, dead):
        objects.InstanceMapping(ctx, instance_uuid=inst.uuid,
                                cell_mapping=cell, project_id="p").create()
    gid = _create(api_env).json["server_group"]["id"]
    objects.InstanceGroup.add_members(ctx, gid, [live.uuid, dead.uuid])
    got = call(api_env, f"/v2.1/os-server-groups/{gid}").json
    assert got["server_group"]["members"] == [live.uuid]
    listed = call(api_env, "/v2.1/os-server-groups").json["server_groups"]
    assert listed[0]["members"] == [live.uuid]


def test_projects_all_projects_and_paging(api_env):
    for i in range(3):
        _create(api_env, token=ALICE, name=f"a{i}", policies=["affinity"])
    bob = _create(api_env, token=BOB, name="b",
                  policies=["affinity"]).json["server_group"]
    mine = call(api_env, "/v2.1/os-server-groups",
                headers=_h(token=ALICE)).json["server_groups"]
    assert sorted(g["name"] for g in mine) == ["a0", "a1", "a2"]
    page = call(api_env, "/v2.1/os-server-groups?limit=2&offset=1",
                headers=_h(token=ALICE)).json["server_groups"]
    assert [g["name"] for g in page] == ["a1", "a2"]
    # all_projects is an admin's (the dev token has the admin role)
    every = call(api_env, "/v2.1/os-server-groups?all_projects=1",
                 headers=_h(token=ALICE)).json["server_groups"]
    assert len(every) == 4
    assert call(api_env, "/v2.1/os-server-groups?foo=1",
                headers=_h("2.75")).status_int == 400
    assert call(api_env, "/v2.1/os-server-groups?limit=-1"
                ).status_int == 400
    gone = call(api_env, f"/v2.1/os-server-groups/{bob['id']}", "DELETE",
                _h(token=BOB))
    assert gone.status_int == 204
    missing = call(api_env, f"/v2.1/os-server-groups/{bob['id']}")
    assert missing.status_int == 404
    assert call(api_env, f"/v2.1/os-server-groups/{bob['id']}", "DELETE"
                ).status_int == 404


def test_member_roles_and_other_projects(member_env):  # noqa: F811
    made = _create(member_env, token=ALICE).json["server_group"]
    assert call(member_env, "/v2.1/os-server-groups?all_projects=1",
                headers=_h(token=BOB)).json["server_groups"] == []
    other = call(member_env, f"/v2.1/os-server-groups/{made['id']}",
                 headers=_h(token=BOB))
    assert other.status_int == 403
    assert call(member_env, f"/v2.1/os-server-groups/{made['id']}",
                "DELETE", _h(token=ALICE)).status_int == 204


def test_quota_counts_groups_in_the_api_database(api_env, conf):
    conf.config(server_groups=2, group="quota")
    assert _create(api_env, token=ALICE).status_int == 200
    assert _create(api_env, token=ALICE).status_int == 200
    over = _create(api_env, token=ALICE)
    assert over.status_int == 403
    assert over.json["forbidden"]["message"] == \
        "Quota exceeded, too many server groups."
    assert _create(api_env, token=BOB).status_int == 200

