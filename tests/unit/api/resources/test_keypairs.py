"""os-keypairs through the API: every microversion's shape, generation,
import with fingerprints, other users' keys for admins, paging, quota."""
import pytest

from keel.compute_api import keypairs as keypairs_api
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api.conftest import call
from tests.unit.api import samples

V = "OpenStack-API-Version"
URL = "/v2.1/os-keypairs"
SAMPLE_KEY = samples.load("os-keypairs/keypairs-import-post-req.json")[
    "keypair"]["public_key"]
SAMPLE_FP = samples.load("os-keypairs/keypairs-import-post-resp.json")[
    "keypair"]["fingerprint"]


def _h(version, **extra):
    return dict({V: f"compute {version}"}, **extra)


def _import(app, name="k1", version="2.1", **extra):
    body = {"keypair": dict({"name": name, "public_key": SAMPLE_KEY},
                            **extra)}
    return call(app, URL, "POST", _h(version), body)


def test_ssh_fingerprint_is_novas():
    assert keypairs_api.ssh_fingerprint(SAMPLE_KEY) == SAMPLE_FP


@pytest.mark.parametrize("version,folder,status", [
    ("2.1", "", 200), ("2.2", "v2.2/", 201), ("2.10", "v2.10/", 201),
    ("2.92", "v2.92/", 201)])
def test_import_matches_sample(api_env, version, folder, status):
    req = samples.load(f"os-keypairs/{folder}keypairs-import-post-req.json")
    req["keypair"].pop("user_id", None)
    resp = call(api_env, URL, "POST", _h(version), req)
    assert resp.status_int == status, resp.text
    expected = samples.load(
        f"os-keypairs/{folder}keypairs-import-post-resp.json")
    assert samples.shape_differences(resp.json, expected) == []
    assert resp.json["keypair"]["user_id"] == "admin"
    assert resp.json["keypair"]["fingerprint"] == \
        keypairs_api.ssh_fingerprint(req["keypair"]["public_key"])


@pytest.mark.parametrize("version,folder,status", [
    ("2.1", "", 200), ("2.2", "v2.2/", 201), ("2.10", "v2.10/", 201),
    ("2.35", "v2.35/", 201)])
def test_generate_matches_sample(api_env, version, folder, status):
    req = samples.load(f"os-keypairs/{folder}keypairs-post-req.json")
    req["keypair"].pop("user_id", None)
    resp = call(api_env, URL, "POST", _h(version), req)
    assert resp.status_int == status, resp.text
    expected = samples.load(f"os-keypairs/{folder}keypairs-post-resp.json")
    assert samples.shape_differences(resp.json, expected) == []
    got = resp.json["keypair"]
    assert got["public_key"].startswith("ssh-rsa ")
    assert got["public_key"].endswith(" Generated-by-Nova")
    assert got["private_key"].startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert got["fingerprint"] == \
        keypairs_api.ssh_fingerprint(got["public_key"])


def test_generation_is_gone_at_292(api_env):
    resp = call(api_env, URL, "POST", _h("2.92"), {"keypair": {"name": "x"}})
    assert resp.status_int == 400
    assert "public_key" in resp.json["badRequest"]["message"]
    # names with @ and . are fine from 2.92 only
    assert _import(api_env, "me@host.x", "2.92").status_int == 201
    assert _import(api_env, "me@host.x", "2.91").status_int == 400


def test_x509_generated_and_imported(api_env):
    resp = call(api_env, URL, "POST", _h("2.2"),
                {"keypair": {"name": "win", "type": "x509"}})
    assert resp.status_int == 201
    cert = resp.json["keypair"]["public_key"]
    assert cert.startswith("-----BEGIN CERTIFICATE-----")
    assert resp.json["keypair"]["type"] == "x509"
    again = _import(api_env, "win2", "2.2", type="x509", public_key=cert)
    assert again.json["keypair"]["fingerprint"] == \
        resp.json["keypair"]["fingerprint"]
    bad = _import(api_env, "win3", "2.2", type="x509")  # an ssh key
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"].startswith(
        "Keypair data is invalid: failed to generate X509 fingerprint.")


def test_bad_public_key_and_duplicates(api_env):
    bad = _import(api_env, public_key="ssh-rsa not-a-key")
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"] == \
        "Keypair data is invalid: failed to generate fingerprint"
    assert _import(api_env).status_int == 200
    dup = _import(api_env)
    assert dup.status_int == 409
    assert dup.json["conflictingRequest"]["message"] == \
        "Key pair 'k1' already exists."
    assert _import(api_env, "bad/name").status_int == 400


