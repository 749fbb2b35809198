"""Limits, quota sets and quota class sets through the API, with usage
counted from two cell databases and the API database."""
import uuid

import pytest
import sqlalchemy as sa

from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api.conftest import call
from tests.unit.api import samples

V = "OpenStack-API-Version"


def _h(version):
    return {V: f"compute {version}"}


def add_instance(url, project_id="admin", user_id="admin", vcpus=2,
                 memory_mb=512, **extra):
    eng = session.cell_engine(url)
    values = dict(uuid=str(uuid.uuid4()), project_id=project_id,
                  user_id=user_id, vcpus=vcpus, memory_mb=memory_mb,
                  deleted=0)
    values.update(extra)
    with eng.begin() as conn:
        conn.execute(sa.insert(cell_models.Instance).values(**values))


def add_group(project_id="admin", user_id="admin"):
    with session.api_engine().begin() as conn:
        conn.execute(sa.insert(api_models.InstanceGroup).values(
            uuid=str(uuid.uuid4()), project_id=project_id, user_id=user_id,
            name="g"))


@pytest.fixture
def usage(cells_db):
    urls = list(cells_db.cell_urls.values())
    add_instance(urls[0], vcpus=1, memory_mb=256)        # cell0: counted
    add_instance(urls[1], vcpus=2, memory_mb=1024)
    add_instance(urls[1], vcpus=4, memory_mb=2048, user_id="bob")
    add_instance(urls[1], deleted=5)                      # deleted
    add_instance(urls[1], vm_state="soft-delete")         # soft deleted
    add_instance(urls[1], hidden=True)                    # hidden copy
    add_instance(urls[1], project_id="other")
    add_group()
    add_group(user_id="bob")
    add_group(project_id="other")
    return urls


@pytest.mark.parametrize("version,sample", [
    ("2.1", "limits/limit-get-resp.json"),
    ("2.36", "limits/v2.36/limit-get-resp.json"),
    ("2.39", "limits/v2.39/limit-get-resp.json"),
    ("2.57", "limits/v2.57/limit-get-resp.json")])
def test_limits_match_samples(api_env, version, sample):
    resp = call(api_env, "/v2.1/limits", headers=_h(version))
    assert resp.status_int == 200
    expected = samples.load(sample)
    assert resp.json == expected  # defaults and no usage: same values


def test_limits_count_usage_across_cells(api_env, usage):
    absolute = call(api_env, "/v2.1/limits", headers=_h("2.57")).json[
        "limits"]["absolute"]
    assert absolute["totalInstancesUsed"] == 3
    assert absolute["totalCoresUsed"] == 7
    assert absolute["totalRAMUsed"] == 256 + 1024 + 2048
    assert absolute["totalServerGroupsUsed"] == 2
    other = call(api_env, "/v2.1/limits?tenant_id=other").json[
        "limits"]["absolute"]
    assert other["totalInstancesUsed"] == 1


def test_limits_other_project_needs_admin(member_env):
    headers = {"X-Auth-Token": "alice:proj-a"}
    assert call(member_env, "/v2.1/limits", headers=headers).status_int \
        == 200
    resp = call(member_env, "/v2.1/limits?tenant_id=other",
                headers=headers)
    assert resp.status_int == 403
    assert call(member_env, "/v2.1/limits?foo=1", headers=dict(
        headers, **_h("2.75"))).status_int == 400


@pytest.mark.parametrize("version,folder", [
    ("2.1", ""), ("2.36", "v2.36/"), ("2.57", "v2.57/")])
def test_quota_sets_match_samples(api_env, version, folder):
    for path, name in (("/fake_tenant", "quotas-show-get-resp.json"),
                       ("/fake_tenant/defaults",
                        "quotas-show-defaults-get-resp.json"),
                       ("/fake_tenant/detail",
                        "quotas-show-detail-get-resp.json")):
        resp = call(api_env, "/v2.1/os-quota-sets" + path,
                    headers=_h(version))
        assert resp.status_int == 200
        assert resp.json == samples.load(f"os-quota-sets/{folder}{name}"), \
            (version, name)


def test_quota_detail_counts_project_and_user(api_env, usage):
    detail = call(api_env, "/v2.1/os-quota-sets/admin/detail").json[
        "quota_set"]
    assert detail["instances"] == {"in_use": 3, "limit": 10, "reserved": 0}
    assert detail["cores"]["in_use"] == 7
    assert detail["server_groups"]["in_use"] == 2
    assert detail["key_pairs"]["in_use"] == 0
    bob = call(api_env, "/v2.1/os-quota-sets/admin/detail?user_id=bob")
    assert bob.json["quota_set"]["instances"]["in_use"] == 1
    assert bob.json["quota_set"]["ram"]["in_use"] == 2048
    assert bob.json["quota_set"]["server_groups"]["in_use"] == 1


def test_update_checks_usage_unless_forced(api_env, usage):
    url = "/v2.1/os-quota-sets/admin"
    low = call(api_env, url, "PUT", body={"quota_set": {"instances": 2}})
    assert low.status_int == 400
    assert low.json["badRequest"]["message"] == (
        "Quota limit 2 for instances must be greater than or equal to "
        "already used and reserved 3.")
    # nothing changed by the refused request
    assert call(api_env, url).json["quota_set"]["instances"] == 10
    forced = call(api_env, url, "PUT", body=samples.load(
        "os-quota-sets/quotas-update-force-post-req.json"))
    assert forced.status_int == 200
    assert forced.json == samples.load(
        "os-quota-sets/quotas-update-force-post-resp.json") | {
        "quota_set": dict(samples.load(
            "os-quota-sets/quotas-update-force-post-resp.json")[
                "quota_set"], instances=45, cores=20)}
    ok = call(api_env, url, "PUT", body={"quota_set": {"cores": "45",
                                                       "ram": -1}})
    assert ok.json["quota_set"]["cores"] == 45
    assert ok.json["quota_set"]["ram"] == -1
    assert "id" not in ok.json["quota_set"]
    shown = call(api_env, url).json["quota_set"]
    assert (shown["instances"], shown["cores"], shown["ram"]) == \
        (45, 45, -1)
    bad = call(api_env, url, "PUT", body={"quota_set": {"cores": -2}})
    assert bad.status_int == 400
    # 2.57 no longer knows injected files
    assert call(api_env, url, "PUT", _h("2.57"), {"quota_set": {
        "injected_files": 1}}).status_int == 400


