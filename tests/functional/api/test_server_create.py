"""POST /servers in the API service: Nova's 202 body, the records written
in the API database, the cast to the super-conductor, and Nova's refusals.

The cloud of fixtures_services runs with its conductor stopped and a
recording endpoint on the conductor topic instead: the cast really crosses
oslo.messaging (serialised, then deserialised as the conductor would get
it) and the records stay as the API left them. Booting to ACTIVE is the
conductor's own tests' business.
"""
import base64
import json
import queue
import threading
import uuid

import oslo_messaging as messaging
import pytest
import webob

from keel.api import deploy
from keel.compute_api import quota
from keel.compute_api import server_create as create_api
from keel.conf import CONF
from keel import context as keel_context
from keel.image import api as image_api
from keel import objects
from keel.rpc import serializer as rpc_serializer
from keel.rpc import transport as rpc_transport
from tests.functional import fixtures_services as fx
from tests.functional.fixtures_services import http_endpoint  # noqa: F401

IMAGE = "155d900f-4e14-4e4c-a73d-069cbf4541e6"
BIG_IMAGE = "2b9a4d4e-5a39-4c8b-a1f0-0f4c7f2a9e11"
HUNGRY_IMAGE = "8c1e0b3f-6d2a-4f57-9e0a-3b5d7c9e1f20"
QUEUED_IMAGE = "4f7d2c1a-9b8e-4d6f-a5c3-2e1b0a9f8d7c"
LATEST = "2.100"
GiB = 1024 ** 3


class Recorder:
    """Stands in for the super-conductor's compute_task endpoint."""

    target = messaging.Target(namespace="compute_task", version="1.25")

    def __init__(self):
        self.calls = queue.Queue()

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image, admin_password,
                                     injected_files, requested_networks,
                                     block_device_mapping, tags=None):
        self.calls.put(dict(
            context=context, build_requests=build_requests,
            request_specs=request_specs, image=image,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            block_device_mapping=block_device_mapping, tags=tags))

    def next_call(self, resp=None, server_id=None):
        """The cast of the request answered by ``resp`` (by server id or
        reservation id), skipping casts of earlier requests that arrive
        late; with no ``resp`` simply the next one."""
        while True:
            call = self.calls.get(timeout=10)
            if resp is None and server_id is None:
                return call
            body = resp.json if resp is not None else \
                {"server": {"id": server_id}}
            insts = [b.instance for b in call["build_requests"]]
            if "server" in body and \
                    body["server"]["id"] in [i.uuid for i in insts]:
                return call
            if body.get("reservation_id") in \
                    [i.reservation_id for i in insts]:
                return call


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("create")
    CONF.set_override("path", str(tmp / "images"), "image_catalogue")
    image_api.reset()
    cloud, launcher = fx.start_cloud(tmp, count=1)
    conductor = next(s for s in cloud.services
                     if s.binary == "nova-conductor")
    conductor.stop()
    cloud.recorder = Recorder()
    server = rpc_transport.get_server(
        messaging.Target(topic="conductor", server="recorder"),
        [cloud.recorder], rpc_serializer.object_serializer())
    server.start()
    create_api.reset()
    ctxt = keel_context.get_admin_context()
    images = image_api.get_api()
    images.create(ctxt, {"id": IMAGE, "name": "cirros",
                         "disk_format": "qcow2", "container_format": "bare",
                         "visibility": "public"}, data=b"x" * 4096)
    images.create(ctxt, {"id": BIG_IMAGE, "name": "big",
                         "disk_format": "raw", "container_format": "bare",
                         "visibility": "public", "size": 2 * GiB,
                         "location": "file:///var/lib/images/big.raw"})
    images.create(ctxt, {"id": QUEUED_IMAGE, "name": "queued",
                         "disk_format": "raw", "container_format": "bare",
                         "visibility": "public"})
    images.create(ctxt, {"id": HUNGRY_IMAGE, "name": "hungry",
                         "disk_format": "qcow2", "container_format": "bare",
                         "visibility": "public", "min_ram": 4096},
                  data=b"z" * 1024)
    for flavorid, ram, disk in (("c1", 512, 1), ("c0", 256, 0)):
        objects.Flavor(ctxt, flavorid=flavorid, name=flavorid, vcpus=1,
                       memory_mb=ram, root_gb=disk, ephemeral_gb=0, swap=0,
                       is_public=True, disabled=False).create()
    yield cloud
    server.stop()
    server.wait()
    create_api.reset()
    fx.stop_cloud(launcher)
    CONF.clear_override("path", "image_catalogue")
    image_api.reset()


