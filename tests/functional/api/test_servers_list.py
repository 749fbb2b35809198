"""GET /servers, /servers/detail and /servers/{id} over two SQLite cells,
cell0, BuildRequests in the API database and (for the down-cell cases) a
third cell that cannot be reached; plus update, metadata, tags, ips and
topology, and openstacksdk driving the same API over HTTP."""
import datetime
import uuid

import pytest

from keel import context as keel_context
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from tests.fixtures import databases
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import BACKEND
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.functional.api.fixtures_cells import serve  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.conftest import conf  # noqa: F401

V = "OpenStack-API-Version"
PROJECT = "6f70656e737461636b20342065766572"
OTHER = "0ther0000000000000000000000000000"
CELL2_UUID = "7b3e7c9f-7d9a-4c1f-8b4d-3e2f3a4d5c6b"
DOWN_UUID = "9c4f8daf-8eab-4d2a-9c5e-4f3a4b5e6d7c"
BASE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
NETWORK_INFO = [{"id": "vif-1", "address": "fa:16:3e:00:00:01",
                 "network": {"label": "private", "subnets": [{
                     "cidr": "10.0.0.0/24", "version": 4,
                     "ips": [{"address": "10.0.0.%d", "type": "fixed",
                              "version": 4, "floating_ips": []}]}, {
                     "cidr": "fd00::/64", "version": 6,
                     "ips": [{"address": "fd00::%d", "type": "fixed",
                              "version": 6}]}]}}]


def _flavor():
    return objects.Flavor(id=1, flavorid="1", name="m1.tiny", memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={}, rxtx_factor=1.0,
                          vcpu_weight=0, disabled=False, is_public=True,
                          description=None)


def _network(n):
    import json
    text = json.dumps(NETWORK_INFO).replace("%d", str(n))
    return objects.InstanceInfoCache(network_info=json.loads(text))


class World:
    """Servers spread over cell0, cell1, cell2 and the API database."""

    def __init__(self, cells):
        self.cells = cells
        self.ctx = keel_context.get_admin_context()
        self.by_name = {}

    def cell(self, cell_uuid):
        return objects.CellMapping.get_by_uuid(self.ctx, cell_uuid)

    def server(self, name, cell_uuid, n, project=PROJECT, vm_state="active",
               task_state=None, **extra):
        inst_uuid = str(uuid.uuid4())
        cell = self.cell(cell_uuid)
        with keel_context.target_cell(self.ctx, cell) as cctxt:
            inst = objects.Instance(
                cctxt, uuid=inst_uuid, project_id=project, user_id="fake",
                display_name=name, vm_state=vm_state, task_state=task_state,
                power_state=1, created_at=BASE + datetime.timedelta(
                    minutes=n), image_ref="70a599e0-31e7-49b7-b260-"
                "868f441e862b", flavor=_flavor(), instance_type_id=1,
                hostname=name, availability_zone="nova", launch_index=0,
                info_cache=_network(n), metadata={"n": str(n)},
                system_metadata={}, locked=False, **extra)
            inst.create()
        objects.InstanceMapping(self.ctx, instance_uuid=inst_uuid,
                                cell_mapping=cell, project_id=project,
                                user_id="fake").create()
        self.by_name[name] = inst_uuid
        return inst_uuid

    def building(self, name, n, project=PROJECT):
        inst_uuid = str(uuid.uuid4())
        inst = objects.Instance(
            uuid=inst_uuid, project_id=project, user_id="fake",
            display_name=name, vm_state="building", task_state="scheduling",
            power_state=0, image_ref="70a599e0-31e7-49b7-b260-868f441e862b",
            flavor=_flavor(), instance_type_id=1, hostname=name,
            availability_zone=None, metadata={}, system_metadata={},
            locked=False, launch_index=0,
            created_at=BASE + datetime.timedelta(minutes=n))
        req = objects.BuildRequest(self.ctx, instance_uuid=inst_uuid,
                                   project_id=project, instance=inst,
                                   tags=objects.TagList(objects=[]))
        req.create()
        # BuildRequest rows get their own created_at; keep the intended one.
        from keel.db.api import models as api_models
        import sqlalchemy as sa
        with session.api_writer(self.ctx) as s:
            s.execute(sa.update(api_models.BuildRequest).where(
                api_models.BuildRequest.instance_uuid == inst_uuid).values(
                created_at=(BASE + datetime.timedelta(minutes=n))
                .replace(tzinfo=None)))
        objects.InstanceMapping(self.ctx, instance_uuid=inst_uuid,
                                cell_mapping=None, project_id=project,
                                user_id="fake").create()
        self.by_name[name] = inst_uuid
        return inst_uuid


