"""GET / DELETE /servers/{server_id}/os-server-password: the password the
guest stored in system_metadata password_0..3 (Nova's chunks), the sample's
shape, Nova's policy defaults and refusals."""
import pytest

from keel.api import deploy
from keel.compute_api import server_password as password_api
from keel.conf import CONF
from tests.functional.api.test_server_power import cloud  # noqa: F401
from tests.functional.api.test_server_power import PROJECT
from tests.functional.api.test_server_power import read
from tests.functional.api.test_server_power import server
from tests.functional.api.test_server_power import USER
from tests.unit.api.conftest import call
from tests.unit.api.conftest import sample

TOKEN = f"{USER}:{PROJECT}"
SAMPLE = "os-server-password/get-password-resp.json"


def _app(roles):
    CONF.set_override("development_roles", roles, group="api")
    try:
        return deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")


def req(app, u, method="GET", version="2.1", token=None, query=""):
    headers = {"OpenStack-API-Version": f"compute {version}"}
    if token:
        headers["X-Auth-Token"] = token
    return call(app, f"/v2.1/servers/{u}/os-server-password{query}",
                method=method, headers=headers)


def _store(cloud, u, password):  # noqa: F811
    inst = read(cloud, u)
    inst.system_metadata.update(password_api.password_chunks(password))
    inst.save()


def test_chunks_as_novas_password_module():
    text = "x" * 300
    chunks = password_api.password_chunks(text)
    assert [len(chunks[f"password_{i}"]) for i in range(4)] == [255, 45, 0, 0]
    assert password_api.password_chunks(None) == {
        f"password_{i}": "" for i in range(4)}


@pytest.mark.parametrize("version", ["2.1", "2.102"])
def test_show_and_clear_with_the_sample(cloud, version):  # noqa: F811
    u = server(cloud)
    resp = req(cloud.app, u, version=version)
    assert resp.status_int == 200
    assert resp.json == {"password": ""}
    expected = sample(SAMPLE)
    _store(cloud, u, expected["password"])   # 344 characters: two chunks
    resp = req(cloud.app, u, version=version)
    assert resp.status_int == 200
    assert resp.json == expected
    resp = req(cloud.app, u, method="DELETE", version=version)
    assert resp.status_int == 204
    assert resp.body == b""
    assert req(cloud.app, u, version=version).json == {"password": ""}
    meta = read(cloud, u).system_metadata
    assert {k: v for k, v in meta.items() if k.startswith("password_")} == \
        {f"password_{i}": "" for i in range(4)}


def test_policies_and_refusals(cloud):  # noqa: F811
    u = server(cloud)
    _store(cloud, u, "secret")
    reader = _app(["reader"])
    member = _app(["member", "reader"])
    assert req(reader, u, token=TOKEN).json == {"password": "secret"}
    resp = req(reader, u, method="DELETE", token=TOKEN)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-server-password:clear to be "
        "performed.")
    assert req(member, u, method="DELETE", token=TOKEN).status_int == 204
    for method in ("GET", "DELETE"):
        assert req(member, u, method=method,
                   token=f"{USER}:elsewhere").status_int == 404
    missing = "00000000-0000-4000-8000-000000000000"
    resp = req(cloud.app, missing)
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == \
        f"Instance {missing} could not be found."
    assert req(cloud.app, u, version="2.102", query="?a=1").status_int == 400
    assert req(cloud.app, u, version="2.101", query="?a=1").status_int == 200
