"""os-simple-tenant-usage through the API stack on SQLite cells: hours and
resource-hours over a period, sample shapes, paging across cells (2.40)
and Nova's 400s."""
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
S = "os-simple-tenant-usage/"
T0 = datetime.datetime(2026, 1, 1, 0, 0, 0)
PERIOD = "start=2026-01-01T00:00:00&end=2026-01-01T10:00:00"


def _h(version, token=None):
    h = {V: f"compute {version}"}
    if token:
        h["X-Auth-Token"] = token
    return h


def _flavor():
    return objects.Flavor(name="m1.tiny", memory_mb=512, vcpus=1, root_gb=1,
                          ephemeral_gb=0, swap=0, flavorid="1", id=1,
                          rxtx_factor=1.0, vcpu_weight=0, disabled=False,
                          is_public=True, extra_specs={}, description=None)


@pytest.fixture
def servers(cells_db):  # noqa: F811
    """proj-a: two servers in cell1 (one running since 01:00, one from
    02:00 to 04:00) and one in cell0 (running since 00:00, outside of the
    cell order); proj-b: one running since 05:00 in cell1."""
    ctx = keel_context.get_admin_context()
    cells = {"c0": cells_db.mapping(objects.CellMapping.CELL0_UUID),
             "c1": cells_db.mapping(CELL1_UUID)}
    made = []
    for cell, project, start, end, name in (
            ("c1", "proj-a", 1, None, "a-run"),
            ("c1", "proj-a", 2, 4, "a-done"),
            ("c0", "proj-a", 0, None, "a-cell0"),
            ("c1", "proj-b", 5, None, "b-run")):
        with keel_context.target_cell(ctx, cells[cell]) as cctxt:
            inst = objects.Instance(
                cctxt, project_id=project, user_id="u", display_name=name,
                vm_state="active" if end is None else "deleted",
                launched_at=T0 + datetime.timedelta(hours=start),
                terminated_at=T0 + datetime.timedelta(hours=end)
                if end else None, flavor=_flavor())
            inst.create()
            made.append(inst)
    return made


def test_index_and_show_match_samples(api_env, servers):
    for version, prefix in (("2.1", S), ("2.40", S + "v2.40/")):
        plain = call(api_env, f"/v2.1/os-simple-tenant-usage?{PERIOD}",
                     headers=_h(version))
        assert plain.status_int == 200, plain.text
        assert samples.shape_differences(
            plain.json, samples.load(prefix + "simple-tenant-usage-get.json"),
            ignore=("tenant_usages_links",)) == []
        detail = call(api_env, "/v2.1/os-simple-tenant-usage?detailed=1&"
                      f"{PERIOD}", headers=_h(version))
        assert samples.shape_differences(
            detail.json,
            samples.load(prefix + "simple-tenant-usage-get-detail.json"),
            ignore=("tenant_usages_links",)) == []
        one = call(api_env, f"/v2.1/os-simple-tenant-usage/proj-a?{PERIOD}",
                   headers=_h(version))
        assert samples.shape_differences(
            one.json,
            samples.load(prefix + "simple-tenant-usage-get-specific.json"),
            ignore=("tenant_usage_links",)) == []


def test_hours_and_totals(api_env, servers):
    got = call(api_env, f"/v2.1/os-simple-tenant-usage/proj-a?{PERIOD}"
               ).json["tenant_usage"]
    hours = {s["name"]: s["hours"] for s in got["server_usages"]}
    assert hours == {"a-run": 9.0, "a-done": 2.0, "a-cell0": 10.0}
    assert got["total_hours"] == 21.0
    assert got["total_memory_mb_usage"] == 21.0 * 512
    done = next(s for s in got["server_usages"] if s["name"] == "a-done")
    assert (done["state"], done["uptime"]) == ("terminated", 7200)
    assert got["start"] == "2026-01-01T00:00:00.000000"
    every = call(api_env, f"/v2.1/os-simple-tenant-usage?{PERIOD}"
                 ).json["tenant_usages"]
    assert {u["tenant_id"]: u["total_hours"] for u in every} == {
        "proj-a": 21.0, "proj-b": 5.0}
    assert "server_usages" not in every[0]
    empty = call(api_env, "/v2.1/os-simple-tenant-usage/nobody?" + PERIOD)
    assert empty.json == {"tenant_usage": {}}


def test_paging_across_cells(api_env, servers):
    seen, marker = [], None
    while True:
        query = f"?{PERIOD}&detailed=1&limit=1" + \
            (f"&marker={marker}" if marker else "")
        page = call(api_env, "/v2.1/os-simple-tenant-usage" + query,
                    headers=_h("2.40")).json
        names = [s["name"] for u in page["tenant_usages"]
                 for s in u["server_usages"]]
        assert len(names) <= 1
        seen += names
        if "tenant_usages_links" not in page:
            break
        marker = page["tenant_usages_links"][0]["href"].split(
            "marker=")[1].split("&")[0]
    assert sorted(seen) == ["a-cell0", "a-done", "a-run", "b-run"]
    assert call(api_env, f"/v2.1/os-simple-tenant-usage?{PERIOD}&"
                "marker=nope", headers=_h("2.40")).status_int == 400


def test_bad_periods(api_env, servers):
    bad = call(api_env, "/v2.1/os-simple-tenant-usage?start=yesterday")
    assert bad.status_int == 400
    backwards = call(api_env, "/v2.1/os-simple-tenant-usage?"
                     "start=2026-01-02T00:00:00&end=2026-01-01T00:00:00")
    assert backwards.json["badRequest"]["message"].startswith(
        "Invalid start time.")
    assert call(api_env, f"/v2.1/os-simple-tenant-usage?{PERIOD}&x=1",
                headers=_h("2.75")).status_int == 400


def test_policy(member_env, servers):
    assert call(member_env, "/v2.1/os-simple-tenant-usage",
                headers=_h("2.1", "alice:proj-a")).status_int == 403
    mine = call(member_env, f"/v2.1/os-simple-tenant-usage/proj-a?{PERIOD}",
                headers=_h("2.1", "alice:proj-a"))
    assert mine.status_int == 200
    assert call(member_env, f"/v2.1/os-simple-tenant-usage/proj-b?{PERIOD}",
                headers=_h("2.1", "alice:proj-a")).status_int == 403