@pytest.fixture
def world(cells_db, tmp_path):  # noqa: F811
    url = databases.create(BACKEND, prefix="keel_cell2", tmp_path=tmp_path)
    cell_models.Base.metadata.create_all(session.cell_engine(url))
    ctx = keel_context.get_admin_context()
    objects.CellMapping(ctx, uuid=CELL2_UUID, name="cell2",
                        transport_url="none:///",
                        database_connection=url).create()
    w = World(cells_db)
    # Interleaved creation times so that a correct list must merge cells.
    for n in range(10):
        w.server(f"vm{n}", CELL1_UUID if n % 2 else CELL2_UUID, n)
    w.server("failed", objects.CellMapping.CELL0_UUID, 10, vm_state="error")
    w.building("booting", 11)
    w.server("theirs", CELL1_UUID, 12, project=OTHER)
    yield w
    databases.drop(url)


def _down_cell(world, tmp_path):
    ctx = world.ctx
    bad = f"sqlite:///{tmp_path}/no/such/dir/cell.sqlite"
    cell = objects.CellMapping(ctx, uuid=DOWN_UUID, name="down",
                               transport_url="none:///",
                               database_connection=bad)
    cell.create()
    lost = str(uuid.uuid4())
    objects.InstanceMapping(ctx, instance_uuid=lost, cell_mapping=cell,
                            project_id=PROJECT, user_id="fake").create()
    return lost


def _get(app, path, version="2.1", token=f"fake:{PROJECT}", status=200):
    resp = call(app, "/v2.1" + path, headers={
        V: f"compute {version}", "X-Auth-Token": token})
    assert resp.status_int == status, resp.text
    return resp.json if resp.body else None


def _names(body):
    return [s["name"] for s in body["servers"]]


NEWEST_FIRST = ["theirs", "booting", "failed"] + \
    [f"vm{n}" for n in range(9, -1, -1)]


def test_list_merges_cells_cell0_and_build_requests(api_env, world):  # noqa
    body = _get(api_env, "/servers?all_tenants=1")
    assert _names(body) == NEWEST_FIRST
    mine = _get(api_env, "/servers")
    assert _names(mine) == NEWEST_FIRST[1:]
    assert "servers_links" not in mine


def test_sort_keys_and_directions(api_env, world):  # noqa: F811
    body = _get(api_env, "/servers?sort_key=display_name&sort_dir=asc")
    assert _names(body) == sorted(NEWEST_FIRST[1:])
    body = _get(api_env, "/servers?sort_key=created_at&sort_dir=asc")
    assert _names(body) == list(reversed(NEWEST_FIRST[1:]))


def test_marker_paging_is_exact_across_cells(api_env, world):  # noqa: F811
    seen, path = [], "/servers/detail?limit=3&sort_dir=asc"
    for _ in range(10):
        body = _get(api_env, path)
        seen += _names(body)
        links = body.get("servers_links")
        if not links:
            break
        assert len(body["servers"]) == 3
        path = "/servers/detail?" + links[0]["href"].split("?", 1)[1]
    assert seen == list(reversed(NEWEST_FIRST[1:]))


def test_marker_on_a_build_request_and_unknown_marker(api_env, world):  # noqa
    marker = world.by_name["booting"]
    body = _get(api_env, f"/servers?marker={marker}")
    assert _names(body) == NEWEST_FIRST[2:]
    resp = _get(api_env, f"/servers?marker={uuid.uuid4()}", status=400)
    assert "not found" in resp["badRequest"]["message"]


def test_filters(api_env, world):  # noqa: F811
    assert _names(_get(api_env, "/servers?name=vm[12]")) == ["vm2", "vm1"]
    assert _names(_get(api_env, "/servers?status=ERROR")) == ["failed"]
    assert _names(_get(api_env, "/servers?status=BUILD")) == ["booting"]
    assert _names(_get(api_env, "/servers?ip=10.0.0.3$")) == ["vm3"]
    assert _names(_get(api_env, "/servers?ip6=fd00::4$", "2.5")) == ["vm4"]
    assert _names(_get(api_env, "/servers?flavor=nope")) == []
    assert _names(_get(api_env, "/servers?status=nope")) == []
    _get(api_env, "/servers?status=nope", "2.38", status=400)
    assert _names(_get(api_env, "/servers?all_tenants=1&tenant_id="
                       + OTHER)) == ["theirs"]


