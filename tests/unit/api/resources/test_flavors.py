"""Flavors: list/detail/show, manage, access and extra specs through the
whole API stack on SQLite databases."""
import pytest

from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api.conftest import call
from tests.unit.api import samples

V = "OpenStack-API-Version"
MEMBER = {"X-Auth-Token": "alice:proj-a"}


def _h(version, **extra):
    return dict({V: f"compute {version}"}, **extra)


def _create(app, version="2.1", **flavor):
    body = {"flavor": dict({"name": "m1.test", "ram": 512, "vcpus": 1,
                            "disk": 1}, **flavor)}
    return call(app, "/v2.1/flavors", "POST", _h(version), body)


def _flavor_sample(path):
    return samples.load(path)["flavor"]


def _no_spec_values(doc):
    """Extra spec keys are example data; the shape is "a dict"."""
    if isinstance(doc, dict):
        return {k: ({} if k == "extra_specs" else _no_spec_values(v))
                for k, v in doc.items()}
    if isinstance(doc, list):
        return [_no_spec_values(v) for v in doc]
    return doc


@pytest.mark.parametrize("version,sample", [
    ("2.1", "flavor-manage/flavor-create-post-resp.json"),
    ("2.55", "flavor-manage/v2.55/flavor-create-post-resp.json"),
    ("2.61", "flavor-manage/v2.61/flavor-create-post-resp.json"),
    ("2.75", "flavor-manage/v2.75/flavor-create-post-resp.json"),
    ("2.102", "flavor-manage/v2.102/flavor-create-post-resp.json"),
])
def test_create_matches_sample(api_env, version, sample):
    resp = _create(api_env, version, id="10", rxtx_factor=2.0) \
        if version != "2.102" else _create(api_env, version, id="10")
    assert resp.status_int == 200, resp.text
    got = resp.json["flavor"]
    assert samples.shape_differences(
        got, _no_spec_values(_flavor_sample(sample))) == []
    assert got["id"] == "10" and got["ram"] == 512
    assert got["swap"] == ("" if version < "2.75" and version != "2.102"
                           else 0)


def test_create_generates_uuid_id_and_conflicts(api_env):
    first = _create(api_env, name="a")
    assert first.status_int == 200
    assert len(first.json["flavor"]["id"]) == 36
    dup_name = _create(api_env, name="a")
    assert dup_name.status_int == 409
    assert dup_name.json["conflictingRequest"]["message"] == \
        "Flavor with name a already exists."
    _create(api_env, name="b", id="7")
    dup_id = _create(api_env, name="c", id="7")
    assert dup_id.status_int == 409
    assert dup_id.json["conflictingRequest"]["message"] == \
        "Flavor with ID 7 already exists."


def test_create_bad_input_is_400(api_env):
    resp = _create(api_env, ram=0)
    assert resp.status_int == 400
    assert "ram" in resp.json["badRequest"]["message"]
    assert _create(api_env, description="x").status_int == 400  # < 2.55
    assert _create(api_env, "2.102", rxtx_factor=1.0).status_int == 400


def test_create_forbidden_for_member(member_env):
    resp = _create(member_env)
    assert resp.status_int == 403
    assert "os_compute_api:os-flavor-manage:create" in \
        resp.json["forbidden"]["message"]


@pytest.mark.parametrize("version,folder", [
    ("2.1", ""), ("2.55", "v2.55/"), ("2.61", "v2.61/"), ("2.75", "v2.75/"),
    ("2.102", "v2.102/")])
def test_list_detail_show_match_samples(api_env, version, folder):
    _create(api_env, id="1", name="m1.tiny")
    _create(api_env, id="2", name="m1.small", ram=2048, disk=20)
    lst = call(api_env, "/v2.1/flavors", headers=_h(version))
    det = call(api_env, "/v2.1/flavors/detail", headers=_h(version))
    one = call(api_env, "/v2.1/flavors/1", headers=_h(version))
    for resp, name in ((lst, "flavors-list-resp.json"),
                       (det, "flavors-detail-resp.json"),
                       (one, "flavor-get-resp.json")):
        assert resp.status_int == 200
        expected = samples.load(f"flavors/{folder}{name}")
        assert samples.shape_differences(
            resp.json, _no_spec_values(expected)) == [], name
    assert [f["id"] for f in lst.json["flavors"]] == ["1", "2"]
    assert one.json["flavor"]["links"][0]["href"].endswith("/flavors/1")