def _drain(cloud):
    while not cloud.recorder.calls.empty():
        cloud.recorder.calls.get_nowait()


def _post(app, body, project=None, version=LATEST, user="u1"):
    project = project or uuid.uuid4().hex
    req = webob.Request.blank("/v2.1/servers", method="POST",
                              body=json.dumps(body).encode())
    req.headers["Content-Type"] = "application/json"
    req.headers["X-Auth-Token"] = f"{user}:{project}"
    req.headers["OpenStack-API-Version"] = f"compute {version}"
    return req.get_response(app)


def _server(**kw):
    body = {"name": "vm", "imageRef": IMAGE, "flavorRef": "c1",
            "networks": "none"}
    body.update(kw)
    return {"server": body}


def _ctxt(project):
    return keel_context.RequestContext(user_id="u1", project_id=project,
                                       is_admin=True)


def test_sdk_create_answers_202_and_writes_the_api_records(
        cloud, http_endpoint):  # noqa: F811
    import openstack
    _drain(cloud)
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=http_endpoint + "/",
        compute_api_version="2")
    created = conn.compute.create_server(
        name="web-1", image_id=IMAGE, flavor_id="c1", networks="none",
        metadata={"role": "web"})
    assert uuid.UUID(created.id)
    assert len(created.admin_password) == 12
    conn.close()

    ctxt = keel_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, created.id)
    assert mapping.cell_mapping is None
    assert mapping.queued_for_delete is False
    spec = objects.RequestSpec.get_by_instance_uuid(ctxt, created.id)
    assert spec.flavor.flavorid == "c1" and spec.image.id == IMAGE
    assert spec.num_instances == 1
    build = objects.BuildRequest.get_by_instance_uuid(ctxt, created.id)
    inst = build.instance
    assert (inst.display_name, inst.hostname) == ("web-1", "web-1")
    assert (inst.vm_state, inst.task_state) == ("building", "scheduling")
    assert inst.metadata == {"role": "web"}
    assert inst.image_ref == IMAGE
    assert inst.system_metadata["image_disk_format"] == "qcow2"
    assert [b.image_id for b in build.block_device_mappings] == [IMAGE]

    call = cloud.recorder.next_call(server_id=created.id)
    assert [b.instance_uuid for b in call["build_requests"]] == [created.id]
    assert [s.instance_uuid for s in call["request_specs"]] == [created.id]
    assert call["image"]["id"] == IMAGE
    assert call["admin_password"] == created.admin_password
    assert call["requested_networks"].no_allocate
    assert [b.source_type for b in call["block_device_mapping"]] == \
        ["image"]