def test_tag_filters_and_tags_api(api_env, world):  # noqa: F811
    uuid1, uuid2 = world.by_name["vm1"], world.by_name["vm2"]
    put = call(api_env, f"/v2.1/servers/{uuid1}/tags", method="PUT",
               headers={V: "compute 2.26"}, body={"tags": ["a", "b"]})
    assert put.status_int == 200 and put.json == {"tags": ["a", "b"]}
    one = call(api_env, f"/v2.1/servers/{uuid2}/tags/a", method="PUT",
               headers={V: "compute 2.26"})
    assert one.status_int == 201 and one.headers["Location"].endswith(
        f"/servers/{uuid2}/tags/a")
    again = call(api_env, f"/v2.1/servers/{uuid2}/tags/a", method="PUT",
                 headers={V: "compute 2.26"})
    assert again.status_int == 204
    assert _names(_get(api_env, "/servers?tags=a,b", "2.26")) == ["vm1"]
    assert _names(_get(api_env, "/servers?tags-any=a", "2.26")) == \
        ["vm2", "vm1"]
    assert "vm1" not in _names(_get(api_env, "/servers?not-tags=a,b",
                                    "2.26"))
    assert "vm2" in _names(_get(api_env, "/servers?not-tags=a,b", "2.26"))
    assert _get(api_env, f"/servers/{uuid1}/tags", "2.26") == \
        {"tags": ["a", "b"]}
    _get(api_env, f"/servers/{uuid1}/tags/zz", "2.26", status=404)
    _get(api_env, f"/servers/{uuid1}/tags", "2.25", status=404)
    gone = call(api_env, f"/v2.1/servers/{uuid1}/tags", method="DELETE",
                headers={V: "compute 2.26"})
    assert gone.status_int == 204
    assert _get(api_env, f"/servers/{uuid1}/tags", "2.26") == {"tags": []}
    building = world.by_name["booting"]
    conflict = call(api_env, f"/v2.1/servers/{building}/tags/x",
                    method="PUT", headers={V: "compute 2.26"})
    assert conflict.status_int == 409, conflict.text


def test_detail_and_show_match_the_samples(api_env, world):  # noqa: F811
    for version, name in (("2.1", "servers-details-resp.json"),
                          ("2.47", None), ("2.100", None)):
        body = _get(api_env, "/servers/detail?name=^vm1$", version)
        ref = samples.load(f"servers/v{version}/servers-details-resp.json"
                           if name is None else f"servers/{name}")
        diffs = samples.shape_differences(
            body, ref, ignore=("servers_links", "OS-EXT-SRV-ATTR:hostname",
                               "OS-EXT-SRV-ATTR:host",
                               "OS-EXT-SRV-ATTR:hypervisor_hostname",
                               "OS-EXT-SRV-ATTR:instance_name",
                               "OS-EXT-SRV-ATTR:kernel_id",
                               "OS-EXT-SRV-ATTR:ramdisk_id",
                               "OS-EXT-SRV-ATTR:reservation_id",
                               "OS-EXT-SRV-ATTR:launch_index",
                               "OS-EXT-SRV-ATTR:root_device_name",
                               "OS-EXT-SRV-ATTR:user_data", "host_status",
                               "OS-SRV-USG:launched_at",
                               "os-extended-volumes:volumes_attached",
                               "accessIPv4", "accessIPv6", "properties",
                               "config_drive", "key_name",
                               "pinned_availability_zone", "scheduler_hints",
                               "description", "locked_reason",
                               "trusted_image_certificates", "metadata",
                               "extra_specs"))
        assert diffs == [], (version, diffs)
        assert body["servers"][0]["metadata"] == {"n": "1"}
        if version != "2.1":
            assert body["servers"][0]["flavor"]["extra_specs"] == {}
    vm1 = world.by_name["vm1"]
    show = _get(api_env, f"/servers/{vm1}", "2.71")["server"]
    assert show["server_groups"] == []
    assert show["addresses"]["private"][0]["addr"] == "10.0.0.1"
    assert show["status"] == "ACTIVE"
    _get(api_env, f"/servers/{uuid.uuid4()}", status=404)