def test_show_unknown_is_404(api_env):
    resp = call(api_env, "/v2.1/flavors/nope")
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == \
        "Flavor nope could not be found."


def test_filters_sort_and_paging(api_env):
    for i, (ram, disk) in enumerate([(512, 1), (1024, 10), (2048, 20)]):
        _create(api_env, id=str(i + 1), name=f"f{i}", ram=ram, disk=disk)
    ids = lambda r: [f["id"] for f in r.json["flavors"]]  # noqa: E731
    assert ids(call(api_env, "/v2.1/flavors?minRam=1000")) == ["2", "3"]
    assert ids(call(api_env, "/v2.1/flavors?minDisk=20")) == ["3"]
    assert ids(call(api_env, "/v2.1/flavors?sort_key=memory_mb"
                             "&sort_dir=desc")) == ["3", "2", "1"]
    page = call(api_env, "/v2.1/flavors?limit=2")
    assert ids(page) == ["1", "2"]
    nxt = page.json["flavors_links"][0]
    assert nxt["rel"] == "next" and "marker=2" in nxt["href"]
    rest = call(api_env, "/v2.1/flavors/detail?limit=2&marker=2")
    assert ids(rest) == ["3"] and "flavors_links" not in rest.json
    bad = call(api_env, "/v2.1/flavors?minRam=x")
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"] == "Invalid minRam filter [x]"
    bad = call(api_env, "/v2.1/flavors?marker=99")
    assert bad.json["badRequest"]["message"] == "marker [99] not found"
    assert call(api_env, "/v2.1/flavors?sort_key=bogus").status_int == 400
    # 2.75 refuses unknown parameters, 2.1 ignores them
    assert call(api_env, "/v2.1/flavors?foo=1").status_int == 200
    assert call(api_env, "/v2.1/flavors?foo=1",
                headers=_h("2.75")).status_int == 400
    named = call(api_env, "/v2.1/flavors?name=f1", headers=_h("2.102"))
    assert ids(named) == ["2"]


def test_private_flavors_and_is_public(api_env, member_env):
    _create(api_env, id="pub", name="pub")
    _create(api_env, "2.1", id="priv", name="priv",
            **{"os-flavor-access:is_public": False})
    ids = lambda r: sorted(f["id"] for f in r.json["flavors"])  # noqa
    assert ids(call(api_env, "/v2.1/flavors")) == ["pub"]
    assert ids(call(api_env, "/v2.1/flavors?is_public=false")) == ["priv"]
    assert ids(call(api_env, "/v2.1/flavors?is_public=None")) == \
        ["priv", "pub"]
    assert call(api_env, "/v2.1/flavors?is_public=maybe").json[
        "badRequest"]["message"] == "Invalid is_public filter [maybe]"
    # a member sees public ones whatever it asks, plus shared private ones
    assert ids(call(member_env, "/v2.1/flavors?is_public=false",
                    headers=MEMBER)) == ["pub"]
    assert call(member_env, "/v2.1/flavors/priv",
                headers=MEMBER).status_int == 404
    add = call(api_env, "/v2.1/flavors/priv/action", "POST", _h("2.7"),
               {"addTenantAccess": {"tenant": "proj-a"}})
    assert add.status_int == 200
    assert add.json == {"flavor_access": [
        {"flavor_id": "priv", "tenant_id": "proj-a"}]}
    assert ids(call(member_env, "/v2.1/flavors", headers=MEMBER)) == \
        ["priv", "pub"]
    assert call(member_env, "/v2.1/flavors/priv",
                headers=MEMBER).status_int == 200


