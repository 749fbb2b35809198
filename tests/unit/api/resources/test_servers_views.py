"""Server bodies per microversion against upstream's samples (shape), and
the request validation of /servers and its sub-resources (Nova's 400s and
404s before any database is touched)."""
import datetime

import pytest

from keel.api import microversion
from keel.api import wsgi
from keel.api.views import servers as view
from keel import context as keel_context
from keel import objects
from tests.unit.api import samples
from tests.unit.api.conftest import call

objects.register_all()
V = "OpenStack-API-Version"
UUID = "0e44cc9c-e052-415d-afbf-469b0d384170"
SHOW_SAMPLES = ["2.1", "2.3", "2.9", "2.16", "2.19", "2.47", "2.52", "2.63",
                "2.71", "2.73", "2.90", "2.94", "2.96", "2.98", "2.100"]
# Present or not depending on policy and state, not on the version.
POLICY_KEYS = ("OS-EXT-SRV-ATTR:host", "OS-EXT-SRV-ATTR:hypervisor_hostname",
               "OS-EXT-SRV-ATTR:instance_name", "OS-EXT-SRV-ATTR:kernel_id",
               "OS-EXT-SRV-ATTR:ramdisk_id", "OS-EXT-SRV-ATTR:launch_index",
               "OS-EXT-SRV-ATTR:reservation_id", "OS-EXT-SRV-ATTR:user_data",
               "OS-EXT-SRV-ATTR:root_device_name", "host_status",
               "OS-EXT-SRV-ATTR:hostname", "metadata", "extra_specs",
               "properties", "scheduler_hints", "addresses")


def _request(version, admin=True):
    req = wsgi.Request.blank(f"/v2.1/servers/{UUID}")
    req.environ[wsgi.ENV_VERSION] = microversion.as_version(version)
    req.environ[wsgi.ENV_CONTEXT] = keel_context.RequestContext(
        user_id="fake", project_id="p", is_admin=admin,
        roles=["admin"] if admin else ["member"])
    return req


def _instance(**kw):
    flavor = objects.Flavor(id=1, flavorid="1", name="m1.tiny",
                            memory_mb=512, vcpus=1, root_gb=1,
                            ephemeral_gb=0, swap=0, extra_specs={})
    values = dict(
        uuid=UUID, id=7, display_name="new-server-test", project_id="p",
        user_id="fake", vm_state="active", task_state=None, power_state=1,
        host="compute", node="node1", hostname="new-server-test",
        created_at=datetime.datetime(2026, 1, 1,
                                     tzinfo=datetime.timezone.utc),
        updated_at=datetime.datetime(2026, 1, 2,
                                     tzinfo=datetime.timezone.utc),
        launched_at=None, terminated_at=None, image_ref="img",
        flavor=flavor, metadata={}, system_metadata={}, locked=False,
        availability_zone="nova", access_ip_v4="1.2.3.4",
        access_ip_v6="80fe::", key_name=None, config_drive="",
        display_description=None, auto_disk_config=True, progress=0,
        reservation_id="r-1", launch_index=0, kernel_id="", ramdisk_id="",
        root_device_name="/dev/vda", user_data=None, deleted=False,
        tags=objects.TagList(objects=[]), trusted_certs=None)
    values.update(kw)
    inst = objects.Instance(**values)
    inst.info_cache = objects.InstanceInfoCache(network_info=[{
        "address": "00:0c:29:0d:11:74", "network": {"label": "private",
            "subnets": [{"version": 4, "ips": [{
                "address": "192.168.1.30", "type": "fixed",
                "version": 4}]}]}}])
    inst.security_groups = objects.SecurityGroupList(objects=[])
    return inst


@pytest.mark.parametrize("version", SHOW_SAMPLES)
def test_show_body_matches_sample(version):
    req = _request(version)
    extras = view.Extras(show_extended=True, show_host_status=True,
                         show_extra_specs=True,
                         volumes={UUID: [{"id": "v1",
                                          "delete_on_termination": False}]},
                         server_groups={UUID: []},
                         pinned_az={UUID: "us-west"},
                         host_status={UUID: "UP"})
    body = {"server": view.server(req, _instance(), extras, for_show=True)}
    name = "servers/server-get-resp.json" if version == "2.1" else \
        f"servers/v{version}/server-get-resp.json"
    diffs = samples.shape_differences(body, samples.load(name),
                                      ignore=POLICY_KEYS)
    assert diffs == []


UPDATE_SAMPLES = ["2.1", "2.47", "2.63", "2.71", "2.73", "2.75", "2.90",
                  "2.94", "2.96", "2.98", "2.100", "2.104"]


@pytest.mark.parametrize("version", UPDATE_SAMPLES)
def test_update_body_matches_sample(version):
    req = _request(version)
    extras = view.Extras(show_extended=True, show_host_status=True,
                         show_extra_specs=True, server_groups={UUID: []},
                         pinned_az={UUID: "us-west"},
                         host_status={UUID: "UP"})
    body = {"server": view.updated(req, _instance(), extras)}
    name = "servers/server-update-resp.json" if version == "2.1" else \
        f"servers/v{version}/server-update-resp.json"
    diffs = samples.shape_differences(
        body, samples.load(name),
        ignore=POLICY_KEYS + ("os-extended-volumes:volumes_attached",))
    assert diffs == []