def test_building_server_shows_from_its_build_request(api_env, world):  # noqa
    body = _get(api_env, f"/servers/{world.by_name['booting']}", "2.26")
    assert body["server"]["status"] == "BUILD"
    assert body["server"]["tags"] == []


def test_other_projects_server_is_not_found(api_env, world):  # noqa: F811
    theirs = world.by_name["theirs"]
    resp = call(api_env, f"/v2.1/servers/{theirs}", headers={
        "X-Auth-Token": f"fake:{PROJECT}"})
    # the development mode gives admin roles: admins see everything
    assert resp.status_int == 200


def test_member_cannot_see_another_projects_server(member_env, world):  # noqa
    theirs = world.by_name["theirs"]
    resp = call(member_env, f"/v2.1/servers/{theirs}", headers={
        "X-Auth-Token": f"fake:{PROJECT}"})
    assert resp.status_int == 404
    assert "itemNotFound" in resp.json
    # all_tenants is refused to members
    resp = call(member_env, "/v2.1/servers?all_tenants=1", headers={
        "X-Auth-Token": f"fake:{PROJECT}"})
    assert resp.status_int == 403
    # host sort is admin-only
    resp = call(member_env, "/v2.1/servers?sort_key=host", headers={
        "X-Auth-Token": f"fake:{PROJECT}"})
    assert resp.status_int == 403
    body = _get(member_env, "/servers/detail")
    assert all("OS-EXT-SRV-ATTR:host" not in s for s in body["servers"])


def test_update_name_description_hostname(api_env, world):  # noqa: F811
    vm3 = world.by_name["vm3"]
    resp = call(api_env, f"/v2.1/servers/{vm3}", method="PUT",
                headers={V: "compute 2.90"},
                body={"server": {"name": "renamed", "description": "d",
                                 "hostname": "new-host"}})
    assert resp.status_int == 200, resp.text
    server = resp.json["server"]
    assert (server["name"], server["description"],
            server["OS-EXT-SRV-ATTR:hostname"]) == ("renamed", "d",
                                                    "new-host")
    assert _get(api_env, f"/servers/{vm3}")["server"]["name"] == "renamed"
    bad = call(api_env, f"/v2.1/servers/{vm3}", method="PUT",
               headers={V: "compute 2.18"},
               body={"server": {"description": "d"}})
    assert bad.status_int == 400 and "description" in bad.text


def test_update_a_building_server(api_env, world):  # noqa: F811
    booting = world.by_name["booting"]
    resp = call(api_env, f"/v2.1/servers/{booting}", method="PUT",
                body={"server": {"name": "still-booting"}})
    assert resp.status_int == 200, resp.text
    assert resp.json["server"]["status"] == "BUILD"
    assert "still-booting" in _names(_get(api_env, "/servers"))


def test_metadata_api(api_env, world):  # noqa: F811
    vm5 = world.by_name["vm5"]
    base = f"/v2.1/servers/{vm5}/metadata"
    assert call(api_env, base).json == {"metadata": {"n": "5"}}
    resp = call(api_env, base, method="POST",
                body={"metadata": {"a": "1"}})
    assert resp.json == {"metadata": {"n": "5", "a": "1"}}
    resp = call(api_env, base, method="PUT", body={"metadata": {"b": "2"}})
    assert resp.json == {"metadata": {"b": "2"}}
    assert call(api_env, base + "/b").json == {"meta": {"b": "2"}}
    assert call(api_env, base + "/zz").status_int == 404
    resp = call(api_env, base + "/c", method="PUT", body={"meta": {"d": "1"}})
    assert resp.status_int == 400
    resp = call(api_env, base + "/c", method="PUT", body={"meta": {"c": "3"}})
    assert resp.json == {"meta": {"c": "3"}}
    assert call(api_env, base + "/b", method="DELETE").status_int == 204
    assert call(api_env, base).json == {"metadata": {"c": "3"}}
    many = {f"k{i}": "v" for i in range(129)}
    resp = call(api_env, base, method="PUT", body={"metadata": many})
    assert resp.status_int == 403, resp.text
    booting = world.by_name["booting"]
    resp = call(api_env, f"/v2.1/servers/{booting}/metadata", method="POST",
                body={"metadata": {"a": "1"}})
    assert resp.status_int == 409
    assert "while it is in vm_state building" in resp.json[
        "conflictingRequest"]["message"]