def test_raw_answer_location_and_build_status_in_show_and_list(cloud):
    _drain(cloud)
    project = uuid.uuid4().hex
    resp = _post(cloud.app, _server(
        name="db", security_groups=[{"name": "default"}], tags=["a", "b"],
        description="the db", hostname="db-host"), project=project,
        version="2.94")
    assert resp.status_int == 202, resp.text
    server = resp.json["server"]
    assert set(server) == {"id", "links", "OS-DCF:diskConfig",
                           "security_groups", "adminPass"}
    assert server["security_groups"] == [{"name": "default"}]
    assert server["OS-DCF:diskConfig"] == "MANUAL"
    self_link = [l["href"] for l in server["links"] if l["rel"] == "self"]
    assert resp.headers["Location"] == self_link[0]
    cloud.recorder.next_call(resp)

    req = webob.Request.blank(f"/v2.1/servers/{server['id']}")
    req.headers["X-Auth-Token"] = f"u1:{project}"
    req.headers["OpenStack-API-Version"] = "compute 2.94"
    shown = req.get_response(cloud.app).json["server"]
    assert shown["status"] == "BUILD"
    assert shown["OS-EXT-STS:task_state"] == "scheduling"
    assert shown["tags"] == ["a", "b"]
    assert shown["description"] == "the db"
    assert shown["OS-EXT-SRV-ATTR:hostname"] == "db-host"
    req = webob.Request.blank("/v2.1/servers/detail")
    req.headers["X-Auth-Token"] = f"u1:{project}"
    listed = req.get_response(cloud.app).json["servers"]
    assert [(s["id"], s["status"]) for s in listed] == \
        [(server["id"], "BUILD")]


def test_multi_create_gives_the_reservation_id_and_numbered_names(cloud):
    _drain(cloud)
    project = uuid.uuid4().hex
    resp = _post(cloud.app, _server(
        name="batch", min_count="2", max_count="3",
        return_reservation_id="True"), project=project)
    assert resp.status_int == 202, resp.text
    assert set(resp.json) == {"reservation_id"}
    rid = resp.json["reservation_id"]
    assert rid.startswith("r-") and len(rid) == 10
    call = cloud.recorder.next_call(resp)
    insts = [b.instance for b in call["build_requests"]]
    assert [i.display_name for i in insts] == \
        ["batch-1", "batch-2", "batch-3"]
    assert [i.hostname for i in insts] == ["batch-1", "batch-2", "batch-3"]
    assert {i.reservation_id for i in insts} == {rid}
    assert [i.launch_index for i in insts] == [0, 1, 2]
    assert {s.num_instances for s in call["request_specs"]} == {3}
    # What clients do with the reservation id: list the servers by it.
    req = webob.Request.blank(f"/v2.1/servers?reservation_id={rid}")
    req.headers["X-Auth-Token"] = f"u1:{project}"
    listed = req.get_response(cloud.app).json["servers"]
    assert sorted(s["name"] for s in listed) == \
        ["batch-1", "batch-2", "batch-3"]


def test_quota_cuts_a_multi_create_down_or_refuses_it(cloud):
    _drain(cloud)
    project = uuid.uuid4().hex
    ctxt = _ctxt(project)
    quota.set_limit(ctxt, project, "instances", 2)
    resp = _post(cloud.app, _server(min_count=3), project=project)
    assert resp.status_int == 403, resp.text
    assert resp.json["forbidden"]["message"] == (
        "Quota exceeded for instances: Requested 3, but already used 0 of 2 "
        "instances")
    resp = _post(cloud.app, _server(min_count=1, max_count=5,
                                    return_reservation_id=True),
                 project=project)
    assert resp.status_int == 202, resp.text
    assert len(cloud.recorder.next_call(resp)["build_requests"]) == 2
    # Both accepted servers count although neither is in a cell yet.
    resp = _post(cloud.app, _server(), project=project)
    assert resp.status_int == 403
    assert "already used 2 of 2 instances" in resp.text
    quota.set_limit(ctxt, project, "instances", 10)
    quota.set_limit(ctxt, project, "cores", 1)
    resp = _post(cloud.app, _server(min_count=2), project=project)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Quota exceeded for cores: Requested 2, but already used 0 of 1 "
        "cores")


def test_metadata_and_personality_quotas_are_403(cloud):
    project = uuid.uuid4().hex
    ctxt = _ctxt(project)
    quota.set_limit(ctxt, project, "metadata_items", 1)
    quota.set_limit(ctxt, project, "injected_files", 1)
    resp = _post(cloud.app, _server(metadata={"a": "1", "b": "2"}),
                 project=project)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == \
        "Maximum number of metadata items exceeds 1"
    files = [{"path": f"/etc/f{i}", "contents":
              base64.b64encode(b"hi").decode()} for i in range(2)]
    body = _server(personality=files)
    del body["server"]["networks"]
    resp = _post(cloud.app, body, project=project, version="2.1")
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == \
        "Personality file limit exceeded"