def test_admin_only_attributes_follow_the_policy_flag():
    req = _request("2.89", admin=False)
    body = view.server(req, _instance(), view.Extras())
    assert not [k for k in body if k.startswith("OS-EXT-SRV-ATTR")]
    admin = view.server(_request("2.89"), _instance(),
                        view.Extras(show_extended=True))
    assert admin["OS-EXT-SRV-ATTR:host"] == "compute"
    assert admin["OS-EXT-SRV-ATTR:instance_name"] == "instance-00000007"
    # from 2.90 everyone sees the hostname
    assert view.server(_request("2.90", admin=False), _instance(),
                       view.Extras())["OS-EXT-SRV-ATTR:hostname"] == \
        "new-server-test"


def test_progress_and_fault_depend_on_status():
    shut = view.server(_request("2.1"), _instance(vm_state="stopped"),
                       view.Extras())
    assert shut["status"] == "SHUTOFF" and "progress" not in shut
    fault = objects.InstanceFault(code=500, message="boom", details="tb",
                                  created_at=datetime.datetime(
                                      2026, 1, 1,
                                      tzinfo=datetime.timezone.utc))
    err = view.server(_request("2.1", admin=False),
                      _instance(vm_state="error", fault=fault),
                      view.Extras())
    assert err["status"] == "ERROR"
    assert err["fault"]["message"] == "boom" and "details" not in err["fault"]
    admin = view.server(_request("2.1"),
                        _instance(vm_state="error", fault=fault),
                        view.Extras())
    assert admin["fault"]["details"] == "tb"


def test_flavor_before_and_after_247():
    old = view.server(_request("2.46"), _instance(), view.Extras())
    assert old["flavor"]["id"] == "1" and "links" in old["flavor"]
    new = view.server(_request("2.47"), _instance(), view.Extras())
    assert new["flavor"]["original_name"] == "m1.tiny"
    assert "extra_specs" not in new["flavor"]


def test_minimal_record_of_a_down_cell():
    inst = objects.Instance(uuid=UUID, project_id="p", user_id="u",
                            created_at=datetime.datetime(
                                2026, 1, 1, tzinfo=datetime.timezone.utc))
    assert view.is_minimal(inst)
    assert set(view.minimal(_request("2.69"), inst)) == \
        {"id", "status", "links"}
    assert set(view.minimal(_request("2.69"), inst, detail=True)) == \
        {"id", "status", "links", "tenant_id", "created"}


# --- validation through the whole stack (no database needed) -----------

@pytest.mark.parametrize("query,version", [
    ("limit=-1", "2.1"), ("limit=x", "2.1"), ("sort_key=bogus", "2.1"),
    ("changes-since=notadate", "2.1"), ("foo=1", "2.75"),
    ("sort_key=id", "2.75"), ("locked=maybe", "2.73"),
])
def test_list_query_errors_are_400(dev_app, query, version):
    for path in ("/v2.1/servers", "/v2.1/servers/detail"):
        resp = call(dev_app, f"{path}?{query}",
                    headers={V: f"compute {version}"})
        assert resp.status_int == 400, resp.text
        assert "badRequest" in resp.json


@pytest.mark.parametrize("body,version", [
    ({"server": {"name": ""}}, "2.1"),
    ({"server": {"name": " lead"}}, "2.1"),
    ({"server": {"description": "x"}}, "2.18"),
    ({"server": {"hostname": "x"}}, "2.90"),
    ({"server": {"hostname": "bad host"}}, "2.94"),
    ({"server": {"pinned_availability_zone": "az"}}, "2.103"),
    ({"server": {"accessIPv4": "nope"}}, "2.1"),
    ({"server": {"OS-DCF:diskConfig": "SOMETIMES"}}, "2.1"),
    ({"srv": {}}, "2.1"),
])
def test_update_body_errors_are_400(dev_app, body, version):
    resp = call(dev_app, f"/v2.1/servers/{UUID}", method="PUT", body=body,
                headers={V: f"compute {version}"})
    assert resp.status_int == 400, resp.text


def test_metadata_and_tag_bodies_are_validated(dev_app):
    base = f"/v2.1/servers/{UUID}"
    bad = [("POST", "/metadata", {"metadata": {"k": 1}}),
           ("PUT", "/metadata", {"metadata": {"": "v"}}),
           ("PUT", "/metadata/k", {"meta": {"k": "v", "j": "w"}}),
           ("PUT", "/tags", {"tags": ["a/b"]}),
           ("PUT", "/tags", {"tags": ["t"] * 51})]
    for method, path, body in bad:
        resp = call(dev_app, base + path, method=method, body=body,
                    headers={V: "compute 2.26"})
        assert resp.status_int == 400, (path, body, resp.text)


def test_versioned_sub_resources_are_404_before_their_version(dev_app):
    assert call(dev_app, f"/v2.1/servers/{UUID}/tags",
                headers={V: "compute 2.25"}).status_int == 404
    assert call(dev_app, f"/v2.1/servers/{UUID}/topology",
                headers={V: "compute 2.77"}).status_int == 404