def test_ips_and_topology(api_env, world):  # noqa: F811
    vm6 = world.by_name["vm6"]
    ips = _get(api_env, f"/servers/{vm6}/ips")
    assert ips == {"addresses": {"private": [
        {"version": 4, "addr": "10.0.0.6"},
        {"version": 6, "addr": "fd00::6"}]}}
    assert _get(api_env, f"/servers/{vm6}/ips/private") == \
        {"private": ips["addresses"]["private"]}
    _get(api_env, f"/servers/{vm6}/ips/public", status=404)
    assert _get(api_env, f"/servers/{vm6}/topology", "2.78") == \
        {"nodes": [], "pagesize_kb": None}
    _get(api_env, f"/servers/{vm6}/topology", "2.77", status=404)


def test_down_cell_minimal_records_from_269(api_env, world, tmp_path):  # noqa
    lost = _down_cell(world, tmp_path)
    old = _get(api_env, "/servers/detail")
    assert lost not in [s["id"] for s in old["servers"]]
    assert _names(old) == NEWEST_FIRST[1:]
    new = _get(api_env, "/servers/detail", "2.69")
    minimal = [s for s in new["servers"] if s["id"] == lost]
    assert len(minimal) == 1
    assert set(minimal[0]) == {"id", "status", "links", "tenant_id",
                               "created"}
    assert minimal[0]["status"] == "UNKNOWN"
    index = _get(api_env, "/servers", "2.69")
    entry = [s for s in index["servers"] if s["id"] == lost][0]
    assert set(entry) == {"id", "status", "links"}
    assert samples.shape_differences(
        {"servers": [minimal[0]]},
        samples.load("servers/v2.69/servers-details-resp.json")) == []
    show = _get(api_env, f"/servers/{lost}", "2.69")["server"]
    assert show["status"] == "UNKNOWN"
    assert set(show) == set(samples.load(
        "servers/v2.69/server-get-resp.json")["server"])
    # before 2.69 the down cell is an error, not a 500
    resp = call(api_env, f"/v2.1/servers/{lost}",
                headers={V: "compute 2.68"})
    assert resp.status_int == 503
    # paging through the minimal records then the real ones is exact
    for limit in (1, 4):  # a minimal record as the marker too
        seen, path = [], f"/servers?limit={limit}"
        while path:
            body = _get(api_env, path, "2.69")
            seen += [s["id"] for s in body["servers"]]
            links = body.get("servers_links")
            path = links and "/servers?" + links[0]["href"].split("?", 1)[1]
        assert seen[0] == lost and len(seen) == len(set(seen)) == \
            len(NEWEST_FIRST)


def test_bad_input_is_400_not_500(api_env, world):  # noqa: F811
    for query in ("limit=-1", "limit=abc", "sort_key=nope",
                  "sort_dir=sideways", "changes-since=yesterday",
                  "changes-since=2026-02-01T00:00:00Z&"
                  "changes-before=2026-01-01T00:00:00Z",
                  "locked=maybe"):
        resp = call(api_env, "/v2.1/servers?" + query,
                    headers={V: "compute 2.73"})
        assert resp.status_int == 400, (query, resp.text)
        assert "badRequest" in resp.json
    resp = call(api_env, "/v2.1/servers?foo=1", headers={V: "compute 2.75"})
    assert resp.status_int == 400


def test_changes_since_includes_deleted(api_env, world):  # noqa: F811
    vm0 = world.by_name["vm0"]
    cell = world.cell(CELL2_UUID)
    with keel_context.target_cell(world.ctx, cell) as cctxt:
        objects.Instance.get_by_uuid(cctxt, vm0).destroy()
    assert "vm0" not in _names(_get(api_env, "/servers"))
    body = _get(api_env, "/servers/detail?changes-since=2000-01-01T00:00:00Z")
    deleted = [s for s in body["servers"] if s["name"] == "vm0"]
    assert deleted and deleted[0]["status"] == "DELETED"