def test_flavor_access(api_env, member_env):
    _create(api_env, id="10", **{"os-flavor-access:is_public": False})
    _create(api_env, id="11", name="public")
    url = "/v2.1/flavors/10/action"
    add = {"addTenantAccess": {"tenant": "p1"}}
    assert call(api_env, url, "POST", body=add).status_int == 200
    again = call(api_env, url, "POST", body=add)
    assert again.status_int == 409
    lst = call(api_env, "/v2.1/flavors/10/os-flavor-access")
    assert samples.shape_differences(
        lst.json, samples.load("flavor-access/flavor-access-list-resp.json")
    ) == []
    assert lst.json["flavor_access"][0]["tenant_id"] == "p1"
    public = call(api_env, "/v2.1/flavors/11/os-flavor-access")
    assert public.status_int == 404
    assert public.json["itemNotFound"]["message"] == \
        "Access list not available for public flavors."
    # public flavor: allowed before 2.7, 409 after
    assert call(api_env, "/v2.1/flavors/11/action", "POST", _h("2.7"),
                add).status_int == 409
    rm = call(api_env, url, "POST", body={"removeTenantAccess":
                                          {"tenant": "p1"}})
    assert rm.json == {"flavor_access": []}
    gone = call(api_env, url, "POST", body={"removeTenantAccess":
                                            {"tenant": "p1"}})
    assert gone.status_int == 404
    assert call(api_env, url, "POST", body={"bogus": {}}).status_int == 400
    assert call(member_env, "/v2.1/flavors/10/os-flavor-access",
                headers=MEMBER).status_int == 403


def test_update_description_and_delete(api_env):
    _create(api_env, "2.55", id="5", description="old")
    old = call(api_env, "/v2.1/flavors/5", "PUT", _h("2.54"),
               {"flavor": {"description": "new"}})
    assert old.status_int == 404  # no PUT before 2.55
    resp = call(api_env, "/v2.1/flavors/5", "PUT", _h("2.55"),
                {"flavor": {"description": "new"}})
    assert resp.status_int == 200
    assert resp.json["flavor"]["description"] == "new"
    assert call(api_env, "/v2.1/flavors/5", headers=_h("2.55")).json[
        "flavor"]["description"] == "new"
    assert call(api_env, "/v2.1/flavors/6", "PUT", _h("2.55"),
                {"flavor": {"description": "x"}}).status_int == 404
    assert call(api_env, "/v2.1/flavors/5", "DELETE").status_int == 202
    assert call(api_env, "/v2.1/flavors/5", "DELETE").status_int == 404


def test_extra_specs(api_env, member_env):
    _create(api_env, id="1")
    base = "/v2.1/flavors/1/os-extra_specs"
    body = samples.load(
        "flavor-extra-specs/flavor-extra-specs-create-req.json")
    created = call(api_env, base, "POST", _h("2.86"), body)
    assert created.status_int == 200 and created.json == body
    lst = call(api_env, base)
    assert lst.json == body
    assert call(api_env, base + "/hw:numa_nodes").json == \
        {"hw:numa_nodes": "1"}
    upd = call(api_env, base + "/hw:numa_nodes", "PUT", _h("2.86"),
               {"hw:numa_nodes": "2"})
    assert upd.json == {"hw:numa_nodes": "2"}
    mismatch = call(api_env, base + "/hw:cpu_policy", "PUT",
                    body={"hw:numa_nodes": "2"})
    assert mismatch.json["badRequest"]["message"] == \
        "Request body and URI mismatch"
    # numbers are stored as strings
    call(api_env, base, "POST", body={"extra_specs": {"custom": 5}})
    assert call(api_env, base + "/custom").json == {"custom": "5"}
    # shown in flavor bodies from 2.61
    show = call(api_env, "/v2.1/flavors/1", headers=_h("2.61"))
    assert show.json["flavor"]["extra_specs"]["hw:numa_nodes"] == "2"
    assert "extra_specs" not in call(api_env, "/v2.1/flavors/1").json[
        "flavor"]
    assert call(api_env, base + "/custom", "DELETE").status_int == 200
    missing = call(api_env, base + "/custom")
    assert missing.status_int == 404
    assert missing.json["itemNotFound"]["message"] == \
        "Flavor 1 has no extra specs with key custom."
    assert call(api_env, base + "/custom", "DELETE").status_int == 404
    assert call(member_env, base, "POST", MEMBER,
                {"extra_specs": {"a": "b"}}).status_int == 403
    assert call(member_env, base, headers=MEMBER).status_int == 200