def _group(project):
    group = objects.InstanceGroup(_ctxt(project), name="g", user_id="u1",
                                  project_id=project, policies=[
                                      "anti-affinity"])
    group.create()
    return group


def test_server_group_hint_adds_members_and_group_quota(cloud):
    _drain(cloud)
    project = uuid.uuid4().hex
    group = _group(project)
    quota.set_limit(_ctxt(project), project, "server_group_members", 2)
    hints = {"group": group.uuid}
    resp = _post(cloud.app, dict(_server(max_count=2),
                                 **{"os:scheduler_hints": hints}),
                 project=project)
    assert resp.status_int == 202, resp.text
    call = cloud.recorder.next_call(resp)
    uuids = {b.instance_uuid for b in call["build_requests"]}
    assert set(objects.InstanceGroup.get_by_uuid(
        _ctxt(project), group.uuid).members) == uuids
    assert call["request_specs"][0].instance_group.uuid == group.uuid
    resp = _post(cloud.app, dict(_server(), **{"os:scheduler_hints": hints}),
                 project=project)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == \
        "Quota exceeded, too many servers in group"


BAD_REQUESTS = [
    (_server(flavorRef="nope"), LATEST, "Flavor nope could not be found."),
    (_server(imageRef=str(uuid.UUID(int=7))), LATEST,
     "Can not find requested image"),
    (_server(key_name="missing"), LATEST, "Invalid key_name provided."),
    (_server(imageRef=""), LATEST, "Missing imageRef attribute"),
    (_server(imageRef=HUNGRY_IMAGE), LATEST,
     "Flavor's memory is too small for requested image."),
    (_server(networks=[{"uuid": "3c0f8d8e-53a0-4c64-98a5-1b0c4a6d7e1f"}]),
     LATEST, "Network 3c0f8d8e-53a0-4c64-98a5-1b0c4a6d7e1f could not be "
             "found."),
    (_server(security_groups=[{"name": "web"}]), LATEST,
     "Security group web not found."),
    (_server(availability_zone="nowhere"), LATEST,
     "The requested availability zone is not available"),
    (_server(min_count=3, max_count=2), LATEST,
     "min_count must be <= max_count"),
    (_server(hostname="one", max_count=2), "2.94",
     "Unable to allocate a single hostname to multiple instances"),
    (dict(_server(), **{"os:scheduler_hints": {
        "group": "0c9b6b4e-2b1e-4f33-9d56-5d8e2a6f7c10"}}), LATEST,
     "Instance group 0c9b6b4e-2b1e-4f33-9d56-5d8e2a6f7c10 could not be "
     "found."),
    (_server(host="no-such-host"), LATEST,
     "Compute host no-such-host could not be found."),
    (_server(imageRef="", block_device_mapping_v2=[{
        "source_type": "volume", "destination_type": "volume",
        "uuid": "0d7e5f2c-7a5b-4b0e-8f3e-2a1c9d8b7e60", "boot_index": 0}]),
     LATEST, "Block Device Mapping is Invalid: volume "
             "0d7e5f2c-7a5b-4b0e-8f3e-2a1c9d8b7e60 cannot be used because no "
             "block storage service (Cinder) is configured."),
    (_server(block_device_mapping_v2=[{
        "source_type": "blank", "destination_type": "local",
        "boot_index": 1, "volume_size": 1}]), LATEST,
     "Block Device Mapping is Invalid: Boot sequence for the instance and "
     "image/block device mapping combination is not valid."),
    (_server(block_device_mapping_v2=[{
        "source_type": "image", "destination_type": "local",
        "uuid": IMAGE, "boot_index": 1}]), LATEST,
     "Block Device Mapping is Invalid: Mapping image to local is not "
     "supported."),
    (_server(imageRef=BIG_IMAGE), LATEST,
     "Flavor's disk is too small for requested image. Flavor disk is "
     "1073741824 bytes, image is 2147483648 bytes."),
    (_server(imageRef=QUEUED_IMAGE), LATEST,
     f"Image {QUEUED_IMAGE} is not active."),
    (_server(networks="auto", name="x" * 256), LATEST, None),
    ({"server": {"name": "vm", "imageRef": IMAGE, "flavorRef": "c1",
                 "personality": [{"path": "/etc/motd"}]}}, "2.1",
     "Bad personality format: missing 'contents'"),
]