def test_openstacksdk_lists_and_shows(api_env, world, serve):  # noqa: F811
    import openstack
    url = serve(api_env)
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=f"{url}/v2.1/",
        compute_api_version="2")
    try:
        names = [s.name for s in conn.compute.servers(all_projects=True)]
        assert names == NEWEST_FIRST
        paged = [s.name for s in conn.compute.servers(
            all_projects=True, paginated=True, limit=4)]
        assert paged == NEWEST_FIRST
        server = conn.compute.get_server(world.by_name["vm7"])
        assert server.name == "vm7" and server.status == "ACTIVE"
        conn.compute.update_server(server, name="seven")
        assert conn.compute.get_server(server.id).name == "seven"
        conn.compute.set_server_metadata(server, k="v")
        assert conn.compute.get_server_metadata(server).metadata["k"] == "v"
    finally:
        conn.close()





def _osc(url, *argv, version="2.79"):
    # The real command in its own process, as a user runs it (in-process
    # runs share logging and client state with the rest of the test run).
    import json
    import subprocess
    import sys
    args = [sys.executable, "-m", "openstackclient.shell",
            "--os-auth-type", "none", "--os-endpoint", f"{url}/v2.1",
            "--os-compute-api-version", version,
            "--os-identity-api-version", "3", *argv]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout
    return json.loads(text) if text.strip() else None


def test_openstack_cli_server_list_show_set(api_env, world, serve):  # noqa
    url = serve(api_env)
    listed = _osc(url, "server", "list", "--all-projects", "--no-name-lookup",
                  "-f", "json")
    assert [s["Name"] for s in listed] == NEWEST_FIRST
    vm8 = world.by_name["vm8"]
    shown = _osc(url, "server", "show", vm8, "-f", "json")
    assert shown["name"] == "vm8" and shown["status"] == "ACTIVE"
    _osc(url, "server", "set", "--name", "eight", "--property", "x=y", vm8)
    shown = _osc(url, "server", "show", vm8, "-f", "json")
    assert shown["name"] == "eight"
    assert _get(api_env, f"/servers/{vm8}/metadata")["metadata"]["x"] == "y"


def test_member_filters_locked_and_changes_before(member_env, world):  # noqa
    vm4 = world.by_name["vm4"]
    cell = world.cell(CELL2_UUID)
    with keel_context.target_cell(world.ctx, cell) as cctxt:
        inst = objects.Instance.get_by_uuid(cctxt, vm4)
        inst.locked = True
        inst.locked_by = "admin"
        inst.save()
    # admin-only filters are ignored for members, not refused
    assert _names(_get(member_env, "/servers?host=nowhere")) == \
        NEWEST_FIRST[1:]
    assert _names(_get(member_env, "/servers?locked=true", "2.73")) == \
        ["vm4"]
    assert "vm4" not in _names(_get(member_env, "/servers?locked=false",
                                    "2.73"))
    # a locked server's metadata is not the member's to change
    resp = call(member_env, f"/v2.1/servers/{vm4}/metadata", method="POST",
                body={"metadata": {"a": "b"}},
                headers={"X-Auth-Token": f"fake:{PROJECT}"})
    assert resp.status_int == 409, resp.text
    future = "2099-01-01T00:00:00Z"
    # as Nova: rows never updated (updated_at NULL) do not match
    body = _get(member_env, f"/servers?changes-before={future}", "2.66")
    assert _names(body) == ["vm4"]
    assert _get(member_env, "/servers?changes-before=2000-01-01T00:00:00Z",
                "2.66")["servers"] == []


def test_admin_sorts_by_host_and_filters_by_node(api_env, world):  # noqa
    body = _get(api_env, "/servers?sort_key=host&sort_dir=asc&all_tenants=1")
    assert len(body["servers"]) == len(NEWEST_FIRST)
    assert _names(_get(api_env, "/servers?node=^nowhere$")) == []


def test_detail_sql_statements_do_not_grow_with_the_page(api_env, world):  # noqa
    import sqlalchemy as sa
    counts = []

    def count(*_a, **_k):
        counts[-1] += 1
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", count)
    try:
        # both pages draw from every cell (per-cell queries are constant)
        for limit in (4, 10):
            counts.append(0)
            body = _get(api_env, f"/servers/detail?limit={limit}")
            assert len(body["servers"]) == limit
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", count)
    assert counts[0] == counts[1], counts