@pytest.mark.parametrize("key,value,message", [
    ("hw:cpu_policy", "bogus", "Validation failed; 'bogus' is not one of: "
     "dedicated, shared, mixed."),
    ("hw:nonsense", "1", "Validation failed; extra spec 'hw:nonsense' does "
     "not appear to be a valid extra spec."),
    ("hw:numa_nodes", "two", "Validation failed; 'two' is not a valid "
     "integer value."),
    ("resources:VCPU", "-1", "Validation failed; '-1' is less than the min "
     "value of '0'."),
    ("trait:HW_CPU_X86_AVX", "maybe", "Validation failed; 'maybe' is not "
     "one of: required, forbidden."),
    ("hw_rng:allowed", "perhaps", "Validation failed; 'perhaps' is not a "
     "valid boolean-like value."),
])
def test_extra_spec_validation_from_286(api_env, key, value, message):
    _create(api_env, id="1")
    base = "/v2.1/flavors/1/os-extra_specs"
    body = {"extra_specs": {key: value}}
    bad = call(api_env, base, "POST", _h("2.86"), body)
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"] == message
    # before 2.86 anything goes
    assert call(api_env, base, "POST", _h("2.85"), body).status_int == 200


def test_extra_spec_unknown_namespace_allowed(api_env):
    _create(api_env, id="1")
    for key in ("vendor:thing", "plain", "resources1:CUSTOM_GPU",
                "aggregate_instance_extra_specs:ssd", "quota:cpu_shares"):
        resp = call(api_env, "/v2.1/flavors/1/os-extra_specs", "POST",
                    _h("2.86"), {"extra_specs": {key: "10"}})
        assert resp.status_int == 200, (key, resp.text)


def test_links_keep_the_project_segment(api_env):
    _create(api_env, id="1")
    token = {"X-Auth-Token": "u:6f70656e"}
    resp = call(api_env, "/v2.1/6f70656e/flavors/1", headers=token)
    links = {item["rel"]: item["href"] for item in
             resp.json["flavor"]["links"]}
    assert links["self"] == "http://localhost/v2.1/6f70656e/flavors/1"
    assert links["bookmark"] == "http://localhost/6f70656e/flavors/1"
    other = call(api_env, "/v2.1/abcdef/flavors/1", headers=token)
    assert other.status_int == 400  # URL project differs from the token's


def test_delete_takes_specs_and_access_along(api_env):
    _create(api_env, id="9", **{"os-flavor-access:is_public": False})
    call(api_env, "/v2.1/flavors/9/os-extra_specs", "POST",
         body={"extra_specs": {"a": "b"}})
    call(api_env, "/v2.1/flavors/9/action", "POST",
         body={"addTenantAccess": {"tenant": "p1"}})
    assert call(api_env, "/v2.1/flavors/9", "DELETE").status_int == 202
    again = _create(api_env, id="9", **{"os-flavor-access:is_public": False})
    assert again.status_int == 200
    assert call(api_env, "/v2.1/flavors/9/os-extra_specs").json == \
        {"extra_specs": {}}
    assert call(api_env, "/v2.1/flavors/9/os-flavor-access").json == \
        {"flavor_access": []}


@pytest.mark.parametrize("key", [
    "created_at", "description", "disabled", "ephemeral_gb", "flavorid",
    "id", "is_public", "memory_mb", "name", "root_gb", "rxtx_factor",
    "swap", "updated_at", "vcpu_weight", "vcpus"])
def test_every_sort_key_sorts(api_env, key):
    _create(api_env, id="a", name="x", ram=2048)
    _create(api_env, id="b", name="y", ram=1024)
    for direction in ("asc", "desc"):
        resp = call(api_env, f"/v2.1/flavors/detail?sort_key={key}"
                             f"&sort_dir={direction}&limit=1")
        assert resp.status_int == 200, resp.text
        assert len(resp.json["flavors"]) == 1
        assert "flavors_links" in resp.json
    by_ram = call(api_env, "/v2.1/flavors?sort_key=memory_mb")
    assert [f["id"] for f in by_ram.json["flavors"]] == ["b", "a"]