@pytest.mark.parametrize("body,version,message", BAD_REQUESTS)
def test_bad_requests_get_nova_400(cloud, body, version, message):
    resp = _post(cloud.app, body, version=version)
    assert resp.status_int == 400, resp.text
    if message is not None:
        assert resp.json["badRequest"]["message"] == message


@pytest.fixture(scope="module")
def member_app(cloud):
    CONF.set_override("development_roles", ["member", "reader"], "api")
    try:
        return deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", "api")


@pytest.mark.parametrize("body", [
    _server(availability_zone="nova:somehost"),
    _server(availability_zone="nova::somenode"),
    _server(host="somehost"),
    _server(hypervisor_hostname="somenode"),
])
def test_members_cannot_pick_hosts(member_app, body):
    resp = _post(member_app, body)
    assert resp.status_int == 403, resp.text
    assert "Policy doesn't allow" in resp.json["forbidden"]["message"]


def test_zero_disk_flavor_needs_a_volume_for_members(cloud, member_app):
    resp = _post(member_app, _server(flavorRef="c0"))
    assert resp.status_int == 403, resp.text
    assert resp.json["forbidden"]["message"] == \
        "Only volume-backed servers are allowed for flavors with zero disk."
    # Admins may (policy create:zero_disk_flavor).
    _drain(cloud)
    resp = _post(cloud.app, _server(flavorRef="c0"))
    assert resp.status_int == 202
    assert cloud.recorder.next_call(resp)["build_requests"]


def test_member_creates_with_a_key_pair_and_user_data(cloud, member_app):
    _drain(cloud)
    project = uuid.uuid4().hex
    objects.KeyPair(_ctxt(project), name="k1", user_id="u1",
                    fingerprint="f", public_key="ssh-rsa AAAA k1",
                    type="ssh").create()
    data = base64.b64encode(b"#!/bin/sh\necho hi\n").decode()
    resp = _post(member_app, _server(key_name="k1", user_data=data,
                                     config_drive=True), project=project)
    assert resp.status_int == 202, resp.text
    inst = cloud.recorder.next_call(resp)["build_requests"][0].instance
    assert (inst.key_name, inst.key_data) == ("k1", "ssh-rsa AAAA k1")
    assert inst.user_data == data and inst.config_drive == "True"
    assert [k.name for k in inst.keypairs] == ["k1"]