def _numa_server(world):
    numa = objects.InstanceNUMATopology(cells=[
        objects.InstanceNUMACell(
            id=i, cpuset=set(cpus), pcpuset=set(), memory=mem, pagesize=4,
            cpu_pinning_raw=pins,
            cpu_topology=objects.VirtCPUTopology(sockets=1, cores=1,
                                                 threads=2))
        for i, cpus, mem, pins in ((0, (0, 1), 1024, {"0": 0, "1": 5}),
                                   (1, (2, 3), 2048, {"2": 1, "3": 8}))])
    return world.server("numa", CELL1_UUID, 20, numa_topology=numa)


def test_topology_for_admins_matches_the_sample(api_env, world):  # noqa
    numa = _numa_server(world)
    got = _get(api_env, f"/servers/{numa}/topology", "2.78")
    assert got == samples.load(
        "os-server-topology/v2.78/servers-topology-resp.json")


def test_topology_for_members_hides_the_host(member_env, world):  # noqa
    numa = _numa_server(world)
    got = _get(member_env, f"/servers/{numa}/topology", "2.78")
    ref = samples.load(
        "os-server-topology/v2.78/servers-topology-resp-user.json")
    assert got == ref


def test_tags_in_show_and_detail_match_the_samples(api_env, world):  # noqa
    vm1 = world.by_name["vm1"]
    call(api_env, f"/v2.1/servers/{vm1}/tags", method="PUT",
         headers={V: "compute 2.26"}, body={"tags": ["tag1", "tag2"]})
    show = _get(api_env, f"/servers/{vm1}", "2.26")
    assert show["server"]["tags"] == ["tag1", "tag2"]
    ignore = ("OS-EXT-SRV-ATTR:host", "OS-EXT-SRV-ATTR:hypervisor_hostname",
              "OS-EXT-SRV-ATTR:instance_name", "OS-EXT-SRV-ATTR:kernel_id",
              "OS-EXT-SRV-ATTR:ramdisk_id", "OS-EXT-SRV-ATTR:launch_index",
              "OS-EXT-SRV-ATTR:reservation_id", "OS-EXT-SRV-ATTR:user_data",
              "OS-EXT-SRV-ATTR:root_device_name", "OS-EXT-SRV-ATTR:hostname",
              "host_status", "metadata", "OS-SRV-USG:launched_at",
              "os-extended-volumes:volumes_attached", "accessIPv4",
              "accessIPv6", "config_drive", "key_name", "description",
              "servers_links")
    assert samples.shape_differences(show, samples.load(
        "os-server-tags/v2.26/server-tags-show-details-resp.json"),
        ignore=ignore) == []
    detail = _get(api_env, "/servers/detail?tags=tag1", "2.26")
    assert samples.shape_differences(detail, samples.load(
        "os-server-tags/v2.26/servers-tags-details-resp.json"),
        ignore=ignore) == []


def test_instance_in_its_cell_wins_over_a_leftover_build_request(
        api_env, world):  # noqa: F811
    vm9 = world.by_name["vm9"]
    inst = objects.Instance(
        uuid=vm9, project_id=PROJECT, user_id="fake", display_name="vm9",
        vm_state="building", task_state="scheduling", power_state=0,
        flavor=_flavor(), instance_type_id=1, metadata={},
        system_metadata={}, locked=False,
        created_at=BASE + datetime.timedelta(minutes=50))
    objects.BuildRequest(world.ctx, instance_uuid=vm9, project_id=PROJECT,
                         instance=inst,
                         tags=objects.TagList(objects=[])).create()
    body = _get(api_env, "/servers/detail")
    found = [s for s in body["servers"] if s["id"] == vm9]
    assert len(found) == 1 and found[0]["status"] == "ACTIVE"
    assert _names(body) == NEWEST_FIRST[1:]


def test_error_server_carries_its_latest_fault(api_env, world):  # noqa
    failed = world.by_name["failed"]
    cell0 = world.cell(objects.CellMapping.CELL0_UUID)
    with keel_context.target_cell(world.ctx, cell0) as cctxt:
        for message in ("first", "No valid host was found."):
            objects.InstanceFault(cctxt, instance_uuid=failed, code=500,
                                  message=message, details="trace",
                                  host=None).create()
    for path in ("/servers/detail?status=ERROR", f"/servers/{failed}"):
        body = _get(api_env, path)
        server = body["servers"][0] if "servers" in body else body["server"]
        assert server["status"] == "ERROR"
        assert server["fault"]["message"] == "No valid host was found."
        assert server["fault"]["code"] == 500
        assert server["fault"]["details"] == "trace"  # admin
        assert "progress" not in server
    others = _get(api_env, "/servers/detail?status=ACTIVE")["servers"]
    assert others and all("fault" not in s for s in others)


