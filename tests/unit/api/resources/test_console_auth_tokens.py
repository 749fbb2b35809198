"""GET /os-console-auth-tokens/{token} over SQLite cells: tokens issued as
the compute issues them, looked up across cells, Nova's answers."""
import time

import pytest
import sqlalchemy as sa

from keel import context as keel_context
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call

V = "OpenStack-API-Version"
INSTANCE = "b48316c5-71e8-45e4-9884-6c78055b9b13"


def _issue(cells, console_type="novnc", tls_port=None, ttl=600):
    ctx = keel_context.get_admin_context()
    with keel_context.target_cell(ctx, cells.mapping(CELL1_UUID)) as cctxt:
        auth = objects.ConsoleAuthToken(
            context=cctxt, console_type=console_type, host="localhost",
            port=5900, internal_access_path=None, instance_uuid=INSTANCE,
            access_url_base="http://proxy/vnc_auto.html")
        if tls_port is not None:
            auth.tls_port = tls_port
        return auth.authorize(ttl)


def _get(app, token, version):
    return call(app, f"/v2.1/os-console-auth-tokens/{token}",
                headers={V: f"compute {version}"})


@pytest.mark.parametrize("version,sample", [
    ("2.31", "os-console-auth-tokens/v2.31/"
             "get-console-connect-info-get-resp.json"),
    ("2.98", "os-console-auth-tokens/v2.31/"
             "get-console-connect-info-get-resp.json"),
    ("2.99", "os-console-auth-tokens/v2.99/"
             "get-console-connect-info-get-resp.json"),
    ("latest", "os-console-auth-tokens/v2.99/"
               "get-console-connect-info-get-resp.json"),
])
def test_show_matches_samples(api_env, cells_db, version, sample):  # noqa
    token = _issue(cells_db, tls_port=5901)
    resp = _get(api_env, token, version)
    assert resp.status_int == 200, resp.text
    # internal_access_path is null here (a sample value is a string)
    got = resp.json
    assert got["console"].pop("internal_access_path") is None
    want = samples.load(sample)
    want["console"].pop("internal_access_path")
    assert samples.shape_differences(got, want) == []
    assert got["console"]["instance_uuid"] == INSTANCE
    assert got["console"]["port"] == 5900
    if "tls_port" in want["console"]:
        assert got["console"]["tls_port"] == 5901


def test_every_console_type_from_2_31(api_env, cells_db):  # noqa: F811
    for console_type in ("serial", "spice-html5", "novnc"):
        token = _issue(cells_db, console_type=console_type)
        assert _get(api_env, token, "2.31").status_int == 200


def test_before_2_31_always_400(api_env, member_env, cells_db):  # noqa
    token = _issue(cells_db)
    for version in ("2.1", "2.30"):
        for app in (api_env, member_env):
            resp = _get(app, token, version)
            assert resp.status_int == 400
            assert "badRequest" in resp.json


def test_unknown_or_expired_token_is_404(api_env, cells_db):  # noqa: F811
    token = _issue(cells_db)
    with session.cell_writer(keel_context.get_admin_context()) as s:
        s.execute(sa.update(cell_models.ConsoleAuthToken).values(
            expires=int(time.time()) - 1))
    for bad in (token, "no-such-token"):
        resp = _get(api_env, bad, "2.31")
        assert resp.status_int == 404
        assert resp.json == {"itemNotFound": {
            "code": 404, "message": "Token not found"}}


def test_admin_only(member_env, cells_db):  # noqa: F811
    token = _issue(cells_db)
    resp = _get(member_env, token, "2.31")
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-console-auth-tokens to be "
        "performed.")


def test_query_parameters_refused_from_2_99(api_env, cells_db):  # noqa
    token = _issue(cells_db)
    ok = call(api_env, f"/v2.1/os-console-auth-tokens/{token}?x=1",
              headers={V: "compute 2.98"})
    assert ok.status_int == 200
    bad = call(api_env, f"/v2.1/os-console-auth-tokens/{token}?x=1",
               headers={V: "compute 2.99"})
    assert bad.status_int == 400