def test_concurrent_requests_never_pass_the_instance_quota(cloud):
    """Two requests for the last slot: the count includes accepted but
    unplaced servers, and the re-check after writing catches the rest."""
    _drain(cloud)
    project = uuid.uuid4().hex
    quota.set_limit(_ctxt(project), project, "instances", 3)
    results = []

    def boot():
        results.append(_post(cloud.app, _server(), project=project)
                       .status_int)
    threads = [threading.Thread(target=boot) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Never more than the quota; a request that lost the race left nothing.
    accepted = results.count(202)
    assert 1 <= accepted <= 3 and results.count(403) == 6 - accepted
    mappings = objects.InstanceMappingList.get_by_project_id(
        _ctxt(project), project)
    assert len(mappings) == accepted


def test_admin_requested_and_forced_destinations_reach_the_spec(cloud):
    _drain(cloud)
    host = cloud.hosts[0]
    node = cloud.nodes(host)[0].hypervisor_hostname
    resp = _post(cloud.app, _server(host=host, hypervisor_hostname=node,
                                    flavorRef="http://x/v2.1/flavors/c1"))
    assert resp.status_int == 202, resp.text
    spec = cloud.recorder.next_call(resp)["request_specs"][0]
    dest = spec.requested_destination
    assert (dest.host, dest.node) == (host, node)
    assert not spec.force_hosts

    resp = _post(cloud.app, _server(availability_zone=f"nova:{host}"))
    assert resp.status_int == 202, resp.text
    spec = cloud.recorder.next_call(resp)["request_specs"][0]
    assert spec.force_hosts == [host] and spec.availability_zone == "nova"
    assert spec.requested_destination is None

    resp = _post(cloud.app, _server(availability_zone=f"nova:{host}",
                                    host=host))
    assert resp.status_int == 400
    assert "mutually exclusive" in resp.json["badRequest"]["message"]


def test_scheduler_hints_are_kept_as_lists_of_strings(cloud):
    _drain(cloud)
    other = str(uuid.uuid4())
    resp = _post(cloud.app, dict(_server(), **{
        "OS-SCH-HNT:scheduler_hints": {"same_host": [other],
                                       "different_host": other,
                                       "custom": 5}}))
    assert resp.status_int == 202, resp.text
    spec = cloud.recorder.next_call(resp)["request_specs"][0]
    assert spec.scheduler_hints == {"same_host": [other],
                                    "different_host": [other],
                                    "custom": ["5"]}


def test_trusted_certificates_and_hidden_password(cloud):
    _drain(cloud)
    project = uuid.uuid4().hex
    CONF.set_override("enable_instance_password", False, "api")
    try:
        resp = _post(cloud.app, _server(
            trusted_image_certificates=["cert-1", "cert-2"],
            adminPass="s3cret"), project=project, version="2.63")
    finally:
        CONF.clear_override("enable_instance_password", "api")
    assert resp.status_int == 202, resp.text
    assert "adminPass" not in resp.json["server"]
    call = cloud.recorder.next_call(resp)
    assert call["admin_password"] == "s3cret"
    req = webob.Request.blank(f"/v2.1/servers/{resp.json['server']['id']}")
    req.headers["X-Auth-Token"] = f"u1:{project}"
    req.headers["OpenStack-API-Version"] = "compute 2.63"
    shown = req.get_response(cloud.app).json["server"]
    assert shown["trusted_image_certificates"] == ["cert-1", "cert-2"]


@pytest.fixture
def cinder(cloud):
    from keel.clients import cinder as cinder_client
    from tests.fixtures import cinder_sim
    sim = cinder_sim.CinderSim().serve()
    CONF.set_override("endpoint_template", sim.endpoint, group="cinder")
    CONF.set_override("http_retries", 0, group="cinder")
    cinder_client.reset()
    yield sim
    sim.stop()
    CONF.clear_override("endpoint_template", group="cinder")
    CONF.clear_override("http_retries", group="cinder")
    cinder_client.reset()


def _boot_volume(volume_id, **kw):
    return _server(imageRef="", block_device_mapping_v2=[dict({
        "source_type": "volume", "destination_type": "volume",
        "uuid": volume_id, "boot_index": 0}, **kw)])


def test_boot_from_an_existing_volume_reserves_it(cloud, cinder):
    _drain(cloud)
    project = uuid.uuid4().hex
    flat = cinder.add_volume(project, size=3)
    resp = _post(cloud.app, _boot_volume(flat["id"]), project=project)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        f"Block Device {flat['id']} is not bootable."
    vol = cinder.add_volume(project, size=3, bootable="true")
    resp = _post(cloud.app, _boot_volume(vol["id"]), project=project)
    assert resp.status_int == 202, resp.text
    call = cloud.recorder.next_call(resp)
    (root,) = call["build_requests"][0].block_device_mappings
    assert (root.volume_id, root.volume_size) == (vol["id"], 3)
    assert root.attachment_id in cinder.attachments
    assert cinder.volumes[vol["id"]]["status"] == "reserved"
    assert call["request_specs"][0].is_bfv
    assert [b.attachment_id for b in call["block_device_mapping"]] == \
        [root.attachment_id]

    # The volume is taken now: a second server cannot have it.
    resp = _post(cloud.app, _boot_volume(vol["id"]), project=project)
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"].startswith("Invalid volume: ")


@pytest.mark.parametrize("body,message", [
    (_boot_volume("0d7e5f2c-7a5b-4b0e-8f3e-2a1c9d8b7e60"),
     "Block Device Mapping is Invalid: failed to get volume "
     "0d7e5f2c-7a5b-4b0e-8f3e-2a1c9d8b7e60."),
    (_server(imageRef="", block_device_mapping_v2=[{
        "source_type": "blank", "destination_type": "volume",
        "boot_index": 0}]),
     "Blank volumes (source: 'blank', dest: 'volume') need to have "
     "non-zero size"),
    (_server(imageRef="", block_device_mapping_v2=[{
        "source_type": "image", "destination_type": "volume",
        "uuid": IMAGE, "boot_index": 0}]),
     "Images with destination_type 'volume' need to have a non-zero size "
     "specified"),
])
def test_volume_mappings_refused_as_nova(cloud, cinder, body, message):
    resp = _post(cloud.app, body)
    assert resp.status_int == 400, resp.text
    assert resp.json["badRequest"]["message"] == message


def test_one_volume_cannot_boot_several_servers(cloud, cinder):
    vol = cinder.add_volume("p", bootable="true")
    body = _boot_volume(vol["id"])
    body["server"]["min_count"] = 2
    resp = _post(cloud.app, body)
    assert resp.status_int == 400, resp.text
    assert resp.json["badRequest"]["message"] == \
        "Cannot attach one or more volumes to multiple instances"
    assert cinder.attachments == {}


def test_image_to_volume_boot_passes_with_cinder(cloud, cinder):
    _drain(cloud)
    resp = _post(cloud.app, _server(imageRef="", block_device_mapping_v2=[{
        "source_type": "image", "destination_type": "volume",
        "uuid": IMAGE, "boot_index": 0, "volume_size": 2,
        "delete_on_termination": True}]))
    assert resp.status_int == 202, resp.text
    call = cloud.recorder.next_call(resp)
    (root,) = call["build_requests"][0].block_device_mappings
    assert (root.image_id, root.volume_size, root.attachment_id) == \
        (IMAGE, 2, None)
    assert call["build_requests"][0].instance.image_ref == ""


def test_volume_zone_without_cross_az_attach(cloud, cinder):
    CONF.set_override("cross_az_attach", False, group="cinder")
    try:
        far = cinder.add_volume("p", bootable="true",
                                availability_zone="far")
        resp = _post(cloud.app, _boot_volume(far["id"]))
        assert resp.status_int == 400, resp.text
        assert resp.json["badRequest"]["message"] == (
            "The availability zone between the server and its attached "
            "volumes do not match: Server and volumes are not in the same "
            "availability zone. Server is in: None. Volumes are in: far.")
        near = cinder.add_volume("p", bootable="true")
        resp = _post(cloud.app, _boot_volume(near["id"]))
        assert resp.status_int == 202, resp.text
        spec = cloud.recorder.next_call(resp)["request_specs"][0]
        assert spec.availability_zone == "nova"
    finally:
        CONF.clear_override("cross_az_attach", group="cinder")


def test_a_failed_cast_leaves_no_server_behind(cloud):
    """A conductor pinned below 1.17 ([upgrade_levels]) cannot take the
    request: the API answers 500 and removes what it wrote."""
    project = uuid.uuid4().hex
    CONF.set_override("conductor", "1.16", group="upgrade_levels")
    create_api.reset()
    try:
        resp = _post(cloud.app, _server(), project=project)
    finally:
        CONF.clear_override("conductor", group="upgrade_levels")
        create_api.reset()
    assert resp.status_int == 500
    assert objects.InstanceMappingList.get_by_project_id(
        _ctxt(project), project).objects == []
    member = keel_context.RequestContext(user_id="u1", project_id=project)
    assert objects.BuildRequestList.get_all(member).objects == []


def test_accept_reads_and_writes_in_one_api_transaction(cloud):
    """The flavor, the quota limits and counts and the three records: one
    API-database connection checkout and one COMMIT; the quota re-check
    reads afresh in a second one, after the commit."""
    import sqlalchemy as sa

    seen = []
    me = threading.get_ident()

    def note(what):
        # This request's only (the cloud's services run meanwhile).
        return lambda *a: (seen.append(what)
                           if threading.get_ident() == me else None)

    checkout, commit = note("checkout"), note("commit")
    # Every pool and engine: the API database's readers and writers.
    sa.event.listen(sa.pool.Pool, "checkout", checkout)
    sa.event.listen(sa.engine.Engine, "commit", commit)
    try:
        resp = _post(cloud.app, _server())
    finally:
        sa.event.remove(sa.pool.Pool, "checkout", checkout)
        sa.event.remove(sa.engine.Engine, "commit", commit)
    assert resp.status_int == 202
    # (Before: a reader for the flavor and limits, then a writer.)
    assert seen[:2] == ["checkout", "commit"]


def test_a_failed_write_leaves_no_record_behind(cloud, monkeypatch):
    """The records are written in the transaction that read the flavor:
    a failure half-way through writes nothing at all."""
    from keel.compute_api import server_create_records as records

    project = uuid.uuid4().hex

    def broken(s, mapping, now):
        raise RuntimeError("database went away")

    monkeypatch.setattr(records, "_mapping", broken)
    resp = _post(cloud.app, _server(), project=project)
    assert resp.status_int == 500
    ctxt = _ctxt(project)
    assert objects.InstanceMappingList.get_by_project_id(
        ctxt, project).objects == []
    member = keel_context.RequestContext(user_id="u1", project_id=project)
    assert objects.BuildRequestList.get_all(member).objects == []
    from keel.db.api import models
    import sqlalchemy as sa
    from keel.db import session
    with session.api_reader(ctxt) as s:
        specs = s.execute(sa.select(sa.func.count()).select_from(
            models.RequestSpec.__table__)).scalar()
        builds = s.execute(sa.select(sa.func.count()).select_from(
            models.BuildRequest.__table__)).scalar()
        mappings = s.execute(sa.select(sa.func.count()).select_from(
            models.InstanceMapping.__table__)).scalar()
    assert specs == builds == mappings


def test_show_of_a_building_server_reads_the_api_database_twice(cloud):
    """GET /servers/{id} while the server is a BuildRequest (what a client
    waiting for ACTIVE polls): the mapping and the BuildRequest in one
    API-database read, the request spec and server group in another (four
    before), with Nova's answer."""
    import sqlalchemy as sa

    _drain(cloud)
    project = uuid.uuid4().hex
    resp = _post(cloud.app, _server(name="poll"), project=project)
    assert resp.status_int == 202
    server_id = resp.json["server"]["id"]
    cloud.recorder.next_call(resp)
    # Every pool (the API database's readers and writers; a building
    # server has no cell to read).
    engine = sa.pool.Pool
    seen = []
    me = threading.get_ident()
    # This request's checkouts only (the cloud's services run meanwhile).
    checkout = lambda *a: (seen.append("checkout")
                           if threading.get_ident() == me else None)
    sa.event.listen(engine, "checkout", checkout)
    try:
        req = webob.Request.blank(f"/v2.1/servers/{server_id}")
        req.headers["X-Auth-Token"] = f"u1:{project}"
        req.headers["OpenStack-API-Version"] = f"compute {LATEST}"
        shown = req.get_response(cloud.app)
    finally:
        sa.event.remove(engine, "checkout", checkout)
    assert shown.status_int == 200
    body = shown.json["server"]
    assert (body["status"], body["name"]) == ("BUILD", "poll")
    assert body["server_groups"] == []
    assert body["pinned_availability_zone"] is None
    assert body["scheduler_hints"] == {}
    assert seen == ["checkout", "checkout"]
