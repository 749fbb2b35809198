"""Pieces of the server create: zone parsing, host names, passwords, the
quota arithmetic of multi-creates (against real SQLite cells and API
database) and the block device mapping rules."""
import json
import uuid

import pytest

from keel.compute_api import quota
from keel.compute_api import server_create_bdm as bdm
from keel.compute_api import server_create_checks as checks
from keel.compute_api import server_create_quota as create_quota
from keel import context as keel_context
from keel import exception
from keel import objects
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.unit.api.conftest import conf  # noqa: F401
from tests.unit.api.resources.test_quotas import add_instance

IMAGE = "155d900f-4e14-4e4c-a73d-069cbf4541e6"


@pytest.mark.parametrize("zone,expected", [
    ("nova", ("nova", None, None)),
    ("nova:host1", ("nova", "host1", None)),
    ("nova::node1", ("nova", None, "node1")),
    ("nova:host1:node1", ("nova", "host1", "node1")),
    (":host1", (None, "host1", None)),
])
def test_parse_availability_zone(conf, zone, expected):  # noqa: F811
    assert checks.parse_availability_zone(zone) == expected


def test_parse_availability_zone_refuses_more_colons(conf):  # noqa: F811
    with pytest.raises(exception.InvalidInput):
        checks.parse_availability_zone("a:b:c:d")


def test_default_schedule_zone_applies_when_none_asked(conf):  # noqa: F811
    conf.config(default_schedule_zone="west")
    assert checks.parse_availability_zone(None) == ("west", None, None)
    assert checks.parse_availability_zone(":h") == ("west", "h", None)


@pytest.mark.parametrize("name,hostname", [
    ("Web Server_1.example", "web-server-1-example"),
    ("..dots..", "dots"),
    ("ünïcode ☃", "ünïcode"),
    ("x" * 70, "x" * 63),
    ("☃☃", ""),
])
def test_sanitize_hostname(name, hostname):
    assert checks.sanitize_hostname(name) == hostname


def test_password_and_reservation_id_shapes():
    pw = checks.generate_password()
    assert len(pw) == 12 and not set(pw) & set("01lIO")
    assert any(c.isdigit() for c in pw) and any(c.isupper() for c in pw)
    rid = checks.generate_reservation_id()
    assert rid.startswith("r-") and len(rid) == 10


def test_config_drive_and_user_data():
    assert checks.config_drive_value(None) == ""
    assert checks.config_drive_value("yes") == "True"
    assert checks.config_drive_value(False) == ""
    with pytest.raises(exception.ConfigDriveInvalidValue):
        checks.config_drive_value("maybe")
    checks.check_user_data("aGVsbG8=")
    with pytest.raises(exception.InstanceUserDataMalformed):
        checks.check_user_data("not base64!")


def test_system_metadata_from_image_keeps_nova_keys():
    flavor = objects.Flavor(root_gb=5)
    image = {"min_ram": 0, "min_disk": 1, "disk_format": "qcow2",
             "container_format": "bare",
             "properties": {"os_distro": "cirros", "img_signature": "s",
                            "hw_disk_bus": "virtio"}}
    sysmeta = checks.system_metadata_from_image(image, flavor)
    assert sysmeta == {"image_os_distro": "cirros",
                       "image_hw_disk_bus": "virtio", "image_min_ram": "0",
                       "image_min_disk": "5", "image_disk_format": "qcow2",
                       "image_container_format": "bare"}


def test_auto_disk_config_follows_the_image():
    assert checks.auto_disk_config({}, None) is False
    assert checks.auto_disk_config({"properties": {
        "auto_disk_config": "True"}}, None) is True
    assert checks.auto_disk_config({"properties": {
        "auto_disk_config": "Disabled"}}, False) is False
    with pytest.raises(exception.AutoDiskConfigDisabledByImage):
        checks.auto_disk_config({"id": "i", "properties": {
            "auto_disk_config": "disabled"}}, True)


# --- quota -----------------------------------------------------------------