def test_pinned_availability_zone_and_scheduler_hints(api_env, world):  # noqa
    vm2 = world.by_name["vm2"]
    spec = objects.RequestSpec(world.ctx, instance_uuid=vm2,
                               project_id=PROJECT, availability_zone="nova",
                               flavor=_flavor(),
                               scheduler_hints={"same_host": ["h1"]})
    spec.create()
    show = _get(api_env, f"/servers/{vm2}", "2.100")["server"]
    assert show["pinned_availability_zone"] == "nova"
    assert show["scheduler_hints"] == {"same_host": ["h1"]}
    detail = _get(api_env, "/servers/detail?name=^vm2$", "2.96")
    assert detail["servers"][0]["pinned_availability_zone"] == "nova"
    unpin = call(api_env, f"/v2.1/servers/{vm2}", method="PUT",
                 headers={V: "compute 2.104"},
                 body={"server": {"pinned_availability_zone": None}})
    assert unpin.status_int == 200, unpin.text
    assert unpin.json["server"]["pinned_availability_zone"] is None
    elsewhere = call(api_env, f"/v2.1/servers/{vm2}", method="PUT",
                     headers={V: "compute 2.104"},
                     body={"server": {"pinned_availability_zone": "az9"}})
    assert elsewhere.status_int == 400
    repin = call(api_env, f"/v2.1/servers/{vm2}", method="PUT",
                 headers={V: "compute 2.104"},
                 body={"server": {"pinned_availability_zone": "nova"}})
    assert repin.json["server"]["pinned_availability_zone"] == "nova"


def test_host_status_for_admins_from_216(api_env, world):  # noqa: F811
    cell1 = world.cell(CELL1_UUID)
    with keel_context.target_cell(world.ctx, cell1) as cctxt:
        for host, disabled in (("up-host", False), ("off-host", True)):
            svc = objects.Service(cctxt, host=host, binary="nova-compute",
                                  topic="compute", report_count=1,
                                  disabled=disabled)
            svc.create()
            svc.last_seen_up = datetime.datetime.now(datetime.timezone.utc)
            svc.save()
    up = world.server("on-up", CELL1_UUID, 30, host="up-host")
    off = world.server("on-off", CELL1_UUID, 31, host="off-host")
    lost = world.server("on-gone", CELL1_UUID, 32, host="gone-host")
    body = _get(api_env, "/servers/detail?name=^on-", "2.16")
    status = {s["id"]: s["host_status"] for s in body["servers"]}
    assert status == {up: "UP", off: "MAINTENANCE", lost: "UNKNOWN"}
    assert "host_status" not in _get(api_env, f"/servers/{up}",
                                     "2.15")["server"]
    vm1 = _get(api_env, f"/servers/{world.by_name['vm1']}", "2.16")
    assert vm1["server"]["host_status"] == ""


def test_hidden_copies_are_not_listed(api_env, world):  # noqa: F811
    world.server("shadow", CELL2_UUID, 40, hidden=True)
    assert "shadow" not in _names(_get(api_env, "/servers?all_tenants=1"))
    assert _names(_get(api_env, "/servers?all_tenants=1")) == NEWEST_FIRST


def test_tag_rules(api_env, world):  # noqa: F811
    vm3 = world.by_name["vm3"]
    h = {V: "compute 2.26"}
    base = f"/v2.1/servers/{vm3}/tags"
    bad = call(api_env, base + "/" + "x" * 61, method="PUT", headers=h)
    assert bad.status_int == 400 and "is invalid" in bad.text
    full = [f"t{i}" for i in range(50)]
    assert call(api_env, base, method="PUT", headers=h,
                body={"tags": full}).status_int == 200
    over = call(api_env, base + "/new", method="PUT", headers=h)
    assert over.status_int == 400 and "per-server limit 50" in over.text
    missing = call(api_env, base + "/nope", headers=h)
    assert missing.status_int == 404
    assert f"Server {vm3} has no tag 'nope'" in missing.text
    assert call(api_env, base + "/t1", method="DELETE",
                headers=h).status_int == 204
    assert call(api_env, base + "/t1", method="DELETE",
                headers=h).status_int == 404
