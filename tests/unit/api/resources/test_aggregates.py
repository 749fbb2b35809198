"""os-aggregates through the API stack on SQLite cells: sample shapes per
microversion, availability zone rules, host membership and Nova's errors.
(Placement mirroring, scheduler casts and the image cache request run
against real services in tests/functional/api/test_aggregates.py.)"""
import pytest

from keel.compute import rpcapi as compute_rpcapi
from keel import context as keel_context
from keel import objects
from keel.rpc import transport as rpc_transport
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.resources.test_services import seed_services

V = "OpenStack-API-Version"
S = "os-aggregates/"


def _h(version):
    return {V: f"compute {version}"}


@pytest.fixture
def env(api_env, cells_db, conf):  # noqa: F811
    # casts (scheduler fanout) go to the in-process bus, never a broker
    conf.config(transport_url="fake:/")
    rpc_transport.cleanup()
    seed_services(cells_db)
    yield api_env
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()


def _post(app, path, body, version="2.1"):
    return call(app, "/v2.1/os-aggregates" + path, "POST", _h(version), body)


def _create(app, version="2.1", name="name", zone="london"):
    resp = _post(app, "", {"aggregate": {"name": name,
                                         "availability_zone": zone}},
                 version)
    assert resp.status_int == 200, resp.text
    return resp.json["aggregate"]


def _diff(resp, sample):
    # metadata keys are example data: "key" is the sample's own
    return samples.shape_differences(resp.json, samples.load(sample),
                                     ignore=("key",))


def _prefix(version):
    return {"2.1": "", "2.41": "v2.41/", "2.81": "v2.81/"}[version]


@pytest.mark.parametrize("version", ["2.1", "2.41", "2.81"])
def test_crud_and_actions_match_samples(env, version):
    p = S + _prefix(version)
    created = _post(env, "", samples.load(p + "aggregate-post-req.json"),
                    version)
    assert created.status_int == 200
    assert _diff(created, p + "aggregate-post-resp.json") == []
    agg_id = created.json["aggregate"]["id"]
    url = f"/{agg_id}"
    got = call(env, f"/v2.1/os-aggregates/{agg_id}", headers=_h(version))
    assert _diff(got, p + "aggregates-get-resp.json") == []
    assert ("uuid" in got.json["aggregate"]) == (version != "2.1")
    upd = call(env, f"/v2.1/os-aggregates/{agg_id}", "PUT", _h(version),
               samples.load(p + "aggregate-update-post-req.json"))
    assert upd.status_int == 200, upd.text
    assert _diff(upd, p + "aggregate-update-post-resp.json") == []
    assert upd.json["aggregate"]["updated_at"] is not None
    meta = _post(env, url + "/action",
                 samples.load(p + "aggregate-metadata-post-req.json"),
                 version)
    assert meta.status_int == 200, meta.text
    assert _diff(meta, p + "aggregates-metadata-post-resp.json") == []
    add = _post(env, url + "/action", {"add_host": {"host": "host1"}},
                version)
    assert add.status_int == 200, add.text
    assert add.json["aggregate"]["hosts"] == ["host1"]
    assert _diff(add, p + "aggregates-add-host-post-resp.json") == []
    listed = call(env, "/v2.1/os-aggregates", headers=_h(version))
    assert _diff(listed, p + "aggregates-list-get-resp.json") == []
    rem = _post(env, url + "/action", {"remove_host": {"host": "host1"}},
                version)
    assert rem.status_int == 200
    assert _diff(rem, p + "aggregates-remove-host-post-resp.json") == []
    assert rem.json["aggregate"]["hosts"] == []
    gone = call(env, f"/v2.1/os-aggregates/{agg_id}", "DELETE")
    assert gone.status_int == 200 and gone.body == b""
    assert call(env, f"/v2.1/os-aggregates/{agg_id}").status_int == 404