def _flavor(vcpus=2, memory_mb=1024):
    return objects.Flavor(vcpus=vcpus, memory_mb=memory_mb)


@pytest.fixture
def member(cells_db):  # noqa: F811
    return keel_context.RequestContext(user_id="u", project_id="p",
                                       is_admin=False)


def _map(ctx, n, user_id="u", queued=False):
    for _ in range(n):
        objects.InstanceMapping(
            ctx, instance_uuid=str(uuid.uuid4()), project_id="p",
            user_id=user_id, cell_mapping=None,
            queued_for_delete=queued).create()


def test_multi_create_is_cut_to_the_instances_headroom(member, cells_db):  # noqa: F811,E501
    admin = keel_context.get_admin_context()
    quota.set_limit(admin, "p", "instances", 5)
    _map(member, 3)
    _map(member, 4, queued=True)  # being deleted: not counted
    assert create_quota.check_num_instances(member, _flavor(), 1, 10)[0] \
        == 2
    with pytest.raises(exception.TooManyInstances) as err:
        create_quota.check_num_instances(member, _flavor(), 3, 10)
    assert err.value.format_message() == (
        "Quota exceeded for instances: Requested 3-10, but already used 3 "
        "of 5 instances")


def test_cores_and_ram_limit_the_count_too(member, cells_db):  # noqa: F811
    admin = keel_context.get_admin_context()
    url = list(cells_db.cell_urls.values())[1]
    add_instance(url, project_id="p", user_id="u", vcpus=4, memory_mb=512)
    quota.set_limit(admin, "p", "cores", 10)
    quota.set_limit(admin, "p", "ram", 100000)
    # 6 cores left: three 2-vcpu servers.
    assert create_quota.check_num_instances(member, _flavor(), 1, 8)[0] == 3
    quota.set_limit(admin, "p", "ram", 2560)
    # 2048 MB left: two 1024 MB servers.
    assert create_quota.check_num_instances(member, _flavor(), 1, 8)[0] == 2
    with pytest.raises(exception.TooManyInstances) as err:
        create_quota.check_num_instances(member, _flavor(vcpus=8), 1, 1)
    assert err.value.format_message() == (
        "Quota exceeded for cores: Requested 8, but already used 4 of 10 "
        "cores")


def test_a_users_own_limit_binds_before_the_projects(member, cells_db):  # noqa: F811,E501
    admin = keel_context.get_admin_context()
    _map(member, 2, user_id="someone-else")
    _map(member, 1)
    quota.set_limit(admin, "p", "instances", 2, user_id="u")
    count, limits = create_quota.check_num_instances(member, _flavor(), 1, 5)
    assert count == 1 and limits["scope"]["instances"] == "user"
    # The re-check reads the user's count again: two of two is fine...
    _map(member, 1)
    create_quota.recheck(member, limits, _flavor(), 1)
    # ...a third server of the user's (a racing request) is not.
    _map(member, 1)
    with pytest.raises(exception.TooManyInstances):
        create_quota.recheck(member, limits, _flavor(), 1)


def test_unlimited_quota_allows_any_count(member, cells_db, conf):  # noqa: F811,E501
    admin = keel_context.get_admin_context()
    quota.set_limit(admin, "p", "instances", -1)
    quota.set_limit(admin, "p", "cores", -1)
    quota.set_limit(admin, "p", "ram", -1)
    assert create_quota.check_num_instances(member, _flavor(), 1, 500)[0] \
        == 500
    conf.config(driver="nova.quota.NoopQuotaDriver", group="quota")
    assert create_quota.check_num_instances(member, _flavor(), 1, 7) == \
        (7, None)


# --- block device mappings ------------------------------------------------

def _fl(ephemeral_gb=0, swap=0):
    return objects.Flavor(root_gb=1, ephemeral_gb=ephemeral_gb, swap=swap)


