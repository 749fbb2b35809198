"""GET /extensions: Nova's fixed extension list, equal to its samples."""
import pytest

from keel.api import routes
from keel import policies
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.conftest import conf  # noqa: F401
from tests.unit.api.conftest import dev_app  # noqa: F401

V = "OpenStack-API-Version"


@pytest.mark.parametrize("version", ["2.1", "2.101", "2.102", "latest"])
def test_list_is_novas(dev_app, version):  # noqa: F811
    resp = call(dev_app, "/v2.1/extensions",
                headers={V: f"compute {version}"})
    assert resp.status_int == 200
    assert resp.json == samples.load(
        "extension-info/extensions-list-resp.json")


def test_legacy_v2_list_has_the_v2_only_entry(dev_app):  # noqa: F811
    resp = call(dev_app, "/v2/extensions")
    assert resp.status_int == 200
    assert resp.json == samples.load(
        "extension-info/extensions-list-resp-v21-compatible.json")
    one = call(dev_app, "/v2/extensions/OS-EXT-VIF-NET")
    assert one.json["extension"]["name"] == "ExtendedVIFNet"
    missing = call(dev_app, "/v2.1/extensions/OS-EXT-VIF-NET")
    assert missing.status_int == 404


def test_show_is_novas(dev_app):  # noqa: F811
    resp = call(dev_app, "/v2.1/extensions/os-agents")
    assert resp.status_int == 200
    assert resp.json == samples.load(
        "extension-info/extensions-get-resp.json")


def test_unknown_alias_is_404(dev_app):  # noqa: F811
    resp = call(dev_app, "/v2.1/extensions/no-such-thing")
    assert resp.status_int == 404
    assert resp.json == {"itemNotFound": {
        "code": 404, "message": "The resource could not be found."}}


def test_query_parameters_refused_from_2_102(dev_app):  # noqa: F811
    ok = call(dev_app, "/v2.1/extensions?x=1", headers={V: "compute 2.101"})
    assert ok.status_int == 200
    for path in ("/v2.1/extensions?x=1", "/v2.1/extensions/NMN?x=1"):
        bad = call(dev_app, path, headers={V: "compute 2.102"})
        assert bad.status_int == 400, bad.text


def test_policy_anyone_and_overridable(dev_app, conf, tmp_path):  # noqa
    rule = {r.name: r for r in policies.list_rules()}[
        "os_compute_api:extensions"]
    assert rule.check_str == "@"
    assert [op["path"] for op in rule.operations] == [
        "/extensions", "/extensions/{extension_id}"]
    path = tmp_path / "policy.yaml"
    path.write_text('"os_compute_api:extensions": "!"\n')
    conf.config(policy_file=str(path), group="oslo_policy")
    resp = call(dev_app, "/v2.1/extensions")
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:extensions to be performed.")


def test_routed():
    assert set(routes.ROUTES["/extensions"]) == {"GET"}
    assert set(routes.ROUTES["/extensions/{id}"]) == {"GET"}