def test_availability_zone_rules(env):
    a = _create(env, name="a", zone="az1")
    b = _create(env, name="b", zone="az2")
    plain = _create(env, name="plain", zone=None)
    assert _post(env, f"/{a['id']}/action",
                 {"add_host": {"host": "host1"}}).status_int == 200
    clash = _post(env, f"/{b['id']}/action", {"add_host": {"host": "host1"}})
    assert clash.status_int == 409
    assert "already in availability zone(s)" in \
        clash.json["conflictingRequest"]["message"]
    # an aggregate without a zone may share the host
    assert _post(env, f"/{plain['id']}/action",
                 {"add_host": {"host": "host1"}}).status_int == 200
    # giving it a different zone now conflicts (400 on metadata update)
    bad = _post(env, f"/{plain['id']}/action",
                {"set_metadata": {"metadata": {"availability_zone": "az9"}}})
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"].startswith(
        f"Cannot update metadata of aggregate {plain['id']}.")
    assert call(env, f"/v2.1/os-aggregates/{plain['id']}", "PUT",
                body={"aggregate": {"availability_zone": "az2"}}
                ).status_int == 400
    # renaming the zone of the host's own aggregate is fine (no servers)
    assert call(env, f"/v2.1/os-aggregates/{a['id']}", "PUT",
                body={"aggregate": {"availability_zone": "az1b"}}
                ).status_int == 200
    # the zone shows up on the host's service
    svcs = call(env, "/v2.1/os-services?host=host1&binary=nova-compute"
                ).json["services"]
    assert svcs[0]["zone"] == "az1b"
    # a non-empty aggregate cannot be deleted
    nonempty = call(env, f"/v2.1/os-aggregates/{a['id']}", "DELETE")
    assert nonempty.status_int == 400
    assert "Host aggregate is not empty" in \
        nonempty.json["badRequest"]["message"]
    # zone names: no ':' and no surrounding spaces
    assert _post(env, "", {"aggregate": {"name": "x",
                                         "availability_zone": "a:b"}}
                 ).status_int == 400
    assert _post(env, "", {"aggregate": {"name": " x"}}).status_int == 400


def test_errors(env):
    a = _create(env, name="a", zone=None)
    assert _post(env, "", {"aggregate": {"name": "a"}}).status_int == 409
    assert call(env, "/v2.1/os-aggregates/abc").json["badRequest"][
        "message"] == "Invalid input received: id must be an integer"
    assert call(env, "/v2.1/os-aggregates/999").status_int == 404
    url = f"/{a['id']}/action"
    assert _post(env, url, {"add_host": {"host": "nohost"}}
                 ).status_int == 404
    assert _post(env, url, {"add_host": {"host": "host1"}}).status_int == 200
    assert _post(env, url, {"add_host": {"host": "host1"}}).status_int == 409
    miss = _post(env, url, {"remove_host": {"host": "host2"}})
    assert miss.status_int == 404
    assert miss.json["itemNotFound"]["message"] == \
        f"Cannot remove host host2 in aggregate {a['id']}"
    assert _post(env, url, {"frob": {}}).status_int == 400
    assert _post(env, "/999/action", {"set_metadata": {"metadata": {}}}
                 ).status_int == 404
    # set_metadata: None removes a key
    _post(env, url, {"set_metadata": {"metadata": {"k": "v", "j": "w"}}})
    got = _post(env, url, {"set_metadata": {"metadata": {"k": None}}})
    assert got.json["aggregate"]["metadata"] == {"j": "w"}
    assert call(env, "/v2.1/os-aggregates?x=1", headers=_h("2.102")
                ).status_int == 400


def test_image_cache_request_validation(env):
    a = _create(env, name="a", zone=None)
    body = samples.load(S + "v2.81/aggregate-images-post-req.json")
    assert _post(env, f"/{a['id']}/images", body, "2.80").status_int == 404
    image = body["cache"][0]
    dup = _post(env, f"/{a['id']}/images", {"cache": [image, image]}, "2.81")
    assert dup.json["badRequest"]["message"] == "Duplicate images in request"
    assert _post(env, "/999/images", body, "2.81").status_int == 404
    assert _post(env, f"/{a['id']}/images", {"cache": []}, "2.81"
                 ).status_int == 400


def test_member_is_forbidden(member_env, cells_db):  # noqa: F811
    assert call(member_env, "/v2.1/os-aggregates").status_int == 403
    ctx = keel_context.get_admin_context()
    objects.Aggregate(ctx, name="x").create()
    assert call(member_env, "/v2.1/os-aggregates/1", "DELETE"
                ).status_int == 403