def test_from_api_moves_uuid_to_the_source_id():
    out = bdm.from_api({"source_type": "image", "uuid": IMAGE,
                        "destination_type": "volume", "volume_size": "2",
                        "boot_index": "0", "delete_on_termination": "yes"},
                       image_specified=False)
    assert out == {"source_type": "image", "image_id": IMAGE,
                   "destination_type": "volume", "volume_size": 2,
                   "boot_index": 0, "delete_on_termination": True}


@pytest.mark.parametrize("api,details", [
    ({"source_type": "blank", "uuid": IMAGE}, "Invalid device UUID."),
    ({"source_type": "volume"}, "Missing device UUID."),
    ({"source_type": "image", "uuid": IMAGE, "destination_type": "local",
      "boot_index": 0}, "Mapping image to local is not supported."),
    ({"source_type": "blank", "destination_type": "local",
      "volume_type": "ssd"}, "Specifying a volume_type with "
     "destination_type=local is not supported."),
    ({"source_type": "volume", "uuid": IMAGE, "volume_type": "ssd"},
     "Specifying volume type to existing volume is not supported."),
])
def test_from_api_refusals(api, details):
    with pytest.raises(exception.InvalidBDMFormat) as err:
        bdm.from_api(api, image_specified=False)
    assert err.value.kwargs["details"] == details


def test_transform_adds_the_image_and_flavor_disks():
    out = bdm.transform([], True, IMAGE, _fl(ephemeral_gb=2, swap=512), 1)
    assert [(b["source_type"], b.get("guest_format"), b["boot_index"])
            for b in out] == [("image", None, 0), ("blank", None, -1),
                              ("blank", "swap", -1)]
    listed = bdm.for_instance(None, out, _fl(ephemeral_gb=2, swap=512),
                              "0a6e3c52-1c1b-4a43-9b54-3b4f3d1d2e10")
    assert [b.volume_size for b in listed] == [None, 2, 512]
    assert {b.instance_uuid for b in listed} == \
        {"0a6e3c52-1c1b-4a43-9b54-3b4f3d1d2e10"}


def test_legacy_volume_on_the_root_device_boots():
    out = bdm.transform([{"device_name": "/dev/vda", "volume_id": IMAGE}],
                        True, "", _fl(), 1)
    assert [(b["source_type"], b["boot_index"]) for b in out] == \
        [("volume", 0)]


def test_volumes_cannot_go_to_several_servers():
    with pytest.raises(exception.InvalidRequest):
        bdm.transform([{"source_type": "volume", "volume_id": IMAGE,
                        "destination_type": "volume", "boot_index": 0}],
                      False, "", _fl(), 2)


@pytest.mark.parametrize("bdms,error", [
    ([{"source_type": "blank", "destination_type": "local",
       "boot_index": 1}], exception.InvalidBDMBootSequence),
    ([{"source_type": "image", "image_id": IMAGE, "boot_index": 0,
       "destination_type": "local"},
      {"source_type": "blank", "destination_type": "local",
       "boot_index": -1, "volume_size": 5}], exception.InvalidBDMEphemeralSize),
    ([{"source_type": "image", "image_id": IMAGE, "boot_index": 0,
       "destination_type": "local"},
      {"source_type": "blank", "destination_type": "local",
       "guest_format": "swap", "boot_index": -1, "volume_size": 1},
      {"source_type": "blank", "destination_type": "local",
       "guest_format": "swap", "boot_index": -1, "volume_size": 1}],
     exception.InvalidBDMFormat),
    ([{"source_type": "image", "image_id": IMAGE, "boot_index": 0,
       "destination_type": "local", "disk_bus": "floppy-ish"}],
     exception.InvalidBDMDiskBus),
])
def test_validate_refusals(conf, bdms, error):  # noqa: F811
    with pytest.raises(error):
        bdm.validate(None, bdms, _fl(ephemeral_gb=1, swap=1), IMAGE, {})