def test_user_quotas_and_delete(api_env, usage):
    url = "/v2.1/os-quota-sets/admin"
    call(api_env, url, "PUT", body={"quota_set": {"instances": 20}})
    too_high = call(api_env, url + "?user_id=bob", "PUT",
                    body={"quota_set": {"instances": 21}})
    assert too_high.status_int == 400
    assert too_high.json["badRequest"]["message"] == (
        "Quota limit 21 for instances must be less than or equal to 20.")
    resp = call(api_env, url + "?user_id=bob", "PUT",
                body={"quota_set": {"instances": 5}})
    assert resp.json["quota_set"]["instances"] == 5
    assert call(api_env, url + "?user_id=bob").json["quota_set"][
        "instances"] == 5
    assert call(api_env, url).json["quota_set"]["instances"] == 20
    assert call(api_env, url + "?user_id=bob", "DELETE").status_int == 202
    assert call(api_env, url + "?user_id=bob").json["quota_set"][
        "instances"] == 20
    assert call(api_env, url, "DELETE").status_int == 202
    assert call(api_env, url).json["quota_set"]["instances"] == 10


def test_member_cannot_update_or_read_other_project(member_env):
    headers = {"X-Auth-Token": "alice:proj-a"}
    mine = call(member_env, "/v2.1/os-quota-sets/proj-a", headers=headers)
    assert mine.status_int == 200
    assert call(member_env, "/v2.1/os-quota-sets/proj-b",
                headers=headers).status_int == 403
    assert call(member_env, "/v2.1/os-quota-sets/proj-a", "PUT", headers,
                {"quota_set": {"cores": 1}}).status_int == 403
    assert call(member_env, "/v2.1/os-quota-sets/proj-b/defaults",
                headers=headers).status_int == 200


@pytest.mark.parametrize("version,folder", [
    ("2.1", ""), ("2.50", "v2.50/"), ("2.57", "v2.57/")])
def test_quota_classes_match_samples(api_env, version, folder):
    show = call(api_env, "/v2.1/os-quota-class-sets/default",
                headers=_h(version))
    assert show.json == samples.load(
        f"os-quota-class-sets/{folder}quota-classes-show-get-resp.json")
    req = samples.load(
        f"os-quota-class-sets/{folder}quota-classes-update-post-req.json")
    upd = call(api_env, "/v2.1/os-quota-class-sets/default", "PUT",
               _h(version), req)
    assert upd.status_int == 200
    assert upd.json == samples.load(
        f"os-quota-class-sets/{folder}quota-classes-update-post-resp.json")


def test_default_class_drives_defaults_and_project_limits(api_env):
    call(api_env, "/v2.1/os-quota-class-sets/default", "PUT",
         body={"quota_class_set": {"instances": 33}})
    assert call(api_env, "/v2.1/os-quota-sets/p/defaults").json[
        "quota_set"]["instances"] == 33
    assert call(api_env, "/v2.1/os-quota-sets/p").json[
        "quota_set"]["instances"] == 33
    assert call(api_env, "/v2.1/limits").json["limits"]["absolute"][
        "maxTotalInstances"] == 33


def test_noop_driver_reports_unlimited(api_env, conf):
    conf.config(driver="nova.quota.NoopQuotaDriver", group="quota")
    resp = call(api_env, "/v2.1/os-quota-sets/fake_tenant")
    assert resp.json == samples.load(
        "os-quota-sets-noop/quotas-show-get-resp.json")
    detail = call(api_env, "/v2.1/os-quota-sets/fake_tenant/detail")
    assert detail.json == samples.load(
        "os-quota-sets-noop/quotas-show-detail-get-resp.json")


@pytest.mark.parametrize("version,folder", [
    ("2.1", ""), ("2.36", "v2.36/"), ("2.57", "v2.57/")])
def test_update_samples_per_version(api_env, version, folder):
    base = f"os-quota-sets/{folder}"
    url = "/v2.1/os-quota-sets/fake_tenant"
    for req, resp, query in (
            ("quotas-update-post-req.json", "quotas-update-post-resp.json",
             ""),
            ("quotas-update-force-post-req.json",
             "quotas-update-force-post-resp.json", ""),
            ("user-quotas-update-post-req.json",
             "user-quotas-update-post-resp.json", "?user_id=fake_user")):
        got = call(api_env, url + query, "PUT", _h(version),
                   samples.load(base + req))
        assert got.status_int == 200, (req, got.text)
        expected = samples.load(base + resp)
        assert samples.shape_differences(got.json, expected) == [], req
        changed = samples.load(base + req)["quota_set"]
        for key, value in changed.items():
            if key != "force":
                assert got.json["quota_set"][key] == int(value)
    user = call(api_env, url + "?user_id=fake_user", headers=_h(version))
    assert samples.shape_differences(user.json, samples.load(
        base + "user-quotas-show-get-resp.json")) == []
    assert user.json["quota_set"]["instances"] == 9