@pytest.mark.parametrize("version,folder", [
    ("2.1", ""), ("2.2", "v2.2/"), ("2.10", "v2.10/")])
def test_list_and_show_match_samples(api_env, version, folder):
    _import(api_env, "k1")
    lst = call(api_env, URL, headers=_h(version))
    assert samples.shape_differences(lst.json, samples.load(
        f"os-keypairs/{folder}keypairs-list-resp.json")) == []
    one = call(api_env, URL + "/k1", headers=_h(version))
    assert one.status_int == 200
    assert samples.shape_differences(one.json, samples.load(
        f"os-keypairs/{folder}keypairs-get-resp.json")) == []
    assert one.json["keypair"]["deleted"] is False
    assert one.json["keypair"]["fingerprint"] == SAMPLE_FP


def test_paging_from_235(api_env):
    for name in ("a", "b", "c"):
        _import(api_env, name, "2.35")
    page = call(api_env, URL + "?limit=2", headers=_h("2.35"))
    names = [k["keypair"]["name"] for k in page.json["keypairs"]]
    assert names == ["a", "b"]
    assert samples.shape_differences(page.json, samples.load(
        "os-keypairs/v2.35/keypairs-list-resp.json")) == []
    assert "marker=b" in page.json["keypairs_links"][0]["href"]
    rest = call(api_env, URL + "?limit=2&marker=b", headers=_h("2.35"))
    assert [k["keypair"]["name"] for k in rest.json["keypairs"]] == ["c"]
    assert "keypairs_links" not in rest.json
    bad = call(api_env, URL + "?marker=zzz", headers=_h("2.35"))
    assert bad.status_int == 400
    assert bad.json["badRequest"]["message"] == \
        "Marker zzz could not be found."
    # before 2.35 paging parameters are ignored
    old = call(api_env, URL + "?limit=1", headers=_h("2.34"))
    assert len(old.json["keypairs"]) == 3
    assert call(api_env, URL + "?foo=1", headers=_h("2.75")).status_int \
        == 400


def test_admin_manages_other_users_keys(api_env, member_env):
    resp = _import(api_env, "bobs", "2.10", user_id="bob")
    assert resp.status_int == 201 and resp.json["keypair"]["user_id"] == \
        "bob"
    assert call(api_env, URL + "/bobs").status_int == 404  # not admin's
    assert call(api_env, URL + "/bobs?user_id=bob",
                headers=_h("2.10")).status_int == 200
    lst = call(api_env, URL + "?user_id=bob", headers=_h("2.10"))
    assert [k["keypair"]["name"] for k in lst.json["keypairs"]] == ["bobs"]
    # a member may not act for someone else
    member = {"X-Auth-Token": "alice:proj-a"}
    denied = call(member_env, URL + "?user_id=bob",
                  headers=_h("2.10", **member))
    assert denied.status_int == 403
    own = call(member_env, URL, "POST", _h("2.10", **member),
               {"keypair": {"name": "mine", "public_key": SAMPLE_KEY}})
    assert own.status_int == 201 and own.json["keypair"]["user_id"] == \
        "alice"
    assert call(api_env, URL + "/bobs?user_id=bob", "DELETE",
                _h("2.10")).status_int == 204
    assert call(api_env, URL + "/bobs?user_id=bob", "DELETE",
                _h("2.10")).status_int == 404


def test_delete_status_per_version(api_env):
    _import(api_env, "a")
    _import(api_env, "b")
    assert call(api_env, URL + "/a", "DELETE").status_int == 202
    assert call(api_env, URL + "/b", "DELETE", _h("2.2")).status_int == 204
    missing = call(api_env, URL + "/b", "DELETE", _h("2.2"))
    assert missing.status_int == 404
    assert missing.json["itemNotFound"]["message"] == \
        "Keypair b not found for user admin"


def test_key_pair_quota(api_env):
    call(api_env, "/v2.1/os-quota-sets/admin", "PUT",
         body={"quota_set": {"key_pairs": 2}})
    assert _import(api_env, "a").status_int == 200
    assert _import(api_env, "b").status_int == 200
    over = _import(api_env, "c")
    assert over.status_int == 403
    assert over.json["forbidden"]["message"] == \
        "Quota exceeded, too many key pairs."
    # another user's keys are counted separately
    assert _import(api_env, "c", "2.10", user_id="bob").status_int == 201