def test_at_most_three_local_disks(conf):  # noqa: F811
    bdms = [{"source_type": "image", "image_id": IMAGE, "boot_index": 0,
             "destination_type": "local"}] + [
        {"source_type": "blank", "destination_type": "local",
         "boot_index": -1, "volume_size": 1} for _ in range(2)]
    bdm.validate(None, bdms, _fl(ephemeral_gb=10), IMAGE, {})
    with pytest.raises(exception.InvalidBDMLocalsLimit):
        bdm.validate(None, bdms + bdms[1:2], _fl(ephemeral_gb=10), IMAGE,
                     {})


def test_volume_destination_needs_cinder(conf):  # noqa: F811
    bdms = [{"source_type": "image", "image_id": IMAGE, "boot_index": 0,
             "destination_type": "volume", "volume_size": 1}]
    with pytest.raises(exception.InvalidBDM) as err:
        bdm.validate(None, bdms, _fl(), IMAGE, {})
    assert "no block storage service (Cinder) is configured" in \
        err.value.format_message()
    conf.config(endpoint_template="http://cinder/v3/%(project_id)s",
                group="cinder")
    bdm.validate(None, bdms, _fl(), IMAGE, {})
    bdms[0]["volume_size"] = None
    with pytest.raises(exception.InvalidBDM):
        bdm.validate(None, bdms, _fl(), IMAGE, {})


def test_legacy_swap_ephemeral_and_unknown_entries():
    out = bdm.from_legacy([{"virtual_name": "swap", "device_name": "vdc",
                            "volume_size": 1},
                           {"virtual_name": "ephemeral0",
                            "device_name": "vdb"}], IMAGE, "vda")
    assert [(b["source_type"], b.get("guest_format"), b["boot_index"])
            for b in out] == [("image", None, 0), ("blank", "swap", -1),
                              ("blank", None, -1)]
    with pytest.raises(exception.InvalidBDMFormat) as err:
        bdm.from_legacy([{"device_name": "vdb"}], IMAGE, "vda")
    assert err.value.kwargs["details"] == "Unrecognized legacy format."
    with pytest.raises(exception.InvalidBDMFormat) as err:
        bdm.from_api({"uuid": IMAGE, "boot_index": 0}, True)
    assert err.value.kwargs["details"] == "Invalid source_type field."


def test_only_ram_limited_cuts_by_ram_alone(member, cells_db):  # noqa: F811
    admin = keel_context.get_admin_context()
    for name in ("instances", "cores"):
        quota.set_limit(admin, "p", name, -1)
    quota.set_limit(admin, "p", "ram", 3 * 1024)
    assert create_quota.check_num_instances(member, _flavor(), 1, 9)[0] == 3


def test_max_local_block_devices_zero_means_volumes_only(conf):  # noqa: F811
    conf.config(max_local_block_devices=0)
    with pytest.raises(exception.InvalidBDMLocalsLimit):
        bdm.validate(None, [bdm.image_bdm(IMAGE)], _fl(), IMAGE, {})
    conf.config(max_local_block_devices=-1)
    bdm.validate(None, [bdm.image_bdm(IMAGE)], _fl(), IMAGE, {})


def test_snapshot_image_brings_its_volume_root():
    snap = "3f0a1e2d-4c5b-4a69-8d7e-1f2a3b4c5d6e"
    image = {"properties": {"bdm_v2": "True", "root_device_name": "/dev/vda",
                            "block_device_mapping": json.dumps([{
                                "source_type": "snapshot",
                                "destination_type": "volume",
                                "snapshot_id": snap, "boot_index": 0,
                                "device_name": "/dev/vda",
                                "volume_size": 1}])}}
    out = bdm.transform([], True, IMAGE, _fl(), 1, image)
    assert [(b["source_type"], b["boot_index"]) for b in out] == \
        [("snapshot", 0)]
    # A client that also sent the image as root gets the image's root.
    out = bdm.transform([bdm.image_bdm(IMAGE)], False, IMAGE, _fl(), 1,
                        image)
    assert [b["source_type"] for b in out] == ["snapshot"]
