"""os-migrations through the API stack on SQLite cells: sample shapes per
microversion, filters, and paging merged across two cells."""
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
T0 = datetime.datetime(2026, 1, 1, 12, 0, 0)


def _h(version):
    return {V: f"compute {version}"}


@pytest.fixture
def migs(api_env, cells_db):  # noqa: F811
    """Six migrations alternating between cell0 and cell1, one minute
    apart (index 5 newest); #4 is a running live migration."""
    ctx = keel_context.get_admin_context()
    cells = [cells_db.mapping(objects.CellMapping.CELL0_UUID),
             cells_db.mapping(CELL1_UUID)]
    made = []
    for i in range(6):
        with keel_context.target_cell(ctx, cells[i % 2]) as cctxt:
            live = i == 4
            inst = objects.Instance(
                cctxt, uuid=f"00000000-0000-0000-0000-00000000000{i}",
                project_id="p", user_id="u")
            inst.create()
            mig = objects.Migration(
                cctxt, source_compute="c1" if i < 3 else "c2",
                dest_compute="c3", source_node="n1", dest_node="n3",
                dest_host="1.2.3.4", status="running" if live else "done",
                migration_type="live-migration" if live else "resize",
                instance_uuid=f"00000000-0000-0000-0000-00000000000{i}",
                old_instance_type_id=1, new_instance_type_id=2,
                user_id=f"user{i % 2}", project_id=f"proj{i % 3}",
                created_at=T0 + datetime.timedelta(minutes=i),
                updated_at=T0 + datetime.timedelta(minutes=i))
            mig.create()
            made.append(mig)
    return made


def _list(app, version, query=""):
    resp = call(app, "/v2.1/os-migrations" + query, headers=_h(version))
    assert resp.status_int == 200, resp.text
    return resp.json


def _cases():
    route = next(r for r in routes_json() if r["path"] == "/os-migrations")
    for version, files in route["samples"]["response"].items():
        for sample in files:
            yield pytest.param(version, sample, id=sample)


@pytest.mark.parametrize("version,sample", list(_cases()))
def test_matches_samples(api_env, migs, version, sample):
    query = ""
    if "with-limit" in sample:
        query = "?limit=1"
    elif "with-marker" in sample:
        query = f"?marker={migs[5].uuid}"
    elif "changes-since" in sample:
        query = "?changes-since=2026-01-01T12:02:00Z"
    elif "changes-before" in sample:
        query = "?changes-before=2026-01-01T12:02:00Z"
    elif "user-or-project" in sample:
        query = "?user_id=user0"
    got = _list(api_env, version, query)
    assert got["migrations"]
    assert samples.shape_differences(got, samples.load(sample),
                                     ignore=("links",)) == []
    live = [m for m in got["migrations"]
            if m.get("migration_type") == "live-migration"]
    for m in live:
        assert m["links"][0]["href"].endswith(
            f"/servers/{m['instance_uuid']}/migrations/{m['id']}")


def test_order_and_paging_across_cells(api_env, migs):
    got = _list(api_env, "2.59")["migrations"]
    assert [m["uuid"] for m in got] == [m.uuid for m in reversed(migs)]
    seen, marker = [], None
    while True:
        query = "?limit=2" + (f"&marker={marker}" if marker else "")
        page = _list(api_env, "2.59", query)
        seen += [m["uuid"] for m in page["migrations"]]
        if "migrations_links" not in page:
            break
        marker = page["migrations"][-1]["uuid"]
    assert seen == [m.uuid for m in reversed(migs)]
    assert call(api_env, "/v2.1/os-migrations?marker=nope",
                headers=_h("2.59")).status_int == 400


def test_filters(api_env, migs):
    assert len(_list(api_env, "2.1", "?host=c3")["migrations"]) == 6
    assert len(_list(api_env, "2.1", "?source_compute=c1")[
        "migrations"]) == 3
    assert len(_list(api_env, "2.1", "?status=running")["migrations"]) == 1
    assert len(_list(api_env, "2.1", "?migration_type=resize")[
        "migrations"]) == 5
    assert len(_list(api_env, "2.1",
                     f"?instance_uuid={migs[2].instance_uuid}")[
        "migrations"]) == 1
    # changes-since only from 2.59 (ignored before)
    assert len(_list(api_env, "2.58", "?changes-since=2026-01-01T12:04:00Z")[
        "migrations"]) == 6
    assert len(_list(api_env, "2.59", "?changes-since=2026-01-01T12:04:00Z")[
        "migrations"]) == 2
    assert len(_list(api_env, "2.66",
                     "?changes-before=2026-01-01T12:01:00Z")[
        "migrations"]) == 2
    bad = call(api_env, "/v2.1/os-migrations?changes-since="
               "2026-01-02T00:00:00Z&changes-before=2026-01-01T00:00:00Z",
               headers=_h("2.66"))
    assert bad.status_int == 400
    got = _list(api_env, "2.80", "?user_id=user1&project_id=proj0")
    assert [m["uuid"] for m in got["migrations"]] == [migs[3].uuid]
    assert call(api_env, "/v2.1/os-migrations?user_id=x",
                headers=_h("2.79")).status_int == 400
    assert call(api_env, "/v2.1/os-migrations?foo=1",
                headers=_h("2.59")).status_int == 400
    assert call(api_env, "/v2.1/os-migrations?changes-since=yesterday",
                headers=_h("2.59")).status_int == 400


def test_member_is_forbidden(member_env):  # noqa: F811
    assert call(member_env, "/v2.1/os-migrations").status_int == 403
